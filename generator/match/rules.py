"""How the matcher ranks what it finds: the weights, and what it knows of each pattern. The one place.

`errdex match` (generator.match.engine) reads them from here, or from the `match.json` it is given; the site's worker
reads them from `match.json` only, which carries `rules` (below) and, for each pattern, its analysis
(`pattern_analysis`). `tests/fixtures/match-conformance.json` holds logs with the ranking both must give.

A result's score: the pattern's specificity (the literal characters it spells out), plus `exception_bonus` when
the record's exception class is named on the line, plus `anchored_bonus` for a pattern anchored with `^` or `$`,
plus one per further occurrence up to `repeat_bonus_cap`, minus `retired_penalty` for a retired record. Ties go
to the earlier line, then the id. A catalog entry gains `release_has_bonus` when the release the log comes from
raises its message and loses `release_lacks_penalty` when it does not. A result keeps the numbers of its first `lines_kept` lines.

A partial match: a line cut off inside a message (a paste, a log that truncates) still names it when the line holds
at least `partial_min_chars` characters of the message's first long run of fixed text (`partial_text`): the run
whole, or a prefix of it that the line ends with. It scores the fixed characters held (plus the exception bonus),
is labelled partial and ranks below every whole match; a pattern that matches a line whole has no partial hit
there, and a partial hit that overlaps a whole match on its line is left out.

A catalog entry is an answer only when the evidence holds (`evidence`): the exception class named just before its
text on the line, when there is one, is the entry's; its fixed text is not only words that Python itself raises
with (`GENERIC_MESSAGES`: "object has no attribute" is every AttributeError); and it spells out at least
`evidence_min_fixed` characters or `evidence_min_share` percent of the message from where it matched to the end of
the line (the pattern's fixed characters, or the template's that the line holds in order from there,
`template_held`, whichever is more). Records are curated: the rule is for the harvested entries.
"""

from __future__ import annotations

import functools
import re
from typing import Any

RULES: dict[str, int] = {
    "exception_bonus": 25,
    "anchored_bonus": 5,
    "repeat_bonus_cap": 10,
    "retired_penalty": 50,
    "lines_kept": 20,
    # a catalog entry, when the log's release of its project is known (the paste page's version box,
    # `errdex match --catalog --version`): that release raises the message, or it does not
    "release_has_bonus": 10,
    "release_lacks_penalty": 30,
    "partial_min_chars": 30,
    "evidence_min_fixed": 20,
    "evidence_min_share": 50,
}

# Messages the Python runtime raises itself, in words (letters only, lower case): a catalog entry whose fixed
# text is no more than a part of one of these says nothing a line of that kind does not say anyway.
GENERIC_MESSAGES: list[str] = [
    "object has no attribute",
    "module has no attribute",
    "type object has no attribute",
    "object is not subscriptable",
    "object is not callable",
    "object is not iterable",
    "object does not support item assignment",
    "object of type has no len",
    "no module named",
    "cannot import name from",
    "got an unexpected keyword argument",
    "got multiple values for argument",
    "missing required positional argument",
    "missing required positional arguments",
    "takes positional arguments but were given",
    "takes positional argument but were given",
    "list index out of range",
    "tuple index out of range",
    "string index out of range",
    "index out of range",
    "division by zero",
    "not enough values to unpack expected got",
    "too many values to unpack expected",
    "unsupported operand type s for",
    "name is not defined",
    "is not defined",
    "maximum recursion depth exceeded",
    "invalid literal for int with base",
    "could not convert string to float",
    "can only concatenate str not to str",
    "unhashable type",
    "expecting value line column char",
    "no such file or directory",
    "permission denied",
    "not supported between instances of and",
    "dictionary changed size during iteration",
    "argument must be a string or a number not",
]


def rules_from(doc: Any) -> dict[str, int] | None:
    """The `rules` of a match.json document, when it has every one as a whole number; else None."""
    rules = doc.get("rules") if isinstance(doc, dict) else None
    if not isinstance(rules, dict):
        return None
    out = {k: rules.get(k) for k in RULES}
    return out if all(isinstance(v, int) and not isinstance(v, bool) for v in out.values()) else None


def exception_name(exception_class: str | None) -> str | None:
    """What to look for on a line to say the exception is named there: the class without its module
    (`servekit.CacheOOMError` -> `CacheOOMError`; `c10::Error` -> `Error`)."""
    if not exception_class:
        return None
    return exception_class.rsplit(".", 1)[-1].rsplit(":", 1)[-1] or None


BLANKS = " \t\n\r\f\v"  # what "trailing spaces" are, in both engines

# Wordings that differ only in quoting: a line that holds one of these is also read with each replaced, in this
# order (typographic quotes as plain ones, a JSON-escaped quote as the quote, Markdown's backticks left out). A
# pattern found only in the line so read is a hit there too, labelled `requoted`; its column is in that reading.
REQUOTE: list[list[str]] = [["\u2018", "'"], ["\u2019", "'"], ["\u201c", '"'], ["\u201d", '"'], ['\\"', '"'],
                            ["\\'", "'"], ["`", ""]]


def requote(text: str) -> str:
    """`text` read with REQUOTE's replacements."""
    for old, new in REQUOTE:
        text = text.replace(old, new)
    return text


def partial_text(message: str, min_chars: int | None = None) -> str:
    """The fixed text a cut-off line is recognised by: the message template's first run between `{}` holes of at
    least `partial_min_chars` characters, "" when it has none."""
    least = RULES["partial_min_chars"] if min_chars is None else min_chars
    return next((run for run in message.split("{}") if len(run) >= least), "")


def partial_at(text: str, run: str, min_chars: int) -> tuple[int, int, int] | None:
    """Where `text` (one line) holds `run` as a cut-off line does: (start, end, characters held) of the run whole
    (to the line's end: what follows is the cut-off rest), or of the longest prefix of at least `min_chars` that the
    line ends with (trailing BLANKS aside); None when it holds neither."""
    if not run or len(run) < min_chars:
        return None
    end = len(text.rstrip(BLANKS))
    whole = text.find(run)
    if 0 <= whole:
        return whole, max(end, whole + len(run)), len(run)
    head = run[:min_chars]  # a line that ends with a prefix of the run holds its first min_chars characters
    at = text.find(head, max(0, end - len(run) + 1), end)
    while 0 <= at <= end - min_chars:
        if run.startswith(text[at:end]):
            return at, end, end - at
        at = text.find(head, at + 1, end)
    return None


CLASS_CHARS = 200  # of the text before a match, the part an exception class named just before it is looked for in
_CLASS_BEFORE = re.compile(r"([A-Za-z_][A-Za-z0-9_.]*(?:Error|Exception|Warning|Interrupt|Exit))\s*:\s*$")
_LETTERS = re.compile(r"[^a-z]+")


def words(text: str) -> str:
    """Letters only, lower case, one space between words: how fixed text is compared with GENERIC_MESSAGES."""
    return _LETTERS.sub(" ", text.lower()).strip()


@functools.lru_cache(maxsize=65536)
def generic(template: str) -> bool:
    """Whether a template's fixed text is no more than a part of a message the Python runtime raises itself (once
    per template: a log repeats a catalog entry's message many times)."""
    fixed = words(" ".join(template.split("{}")))
    return not fixed or any(f" {fixed} " in f" {g} " for g in GENERIC_MESSAGES)


@functools.lru_cache(maxsize=65536)
def _runs(template: str) -> tuple[str, ...]:
    """A template's fixed runs between `{}` holes (once per template: a log repeats an entry's message)."""
    return tuple(run for run in template.split("{}") if run)


def template_held(text: str, start: int, template: str) -> int:
    """How much of a template's fixed text `text` holds from `start` on, in order: from the run between `{}` holes
    that `text` has at `start`, each next run after the one before; the characters of the runs found before the
    first one missing (0 when no run is at `start`)."""
    runs = _runs(template)
    first = next((k for k, run in enumerate(runs) if text.startswith(run, start)), None)
    if first is None:
        return 0
    held, at = 0, start
    for run in runs[first:]:
        found = text.find(run, at)
        if found < 0:
            break
        held += len(run)
        at = found + len(run)
    return held


def evidence(text: str, span: tuple[int, int] | list[int], template: str, exception: str | None, fixed: int,
             rules: dict[str, int] | None = None) -> list[Any] | None:
    """Why a catalog entry found on a line is not an answer, as data, or None when the evidence holds (see the
    module's text): `["other_exception", named]`, `["generic"]` or `["too_little", fixed, share]`."""
    rules = RULES if rules is None else rules
    named = _CLASS_BEFORE.search(text[max(0, span[0] - CLASS_CHARS):span[0]])
    own = exception_name(exception)
    if named and own and exception_name(named.group(1)) != own:
        return ["other_exception", named.group(1)]
    if generic(template):
        return ["generic"]
    fixed = max(fixed, template_held(text, span[0], template))  # a pattern on a stable part of a longer message
    rest = len(text[span[0]:].rstrip(BLANKS)) or 1
    share = fixed * 100 // rest
    if fixed < rules["evidence_min_fixed"] and share < rules["evidence_min_share"]:
        return ["too_little", fixed, share]
    return None


def pattern_analysis(regex: str, exception_class: str | None = None) -> dict[str, Any]:
    """What the matchers need to know of a pattern beyond the pattern itself (generator.match.portable derives it):
    its JavaScript spelling, its prefilter literals, its specificity, whether it is anchored, and the exception
    name to look for on the line. (The fixed text a cut-off line is recognised by, `partial_text`, each engine takes
    from the message.)"""
    from .portable import analyse

    a = analyse(regex)
    out: dict[str, Any] = {
        "js_source": a.js_source,
        "js_flags": a.js_flags,
        "literals": a.literals,
        "specificity": a.specificity,
        "anchored": a.anchored,
    }
    name = exception_name(exception_class)
    if name is not None:
        out["exception_name"] = name
    return out


def match_document(patterns: list[dict[str, Any]]) -> dict[str, Any]:
    """match.json: the rules (with GENERIC_MESSAGES as `generic`, REQUOTE as `requote`), then every pattern (each
    with its `pattern_analysis`)."""
    return {"count": len(patterns), "rules": {**RULES, "generic": list(GENERIC_MESSAGES), "requote": REQUOTE}, "patterns": patterns}
