"""A big log scanned by two processes at once (generator.forked.shared): the matcher's answer for an in-memory input
of at least engine.PARALLEL_FROM bytes, the same as one pass's.

The input is cut into parts of about SHARE bytes, each ending at a line break; this process and a forked one each
take the next part as they come free, so a process the machine slows down takes fewer (two halves waited for the
slower one). Each process takes its parts in order and keeps what it has seen across them, so the first hit of a
pattern anywhere comes whole, as in one pass; line numbers are counted from the parts before."""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

from .. import forked
from .hits import Hit

SHARE = 4 << 20  # bytes of input a process takes at a time (at most generator.forked.MAX_SHARES parts)
WARM_TABLES = ("specificity", "anchored", "exception_names", "full_literals", "partials")  # what any scan with hits reads


def scan_shared(matcher: Any, stream: io.BytesIO, first: Callable[[], Any] | None = None) -> list[Hit]:
    """The hits of the rest of `stream`, by `matcher` (a generator.match.engine.Matcher) in two processes, in line
    order; the matcher's lines_read and bytes_read are the whole input's. `first` runs in this process before it
    takes a part (the second process takes parts meanwhile)."""
    data = stream.getvalue()[stream.tell():]
    size = max(SHARE, -(-len(data) // forked.MAX_SHARES))
    starts = [0]
    while starts[-1] < len(data):
        starts.append(data.find(b"\n", starts[-1] + size - 1) + 1 or len(data))
    seen: dict[int, bool] = {}  # one for each process, after the fork

    def part(i: int) -> tuple[list[tuple], int, int]:
        # as plain tuples: a dataclass is slow to unpickle
        hits = [(h.pattern, h.line, h.column, h.text, h.span, h.groups, h.exception_on_line, h.partial, h.requoted)
                for h in matcher.scan(_Part(data, starts[i], starts[i + 1]), repeats=True, seen=seen)]
        return hits, matcher.lines_read, matcher.bytes_read

    for name in WARM_TABLES:  # read now, once: the forked process inherits them instead of reading them again
        getattr(matcher.tables, name)
    hits: list[Hit] = []
    line = read = 0
    for found, lines, nbytes in forked.shared(len(starts) - 1, part, first):
        hits += [Hit(p, n + line, *rest) for p, n, *rest in found]
        line, read = line + lines, read + nbytes
    matcher.lines_read, matcher.bytes_read = line, read
    return hits


class _Part:
    """Bytes `start` to `end` of `data`, read as a stream (without copying them out first)."""

    def __init__(self, data: bytes, start: int, end: int):
        self.data, self.at, self.end = data, start, end

    def read(self, n: int) -> bytes:
        chunk = self.data[self.at:min(self.at + n, self.end)]
        self.at += len(chunk)
        return chunk
