"""SRC: the pinned snippet is consistent with its line numbers."""

from __future__ import annotations

from collections.abc import Iterator

from ..findings import Finding, make
from ..records.load import RawRecord
from . import get, record_check

MAX_SNIPPET_LINES = 40


def snippet_lines(snippet: str) -> list[str]:
    """The snippet's lines; one trailing newline (as a YAML `|` block adds) is not a line of its own."""
    if snippet.endswith("\n"):
        snippet = snippet[:-1]
    return snippet.split("\n")


@record_check
def snippet_consistent(raw: RawRecord) -> Iterator[Finding]:
    source = get(raw.data, "source", kind=dict)
    if source is None:
        if isinstance(raw.data.get("error"), dict):
            yield make("SRC004", raw.path, "/source", "the record has no source block", raw.pos(""))
        return
    start, end, line = (get(source, k, kind=int) for k in ("start_line", "end_line", "line"))
    snippet = get(source, "snippet", kind=str)
    if start is not None and end is not None:
        if start > end:
            yield make("SRC002", raw.path, "/source/end_line", f"end_line {end} is before start_line {start}", raw.pos("/source/end_line"))
        elif line is not None and not start <= line <= end:
            yield make("SRC002", raw.path, "/source/line", f"line {line} is outside the snippet's lines {start}-{end}", raw.pos("/source/line"))
        elif end - start + 1 > MAX_SNIPPET_LINES:
            yield make("SRC003", raw.path, "/source/end_line", f"the snippet spans {end - start + 1} lines; at most {MAX_SNIPPET_LINES}", raw.pos("/source/end_line"))
        if snippet is not None and snippet and not snippet.endswith("\n"):
            yield make("SRC005", raw.path, "/source/snippet", "the snippet's last line has no newline: the file's line has one",
                       raw.pos("/source/snippet"))
        if snippet is not None and start <= end:
            count = len(snippet_lines(snippet))
            if count != end - start + 1:
                yield make("SRC001", raw.path, "/source/snippet", f"the snippet has {count} lines but start_line..end_line spans {end - start + 1}", raw.pos("/source/snippet"))
