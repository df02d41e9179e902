"""What the matcher finds: a hit (one pattern on one line), a result (one pattern in a log, ranked), and the rule
that a whole match shadows a partial one (generator.match.rules)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .engine import Pattern


@dataclass(frozen=True, slots=True)
class Hit:
    """One pattern found on one line."""

    pattern: int  # index into Matcher.patterns
    line: int  # 1-based line number
    column: int  # 1-based character column of the match in the whole line
    text: str  # the line, or an excerpt around the match when the line is long
    span: tuple[int, int]  # the match, as character offsets into `text`
    groups: tuple[str | None, ...]
    exception_on_line: bool
    partial: int = 0  # a partial match (generator.match.rules): the characters of fixed text the cut-off line holds
    requoted: bool = False  # found in the line read with generator.match.rules.REQUOTE, not in the line as it is


@dataclass
class Result:
    """One record found in the log: its first hit, how often it occurred, and its score with the reasons."""

    pattern: Pattern
    first: Hit
    occurrences: int = 1
    lines: list[int] = field(default_factory=list)
    score: int = 0
    why: list[list[Any]] = field(default_factory=list)  # the rules that gave the score, as data (matchout.explain)

    @property
    def filled_message(self) -> str:
        return fill_message(self.pattern.message, self.first.groups)


def fill_message(message: str, groups: Iterable[str | None]) -> str:
    """The message template with its `{}` placeholders filled in by the captured groups, in order; a
    placeholder with no group (or a group that did not take part) stays `{}`."""
    values = list(groups)
    parts = message.split("{}")
    out = [parts[0]]
    for i, part in enumerate(parts[1:]):
        value = values[i] if i < len(values) else None
        out.append("{}" if value is None else value)
        out.append(part)
    return "".join(out)


def without_requoted_repeats(hits: list[Hit]) -> list[Hit]:
    """The hits less those found in a requoted reading of a line where the line as it is has the same pattern, in
    line order."""
    if not any(h.requoted for h in hits):
        return hits
    plain = {(h.pattern, h.line) for h in hits if not h.requoted}
    kept = [h for h in hits if not (h.requoted and (h.pattern, h.line) in plain)]
    return sorted(kept, key=lambda h: h.line)  # in line order, as one pass reads them (a line's own hits first)


def without_shadowed_partials(hits: list[Hit]) -> list[Hit]:
    """The hits less the partial ones that a whole match shadows: every partial hit of a pattern found whole
    somewhere, and every partial hit that overlaps a whole match on its line (by column)."""
    if not any(h.partial for h in hits):
        return hits
    whole = {h.pattern for h in hits if not h.partial}
    spans: dict[int, list[tuple[int, int]]] = {}
    for h in hits:
        if not h.partial and h.column:
            spans.setdefault(h.line, []).append((h.column, h.column + max(h.span[1] - h.span[0], 1)))
    def shadowed(h: Hit) -> bool:
        if h.pattern in whole:
            return True
        a, b = h.column, h.column + max(h.span[1] - h.span[0], 1)
        return any(a < y and x < b for x, y in spans.get(h.line, ()))
    return [h for h in hits if not (h.partial and shadowed(h))]
