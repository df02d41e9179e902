"""match_log: the records and catalog entries a log or traceback holds, ranked by generator.match.engine's matcher."""

from __future__ import annotations

import io
from typing import Any

from ..bundle.answers import check_versions, drift_items, ranked_items
from ..bundle.knowledge import DEFAULT_LIMIT, Knowledge, ToolInputError, check_cursor, check_limit, paging

MAX_TEXT_BYTES = 1 << 20  # match_log reads at most this much text (a long traceback is ~50 KB)


def match_log(k: Knowledge, text: Any, versions: Any = None, limit: int = DEFAULT_LIMIT, cursor: str | None = None) -> dict[str, Any]:
    """The records and catalog entries found in `text`, best first (generator.match.engine ranks them)."""
    if not isinstance(text, str) or not text.strip():
        raise ToolInputError("text must be the log or traceback to match, as a non-empty string")
    data = text.encode("utf-8", "replace")
    if len(data) > MAX_TEXT_BYTES:
        raise ToolInputError(
            f"text is {len(data):,} bytes; match_log reads at most {MAX_TEXT_BYTES:,} (1 MiB). Send the traceback "
            "and the lines around the error, not the whole log (or run `errdex match FILE` on the whole log)"
        )
    wanted = check_versions(k, versions)
    limit, start = check_limit(limit), check_cursor(cursor)
    chunk, found, lines, size = ranked_items(k, io.BytesIO(data), wanted, shown=slice(start, start + limit))
    return {
        "lines": lines,
        "bytes": size,
        "found": found,
        "results": chunk,
        "drift": drift_items(k, text, wanted),
        **paging(found, start, len(chunk)),
        "dataset_version": k.api.dataset_version,
    }
