"""A release's error sites: each harvested file's sites, extracted by its language's extractor once per file
content (cached under `<cache>/sites/<EXTRACTOR_VERSION>/`), and the files skipped with why.

Upstream files are hostile input, and one costs only itself: a file at a path the catalog's schema refuses, or
that the extractor cannot read (whatever it raises), is skipped with its reason (`Skipped`)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import lru_cache

from .. import chars
from ..cachedir import write_atomic
from ..checks.catalog import CATALOG_SCHEMA_PATH
from .config import Project
from .extract_go import extract_go
from .extract_python import python_sites
from .extract_tree_sitter import extract_c, extract_rust, parser_for
from .fetch import Cache
from .sites import Site

EXTRACTOR_VERSION = "3"  # bump when extraction changes: cached results of older extractors are not reused
MAX_REASON = 300  # characters of a skipped file's reason


class Unreadable(Exception):
    """A file whose sites cannot be extracted; the message says why."""


@dataclass(frozen=True)
class Skipped:
    """A file of a release that is not harvested, and why."""

    path: str
    reason: str


def _why(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    return text if len(text) <= MAX_REASON else text[: MAX_REASON - 1] + "…"


def extract(source: bytes, lang: str, project: Project) -> list[Site]:
    """The sites of one file's content, in the file's language; raises when the file cannot be read."""
    if lang == "python":
        return python_sites(source)
    if lang == "rust":
        return extract_rust(source)
    if lang == "go":
        return extract_go(source)
    return extract_c(source, lang, project.c_calls)


def sites_of_file(cache: Cache, project: Project, path: str, sha: str) -> list[Site]:
    """The sites in one file, parsed once per content (and extractor and call table). Unreadable when the file
    cannot be parsed or walked, or its sites cannot be written as UTF-8 (a lone surrogate in a literal)."""
    lang = project.language_of(path)
    if lang is None:
        return []
    flavour = lang
    if lang in ("c", "cpp"):
        calls = json.dumps({k: vars(v) for k, v in sorted(project.c_calls.items())}, sort_keys=True)
        flavour += "-" + hashlib.sha256(calls.encode()).hexdigest()[:12]
    store = cache.root / "sites" / EXTRACTOR_VERSION / flavour / sha[:2] / f"{sha}.json"
    if store.is_file():
        return [Site.from_json(d) for d in json.loads(store.read_text(encoding="utf-8"))]
    source = cache.get_blob(sha)
    if lang != "python":
        parser_for(lang)  # a grammar that is missing is this machine's fault, not the file's: it stops the harvest
    try:
        sites = extract(source, lang, project)
        data = json.dumps([s.to_json() for s in sites], ensure_ascii=False).encode("utf-8")
    except Exception as exc:  # whatever a hostile file makes the extractor raise costs that file only
        raise Unreadable(_why(exc)) from exc
    write_atomic(store, data)
    return sites


@lru_cache(maxsize=1)
def _entry_schema():
    import jsonschema_rs

    return jsonschema_rs.validator_for(json.loads(CATALOG_SCHEMA_PATH.read_text(encoding="utf-8")))


@lru_cache(maxsize=1 << 16)
def path_refused(path: str) -> str | None:
    """Why the catalog would refuse `path` as a site's path, or None: its characters, then its schema's rule
    (whatever that comes to be), so that a file is skipped whole rather than its entries dropped one by one."""
    found = chars.first_unsafe(path) or chars.HIDDEN.search(path)
    if found:
        return f"its path holds {chars.describe(found.group())}"
    errors = _entry_schema().iter_errors({"sites": [{"path": path}]})
    if any(list(error.instance_path) == ["sites", 0, "path"] for error in errors):
        return "the catalog's schema refuses its path"
    return None


def release_sites(cache: Cache, project: Project, manifest: dict) -> tuple[list[tuple[str, Site]], list[Skipped]]:
    """(path, site) for every error site of one release, in path order; and the files skipped, with why."""
    found: list[tuple[str, Site]] = []
    skipped: list[Skipped] = []
    for path, sha in sorted(manifest["files"].items()):
        if project.language_of(path) is None:
            continue
        why = path_refused(path)
        if why is None:
            try:
                found.extend((path, site) for site in sites_of_file(cache, project, path, sha))
                continue
            except Unreadable as exc:
                why = str(exc)
        skipped.append(Skipped(path, why))
    return found, skipped
