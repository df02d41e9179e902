"""A record's answer card: what every surface shows of a match first (the paste page and search through
match.json, `errdex match` and the MCP server through the knowledge bundle). Plain data in, plain data out: reading
the bundle stays free of the record model."""

from __future__ import annotations

from typing import Any


def card(doc: dict[str, Any], title: str, title_zh: str) -> dict[str, Any]:
    """A record's answer card, from its API document (`record_document`'s shape): what every surface shows of a
    match first (the paste page, search, `errdex match`, the MCP server): its title in both languages, the project
    and exception, the releases it was checked at with their status, and the best fix (chosen by counted
    reports, generator.records.evidence.best_fix) with its text in both languages, its count and its commands."""
    record, best = doc["record"], doc.get("best_fix")
    out: dict[str, Any] = {"title": title, "title_zh": title_zh, "project": record["id"].split("/", 1)[0],
                           "releases": [[v["version"], v.get("status")] for v in record.get("versions") or []][:4]}
    exception = (record.get("error") or {}).get("exception_class")
    if exception:
        out["exception"] = exception
    if isinstance(best, dict):
        i = int(best["fix"].rsplit("/", 1)[1])
        fix = {"text": record["solutions"][i], **{k: best[k] for k in ("worked", "failed", "partial", "reports", "commands") if k in best}}
        if record.get("solutions_zh"):
            fix["text_zh"] = record["solutions_zh"][i]
        out["fix"] = fix
    return out
