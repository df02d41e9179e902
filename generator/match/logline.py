"""How the matcher reads a log line beyond its text: a JSON-object line (a structured logger's) holds the message
in a string value, escaped. The values a pattern captured are read from the decoded strings, so that
`\\"req-7\\"` in the line is `"req-7"` in the answer. The site's worker does the same (`jsonStrings` in
errdex-match-worker.js); tests/fixtures/match-conformance.json holds a case both must agree on.
"""

from __future__ import annotations

import json
from typing import Any


def json_strings(text: str) -> list[str] | None:
    """The string values of a JSON-object log line, decoded (keys in sorted order, depth first); None for any
    other line. The site's worker does the same (`jsonStrings`)."""
    t = text.lstrip()
    if not t.startswith("{"):
        return None
    try:
        doc = json.loads(t)
    except ValueError:
        return None
    out: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, str):
            out.append(v)
        elif isinstance(v, dict):
            for k in sorted(v):
                walk(v[k])
        elif isinstance(v, list):
            for x in v:
                walk(x)

    walk(doc)
    return out


def json_groups(text: str, compiled: Any) -> tuple | None:
    """On a JSON log line, the values as the message held them (`\"req-7\"` read as `"req-7"`): the groups of the
    pattern's match in the first decoded string value it matches; None elsewhere."""
    strings = json_strings(text) if text.lstrip().startswith("{") else None
    for value in strings or ():
        m = compiled.search(value)
        if m is not None:
            return m.groups()
    return None
