"""RGX: the pattern is portable (RE2 and JavaScript), compiles in RE2 (linear time), runs in linear time in a
backtracking engine too (the browser's), is specific, and tells examples from counter-examples."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import re2

from ..findings import Finding, make
from ..records.load import RawRecord
from ..match.portable import analyse, shape_found
from ..match.backtrack import slow_input
from . import get, record_check, strings
from .ordinary import ORDINARY_LINES

ORDINARY_TEXT = "\n".join(ORDINARY_LINES)

# Every match must contain a fixed text at least this long: it is what makes a pattern specific, and what the
# matcher's literal prefilter looks for.
MIN_LITERAL = 4

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str):
    """Compile with RE2 (no backtracking, so no pattern can hang a run); raises re2.error."""
    return re2.compile(pattern, _OPTIONS)


def pattern_set():
    """An empty RE2 set of patterns compiled as `compile_pattern` compiles one, searched anywhere in a text."""
    return re2.Set.SearchSet(_OPTIONS)


def compile_error(pattern: str) -> str | None:
    try:
        compile_pattern(pattern)
    except re2.error as exc:
        detail = exc.args[0] if exc.args else exc
        return detail.decode("utf-8", "replace") if isinstance(detail, bytes) else str(detail)
    return None


@record_check
def pattern_and_examples(raw: RawRecord) -> Iterator[Finding]:
    pattern = get(raw.data, "error", "regex", kind=str)
    if pattern is None:
        return
    analysis = analyse(pattern)
    pos = lambda: raw.pos("/error/regex")  # noqa: E731  (positions cost a re-parse: only when there is a finding)
    if analysis.problems:
        for p in analysis.problems:
            why = "which makes a backtracking engine (the browser's) slow" if p.slow else "which RE2 and JavaScript do not share"
            yield make("RGX005", raw.path, "/error/regex", f"the pattern uses {p.construct} at position {p.pos}, {why}", pos(), hint=p.hint)
        return
    problem = compile_error(pattern)
    if problem is not None:
        yield make("RGX001", raw.path, "/error/regex", f"the pattern does not compile: {problem}", pos())
        return
    if analysis.broken:  # RE2 accepts what our scanner could not follow: refuse rather than guess
        yield make("RGX005", raw.path, "/error/regex", "the pattern could not be checked for portability", pos(), hint="simplify the pattern: plain text, escapes, classes, groups and quantifiers")
        return
    compiled = compile_pattern(pattern)
    slow = slow_input(analysis.tree, analysis.ignore_case) if analysis.tree is not None else None
    if slow is not None:
        yield make("RGX007", raw.path, "/error/regex", f"the pattern backtracks too long at position {slow.rep.pos}: {slow}", pos())
    broad = too_broad(pattern, analysis.literals)
    if broad is not None:
        yield make("RGX006", raw.path, "/error/regex", broad, pos())
    examples = [(i, get(item, "text", kind=str)) for i, item in enumerate(get(raw.data, "error", "examples", kind=list) or [])]
    if not examples and isinstance(raw.data.get("error"), dict):
        yield make("RGX004", raw.path, "/error/examples", "the record has no example messages", raw.pos("/error", key=True))
    for i, text in examples:
        if text is not None and compiled.search(text) is None:
            pointer = f"/error/examples/{i}/text"
            yield make("RGX002", raw.path, pointer, f"the pattern does not match example {i}", raw.pos(pointer))
    for i, text in strings(raw.data, "error", "counter_examples"):
        if compiled.search(text) is not None:
            pointer = f"/error/counter_examples/{i}"
            yield make("RGX003", raw.path, pointer, f"the pattern matches counter-example {i}", raw.pos(pointer))


def too_broad(pattern: str, literals: list[str]) -> str | None:
    """Why the pattern would match almost anything, or None. `literals` is its prefilter (generator.match.portable)."""
    compiled = compile_pattern(pattern)
    specific = bool(literals) and min(len(s) for s in literals) >= MIN_LITERAL
    # every match holds one of the literals: a pattern with one cannot match the empty string (not run for it)
    if not specific and compiled.search("") is not None:
        return "the pattern matches the empty string, so it matches every line"
    if not specific:
        shown = " or ".join(repr(s) for s in literals) or "none"
        return f"every match need only contain {shown}: the pattern has no fixed text of {MIN_LITERAL} or more characters"
    if "(?i" not in pattern:  # the prefilter: a line that holds none of the literals cannot match (no case folding)
        # (most literals are in no line at all: one look at the whole text says so)
        held = [s for s in literals if s in ORDINARY_TEXT]
        lines = [line for line in ORDINARY_LINES if any(s in line for s in held)] if held else []
    elif "^" in pattern or "$" in pattern or compiled.search(ORDINARY_TEXT) is not None:
        # one search over the whole corpus finds any line an unanchored pattern matches: only a hit (or an anchored
        # pattern) needs the lines one by one
        lines = ORDINARY_LINES
    else:
        lines = []
    for line in lines:
        if compiled.search(line) is not None:
            return _ordinary(line)
    return None


def text_too_broad(shape: tuple[tuple[str, ...], bool]) -> str | None:
    """`too_broad` of a pattern of a text shape (generator.match.portable.text_shape) with a text of four characters
    or more: it matches the ordinary lines it is found in."""
    if all(text in ORDINARY_TEXT for text in shape[0]):
        for line in ORDINARY_LINES:
            if shape_found(shape, line):
                return _ordinary(line)
    return None


def _ordinary(line: str) -> str:
    return f"the pattern matches ordinary text that holds no error: {line!r}"
