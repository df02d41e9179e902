"""A pattern compiled for the matcher: RE2, or, for a pattern of a text shape (generator.match.portable.text_shape:
most of the catalog), `Shaped`, which finds with `str.find` what RE2 would. A big log meets a thousand patterns for
the first time in each process that scans it; RE2 takes about 100 us to compile one, a shape nothing.
tests/test_portable_fast.py holds shape_match to RE2.
"""

from __future__ import annotations

from typing import Any

import re2

from .portable import shape_match, text_shape

OPTIONS = re2.Options()
OPTIONS.log_errors = False
UNANCHORED = re2._Anchor.UNANCHORED  # the pinned google-re2's own matcher, for a line's bytes (first_span)


def compile_pattern(regex: str) -> Any:
    """`regex` ready to match: a `Shaped` for a text shape, else compiled with RE2 (re2.error when it does not)."""
    shape = text_shape(regex)
    return Shaped(regex, *shape) if shape is not None else re2.compile(regex, OPTIONS)


def first_span(compiled: Any, line: bytes) -> tuple[int, int]:
    """(start, end) of the first match of a compiled pattern in an ASCII line's bytes; (-1, -1) for none."""
    if type(compiled) is Shaped:
        return compiled.first(line)
    return compiled._regexp.Match(UNANCHORED, line, 0, len(line))[0]


class Shaped:
    """A pattern of a text shape, matched by shape_match with RE2's span and values. A text with a line break in
    it (a JSON value's, say) is left to RE2, compiled then."""

    def __init__(self, regex: str, texts: tuple[str, ...], tail: bool):
        self.regex, self.texts, self.tail, self._re2 = regex, texts, tail, None
        self.encoded = tuple(t.encode("utf-8") for t in texts)

    def first(self, line: bytes) -> tuple[int, int]:
        if b"\n" in line:
            return first_span(self._compiled(), line)
        found = shape_match(self.encoded, self.tail, line)
        return (-1, -1) if found is None else (found[0], found[1])

    def search(self, text: str) -> Any:
        """The match in `text` (what the matcher reads of it: span, start, groups), or None."""
        if "\n" in text:
            return self._compiled().search(text)
        found = shape_match(self.texts, self.tail, text)
        return None if found is None else ShapeMatch(*found)

    def _compiled(self) -> Any:
        if self._re2 is None:
            self._re2 = re2.compile(self.regex, OPTIONS)
        return self._re2


class ShapeMatch:
    """A shape's match: its span, start and values, as an RE2 match gives them."""

    __slots__ = ("_span", "_groups")

    def __init__(self, start: int, end: int, groups: tuple[str, ...]):
        self._span, self._groups = (start, end), groups

    def span(self) -> tuple[int, int]:
        return self._span

    def start(self) -> int:
        return self._span[0]

    def groups(self) -> tuple[str, ...]:
        return self._groups
