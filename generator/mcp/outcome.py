"""report_outcome: a prefilled issue link that reports what a record's fix did. Nothing is written or sent."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode, urlsplit

from ..bundle.knowledge import Knowledge, ToolInputError

MAX_FIX = 2000
MAX_URL = 2000
MAX_ISSUE_URL = 8000  # GitHub and browsers refuse much longer links
OUTCOMES = ("worked", "partly_worked", "did_not_work")


def report_outcome(k: Knowledge, name: Any, fix: Any, outcome: Any, url: Any = None) -> dict[str, Any]:
    """A prefilled issue link that reports what a fix did for a record; nothing is written or sent."""
    cid = k.resolve(name)
    if not isinstance(fix, str) or not fix.strip() or len(fix) > MAX_FIX:
        raise ToolInputError(f"fix must say what was tried, in 1 to {MAX_FIX} characters (a solution's text, or your own words)")
    if outcome not in OUTCOMES:
        raise ToolInputError(f"outcome must be one of {', '.join(OUTCOMES)}")
    if url is not None:
        parts = urlsplit(url) if isinstance(url, str) and len(url) <= MAX_URL else None
        if parts is None or parts.scheme not in ("http", "https") or not parts.netloc or any(c.isspace() for c in url):
            raise ToolInputError(f"url must be an http(s) link of at most {MAX_URL} characters to the evidence (an issue, a log, a PR)")
    if not k.repo_url:
        raise ToolInputError("this server knows no repository to report to (mkdocs.yml has no repo_url; start it with --repo-url)")
    doc = k.api.document(cid)
    page_link = k.api.page_url(doc["links"]["html"])
    title = f"[{cid}] outcome: {outcome.replace('_', ' ')}"

    def body_with(tried: str) -> str:
        return "\n".join([
            f"Record: {cid}",
            f"Page: {page_link}",
            f"Outcome: {outcome}",
            f"Dataset version: {k.api.dataset_version}",
            "",
            "What was tried:",
            tried,
            "",
            f"Evidence: {url}" if url else "Evidence: (none given)",
            "",
            "Reported with errdex mcp (report_outcome).",
        ])

    def link(body: str) -> str:
        return f"{k.repo_url.rstrip('/')}/issues/new?{urlencode({'title': title, 'body': body})}"

    tried = fix.strip()
    body = body_with(tried)
    shortened = False
    while len(link(body)) > MAX_ISSUE_URL and len(tried) > 40:  # hosts refuse very long URLs (Chinese text triples)
        tried, shortened = tried[: int(len(tried) * 0.8)].rstrip() + " …", True
        body = body_with(tried)
    out = {"id": cid, "issue_url": link(body), "title": title, "body": body}
    if shortened:
        out["shortened"] = "the fix text was cut to keep the link under 8000 characters; paste the rest into the issue"
    return {
        **out,
        "note": "Nothing was written or sent. Open issue_url to file the report as a public issue.",
    }
