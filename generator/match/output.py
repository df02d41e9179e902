"""A match in words and as data: the reasons of a score, a result as JSON, `errdex match`'s text and JSON output.

generator.match.engine finds and ranks; this module only says what it found (for the CLI and the MCP server).
"""

from __future__ import annotations

import unicodedata
from typing import Any

from .hits import Result
from ..terminal import json_text, shown


def explain(reason: list[Any]) -> str:
    """One reason of a score in words: `["specificity", n]`, `["exception", class, bonus]`, `["anchored", bonus]`,
    `["repeated", occurrences, bonus]`, `["retired", successor, penalty]` or `["same_line", rank]`."""
    kind, *args = reason
    if kind == "specificity":
        return f"specificity {args[0]}: the pattern spells out {args[0]} literal characters"
    if kind == "exception":
        return f"+{args[1]}: the exception class {args[0]} is on the line"
    if kind == "anchored":
        return f"+{args[0]}: the pattern is anchored (^ or $)"
    if kind == "repeated":
        return f"+{args[1]}: found {args[0]} times"
    if kind == "retired":
        return f"-{args[1]}: retired in favour of {args[0]}"
    if kind == "requoted":
        return "found with the line's typographic quotes, escaped quotes and backticks read as plain quotes"
    if kind == "partial":
        return f"partial match {args[0]}: the line holds {args[0]} characters of the message's fixed text and stops"
    return f"on the same line as #{args[0]}, which is more specific"


def reasons(r: Result) -> list[str]:
    """A result's `why` in words."""
    return [explain(w) for w in r.why]


def result_json(rank: int, r: Result) -> dict[str, Any]:
    h = r.first
    return {
        "rank": rank,
        "id": r.pattern.id,
        "title": r.pattern.title,
        "url": r.pattern.url,
        "line": h.line,
        "column": h.column,
        "text": h.text,
        "span": list(h.span),
        "match": h.text[h.span[0]:h.span[1]],
        "values": list(h.groups),
        "message": r.filled_message,
        "occurrences": r.occurrences,
        "lines": r.lines,
        "score": r.score,
        "why": reasons(r),
        "reasons": r.why,
        **({"superseded_by": r.pattern.superseded_by} if r.pattern.superseded_by else {}),
        **({"partial": h.partial} if h.partial else {}),
        **({"requoted": True} if h.requoted else {}),
    }


def format_json(results: list[Result], top: int, source: str, lines: int, size: int) -> str:
    body = {
        "source": source,
        "lines": lines,
        "bytes": size,
        "found": len(results),
        "results": [result_json(i, r) for i, r in enumerate(results[:top], 1)],
    }
    return json_text(body)


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def hit_lines(item: dict[str, Any]) -> list[str]:
    """Where a result (`result_json`'s shape) is in the log: the line with the match underlined, the values it
    holds and the message they fill in, and the other lines it is on. Every text goes through `shown`."""
    text, (s, e) = item["text"], item["span"]
    where = f"line {item['line']}, col {item['column']}"
    out = [f"   {where}: {shown(text)}",
           "   " + " " * (_width(where) + 2 + _width(shown(text[:s]))) + "^" * max(1, _width(shown(text[s:e])))]
    values = [v for v in item["values"] if v is not None]
    if values:
        out.append(f"   values: {', '.join(shown(v) for v in values)}")
        out.append(f"   message: {shown(item['message'])}")
    if item["occurrences"] > 1:
        lines = ", ".join(map(str, item["lines"][:10])) + (", ..." if item["occurrences"] > 10 else "")
        out.append(f"   found {item['occurrences']} times, on lines {lines}")
    return out


def format_text(results: list[Result], top: int, source: str, lines: int, size: int) -> str:
    """Every text from the data (the pattern file's or the records', the log's, the file name) goes through
    `shown`: no control or direction character reaches the terminal, and none can forge a line."""
    out = []
    for i, r in enumerate(results[:top], 1):
        out.append(f"{i}. {shown(r.pattern.id)}  (score {r.score})")
        out.append(f"   {shown(r.pattern.title)}")
        out += hit_lines(result_json(i, r))
        out.append(f"   page: {shown(r.pattern.url)}")
        out.append(f"   why: {shown('; '.join(reasons(r)))}")
        out.append("")
    more = f" (showing {top})" if len(results) > top else ""
    source = shown(source)
    read = f"{lines} line{'s' if lines != 1 else ''}, {size} byte{'s' if size != 1 else ''}"
    if results:
        out.append(f"{len(results)} known error{'s' if len(results) != 1 else ''} found in {source}{more}: {read}")
    else:
        out.append(f"no known error found in {source}: {read}")
    return "\n".join(out) + "\n"


FORMATS = {"text": format_text, "json": format_json}
