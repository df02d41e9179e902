"""The tools of `errdex mcp`, as plain functions from the loaded data and the caller's arguments to small,
JSON-ready results. Nothing here knows about the MCP SDK (server.py wires these up).

- knowledge.py  what they answer from (Knowledge), the argument checks and paging they share
- matching.py   match_log
- records.py    get_error, search
- releases.py   explain_site, diff_errors, list_projects
- outcome.py    report_outcome

Results are sized for an agent's context: lists come a page at a time (`limit`, then the `next_cursor` a result
gives, passed back as `cursor`), and long texts are cut.
"""

from ..bundle.knowledge import DEFAULT_LIMIT, MAX_LIMIT, Knowledge, ToolInputError
from .matching import MAX_TEXT_BYTES, match_log
from .outcome import MAX_FIX, report_outcome
from .records import MAX_QUERY, get_error, search, summary_text
from .releases import diff_errors, explain_site, list_projects

__all__ = [
    "DEFAULT_LIMIT", "MAX_FIX", "MAX_LIMIT", "MAX_QUERY", "MAX_TEXT_BYTES", "Knowledge", "ToolInputError",
    "diff_errors", "explain_site", "get_error", "list_projects", "match_log", "report_outcome", "search", "summary_text",
]
