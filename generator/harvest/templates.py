"""From a message template to a catalog entry's identity and pattern.

- `normalise`: whitespace runs collapsed, ends trimmed (the same message reflowed over lines keeps its id);
- `entry_id`: project + the first 16 hex of sha256(project + NUL + normalised template);
- `pattern_for`: an RE2- and JavaScript-portable pattern (checked with generator/match/portable.py and the RGX006
  breadth rules) that matches the template's stable part: one line (the first with enough fixed text), cut
  after its first sentence when that sentence alone is specific, and at most MAX_PATTERN characters, so a
  message that later gains a clause, or a log line that shows only the first line of a long message, still
  matches. Holes become `(.+?)` (`(.+)` at the end), a hole that another follows `([^c]+?)` where c is the text
  after it; leading holes are dropped (patterns are unanchored).
- `tier`: "user" for what users meet (entry points, configuration, engine, loading code, logs) and
  "internal" for internal asserts, shape checks and NotImplementedError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..checks.regex import compile_error, too_broad
from ..match.portable import analyse, prefilter_literal
from .sites import Site

MIN_STABLE = 16  # fixed characters a first sentence or line needs to stand alone
MIN_SPECIFICITY = 10  # fixed characters a catalog pattern needs (fewer: "Error (.+)" would match any log)
MAX_PATTERN = 160  # characters of template a pattern spells out at most
HOLE = "{}"
_SPECIAL = set("\\.^$|?*+()[]{}")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`'\"(\[])")
INTERNAL_EXCEPTIONS = {"NotImplementedError", "AssertionError", "NotImplemented"}
_SHAPE = re.compile(r"\bshapes?\b|\bndim\b|\bdims?\b|\bdimensions?\b|size mismatch|must be divisible|\bstrides?\b|\bcontiguous\b", re.I)


from ..checks.catalog import entry_id, normalise  # noqa: E402,F401  (the id rule lives with the catalog's checks)


def _fixed(text: str) -> int:
    return len(text.replace(HOLE, "").strip())


def _escape(text: str) -> str:
    out = []
    for c in text:
        if c in _SPECIAL:
            out.append("\\" + c)
        elif c == "\t":
            out.append("\\t")
        elif ord(c) < 0x20 or ord(c) == 0x7F or 0x80 <= ord(c) < 0xA0 or 0xD800 <= ord(c) < 0xE000 or ord(c) in (0x2028, 0x2029, 0xFFFE, 0xFFFF):
            out.append(".")
        else:
            out.append(c)
    return "".join(out)


def stable_part(template: str) -> str:
    """The part of a template every version of the message is likely to keep."""
    lines = [line.strip() for line in template.split("\n")]
    lines = [line for line in lines if _fixed(line)]
    if not lines:
        return ""
    line = next((l for l in lines if _fixed(l) >= MIN_STABLE), max(lines, key=_fixed))
    while line.startswith(HOLE):
        line = line[len(HOLE):].lstrip()
    sentences = _SENTENCE_END.split(line, maxsplit=1)
    if len(sentences) == 2 and _fixed(sentences[0]) >= MIN_STABLE:
        line = sentences[0]
    if len(line) > MAX_PATTERN:
        cut = line[:MAX_PATTERN]
        space = cut.rfind(" ")
        line = cut[:space] if space > MAX_PATTERN // 2 else cut
        if line.endswith("{"):
            line = line[:-1]
    while HOLE + HOLE in line:
        line = line.replace(HOLE + HOLE, HOLE)
    return line.rstrip()


def _hole_before(piece: str) -> str:
    """A hole that another hole follows: it may not take the first character of the text between them, so the
    two can split a line one way only (two `(.+?)` with a separator both can match backtrack in browsers)."""
    c = piece[0]
    if c == "\n":
        return "([^\\n]+?)"
    return "([^" + ("\\" + c if c in "\\]^-[" else c) + "\\n]+?)"


def _to_pattern(part: str) -> str:
    pieces = part.split(HOLE)
    out = []
    for i, piece in enumerate(pieces):
        out.append(_escape(piece))
        if i < len(pieces) - 1:
            last_hole = i == len(pieces) - 2
            if last_hole:
                out.append("(.+)" if pieces[-1] == "" else "(.+?)")
            else:
                # Only punctuation or space bounds a value well; a letter may be part of one ({}x{} is "4x4").
                nxt = pieces[i + 1]
                out.append(_hole_before(nxt) if nxt and not nxt[0].isalnum() and nxt[0] != "_" else "(.+?)")
    return "".join(out)


def longest_literal(part: str) -> str:
    return max((p.strip() for p in part.split(HOLE)), key=len, default="")


@dataclass(frozen=True)
class Pattern:
    pattern: str
    literal: str
    specificity: int


def _acceptable(pattern: str) -> Pattern | None:
    analysis = analyse(pattern)
    if analysis.specificity < MIN_SPECIFICITY or not analysis.portable or compile_error(pattern) is not None or too_broad(pattern, analysis.literals) is not None:
        return None
    return Pattern(pattern, prefilter_literal(analysis.literals), analysis.specificity)


def pattern_for(template: str) -> Pattern | None:
    """The entry's pattern, its prefilter literal and specificity; None when no specific pattern exists."""
    part = stable_part(template)
    candidates = [part]
    first_line = next((l for l in template.split("\n") if _fixed(l)), "")
    candidates.append(first_line.strip()[:MAX_PATTERN])
    candidates.append(longest_literal(part))
    for candidate in candidates:
        if not candidate or not _fixed(candidate):
            continue
        found = _acceptable(_to_pattern(candidate))
        if found is not None:
            return found
    return None


def tier(site: Site, user_path: bool) -> str:
    """user | internal, for one site."""
    if site.kind == "assert" or site.exception in INTERNAL_EXCEPTIONS or _SHAPE.search(site.template):
        return "internal"
    if user_path or site.kind in ("log", "warn", "http"):
        return "user"
    return "internal"
