"""RGX: the pattern compiles (in RE2, linear time) and tells examples from counter-examples."""

from __future__ import annotations

from collections.abc import Iterator
from functools import lru_cache

import re2

from ..findings import Finding, make
from ..load import RawRecord
from . import get, record_check, strings

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False


@lru_cache(maxsize=4096)
def compile_pattern(pattern: str):
    """Compile with RE2 (no backtracking, so no pattern can hang a run); raises re2.error."""
    return re2.compile(pattern, _OPTIONS)


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
    problem = compile_error(pattern)
    if problem is not None:
        yield make("RGX001", raw.path, "/error/regex", f"the pattern does not compile: {problem}", raw.pos("/error/regex"))
        return
    compiled = compile_pattern(pattern)
    examples = list(strings(raw.data, "error", "examples"))
    if not examples and isinstance(raw.data.get("error"), dict):
        yield make("RGX004", raw.path, "/error/examples", "the record has no example messages", raw.pos("/error", key=True))
    for i, text in examples:
        if compiled.search(text) is None:
            pointer = f"/error/examples/{i}"
            yield make("RGX002", raw.path, pointer, f"the pattern does not match example {i}", raw.pos(pointer))
    for i, text in strings(raw.data, "error", "counter_examples"):
        if compiled.search(text) is not None:
            pointer = f"/error/counter_examples/{i}"
            yield make("RGX003", raw.path, pointer, f"the pattern matches counter-example {i}", raw.pos(pointer))
