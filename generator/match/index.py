"""Where the matcher's patterns come from: the records themselves, or a `match.json` (the API's file, a file
or an address, or the one an installed wheel ships)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from .engine import Pattern
from .prefilter import utf8
from .rules import RULES, rules_from


def patterns_from_records(records: Iterable[Any], base: str = "/") -> list[Pattern]:
    """Patterns of checked records (generator.records.model.Record)."""
    from ..labels import page_title
    from ..routes import Links

    links = Links(base)
    return [
        Pattern(r.id, r.error.regex, r.error.message, page_title(r, "en"), links.html(r.id), r.repo, r.error.exception_class, r.superseded_by)
        for r in records
    ]


def patterns_from_index(doc: Any) -> list[Pattern]:
    """Patterns of a `match.json` document (the API's shape); entries without the needed strings are skipped."""
    from ..routes import page_url

    out = []
    entries = doc.get("patterns") if isinstance(doc, dict) else None
    for e in entries if isinstance(entries, list) else []:
        if not isinstance(e, dict) or not all(isinstance(e.get(k), str) for k in ("id", "regex", "message")):
            continue
        matched = [e["regex"], e.get("exception_class"), *(e.get("literals") if isinstance(e.get("literals"), list) else [])]
        if not all(utf8(v) for v in matched if isinstance(v, str)):  # the matcher works in UTF-8: a lone surrogate
            continue  # (which JSON allows) cannot be matched
        opt = {k: e[k] if isinstance(e.get(k), str) else None for k in ("exception_class", "superseded_by")}
        title = e["title"] if isinstance(e.get("title"), str) else f'What causes "{e["message"]}"?'
        url = e["html"] if isinstance(e.get("html"), str) else "/" + page_url("error", e["id"])
        repo = e["repo"] if isinstance(e.get("repo"), str) else ""
        lits, spec, anchored = e.get("literals"), e.get("specificity"), e.get("anchored")
        derived: dict[str, Any] = {}
        if (isinstance(lits, list) and all(isinstance(x, str) and x for x in lits) and isinstance(spec, int)
                and isinstance(anchored, bool) and isinstance(e.get("js_flags"), str)):
            derived = {"literals": tuple(lits), "ignore_case": "i" in e["js_flags"], "specificity": spec, "anchored": anchored}
        out.append(Pattern(e["id"], e["regex"], e["message"], title, url, repo, **opt, **derived))
    return out


MAX_INDEX_BYTES = 64 * 1024 * 1024


def load_index(where: str | Path) -> tuple[list[Pattern], dict[str, int], str | None]:
    """The patterns of a `match.json` (a file, or an http(s) address), its ranking rules (generator.match.rules'
    own when it has none) and the site address it names (`site_url`, in the match data a wheel ships)."""
    text = str(where)
    if text.startswith(("https://", "http://")):
        import urllib.request

        with urllib.request.urlopen(urllib.request.Request(text, headers={"User-Agent": "errdex"}), timeout=30) as resp:
            body = resp.read(MAX_INDEX_BYTES + 1)
        if len(body) > MAX_INDEX_BYTES:
            raise ValueError(f"larger than {MAX_INDEX_BYTES} bytes")
    else:
        body = Path(where).read_bytes()
    try:
        doc = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not a JSON document: {exc}") from exc
    if not isinstance(doc, dict) or not isinstance(doc.get("patterns"), list):
        raise ValueError("not a match.json document (no `patterns` list)")
    site_url = doc.get("site_url") if isinstance(doc.get("site_url"), str) else None
    return patterns_from_index(doc), rules_from(doc) or dict(RULES), site_url
