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


def rank(hits: Iterable[Hit], patterns: Any, specificity: list[int], anchored: list[bool], rules: dict[str, int]) -> list[Result]:
    """One result per pattern hit, best first: score (specificity, exception class on the line, anchoring,
    repetition, retirement, weighed by `rules`), then the earliest line, then the id. `patterns`, `specificity` and
    `anchored` are the matcher's, by pattern index."""
    hits = without_shadowed_partials(without_requoted_repeats(list(hits)))
    results: dict[int, Result] = {}
    for hit in hits:
        r = results.get(hit.pattern)
        if r is None:
            results[hit.pattern] = Result(patterns[hit.pattern], hit, 1, [hit.line])
        else:
            r.occurrences += 1
            if len(r.lines) < rules["lines_kept"]:
                r.lines.append(hit.line)
            if hit.exception_on_line and not r.first.exception_on_line:
                r.first = hit  # a hit with its exception class named is the better one to show
    for pi, r in results.items():
        spec = r.first.partial or specificity[pi]
        r.score = spec
        r.why = [["partial", spec] if r.first.partial else ["specificity", spec]]
        if r.first.requoted:
            r.why.append(["requoted"])
        if r.first.exception_on_line:
            r.score += rules["exception_bonus"]
            r.why.append(["exception", r.pattern.exception_class, rules["exception_bonus"]])
        if anchored[pi] and not r.first.partial:
            r.score += rules["anchored_bonus"]
            r.why.append(["anchored", rules["anchored_bonus"]])
        if r.occurrences > 1:
            bonus = min(r.occurrences - 1, rules["repeat_bonus_cap"])
            r.score += bonus
            r.why.append(["repeated", r.occurrences, bonus])
        if r.pattern.superseded_by:
            r.score -= rules["retired_penalty"]
            r.why.append(["retired", r.pattern.superseded_by, rules["retired_penalty"]])
    ranked = sorted(results.values(), key=lambda r: (r.first.partial > 0, -r.score, r.first.line, r.pattern.id))
    by_line: dict[int, int] = {}
    for n, r in enumerate(ranked, 1):
        if r.first.line in by_line:
            r.why.append(["same_line", by_line[r.first.line]])
        else:
            by_line[r.first.line] = n
    return ranked
