"""`errdex bundle`: the compiled match data that an installed wheel matches with (generator/data/match.json).

It is the API's match.json for the checked records, plus `site_url` (from mkdocs.yml), so that `errdex match`
outside any checkout prints links that open. Build output: written before a wheel is built, never committed.
"""

from __future__ import annotations

import json
from pathlib import Path

from . import checkout
from .export import api_files
from .routes import api_path


def bundle_document(records: list, site_url: str | None) -> bytes:
    """The bytes of the bundled match data: the API's match.json with `site_url` added."""
    doc = json.loads(api_files(records)[api_path("match")])
    if site_url:
        doc["site_url"] = site_url if site_url.endswith("/") else site_url + "/"
    return (json.dumps(doc, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode("utf-8")


def write_bundle(records: list, data: Path, dest: Path = checkout.BUNDLED_MATCH) -> Path:
    """Write the bundle for `records` (read from `data`) to `dest`; returns `dest`."""
    settings = checkout.mkdocs_settings(data)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_suffix(".tmp")
    tmp.write_bytes(bundle_document(records, settings.get("site_url")))
    tmp.replace(dest)
    return dest
