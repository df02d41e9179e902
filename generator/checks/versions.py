"""Version claims checked against the catalog: what a record says of a release (its `versions`, and "removed in X"
in their notes) must agree with the releases the catalog's entries for the record's message are raised in.

A record's messages in the catalog are the entries data/catalog/links.json ties to it. A version is read as
"<project> <release>" ("vLLM 0.8.5", "TGI 2.0.1"); the project is the catalog's when the catalog reader knows the
name (generator.catalog.reader.Catalog.project: its slug, package or repository), and the release is checked only
when the catalog harvested it (Project.release_index: a leading "v" either way). Then:
  - VER001: the record says the release raises the message (`status: active`), and none of its entries is raised
    there;
  - VER002: the record says the release no longer raises it (`status: fixed`, or "removed in X" / "no longer
    raised in X" in a version's notes), and one of its entries is raised there.
The catalog cannot contradict a record on a message it does not hold: when the release the record's snippet is
pinned and verified at (`source.release`) raises none of its entries, the catalog missed the message there (a
message built and returned rather than raised, say), and VER001 is not said for that record.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from ..findings import Finding, make

_VERSION = re.compile(r"^(.+?)\s+v?(\d[\w.+-]*)$")
_REMOVED = re.compile(r"\b(?:removed|dropped|no longer raised|gone)\s+(?:in|since|from|as of)\s+v?(\d+(?:\.\d+)+(?:\.post\d+)?)\b", re.I)
_ID = re.compile(r'"id":"([^"\\]+)"')


def _entries(folder: Path, wanted: set[str]) -> dict[str, dict[str, Any]]:
    """The catalog entries with these ids (each project file read once; only their lines parsed)."""
    found: dict[str, dict[str, Any]] = {}
    slugs = {w.split("/", 1)[0] for w in wanted}
    for slug in sorted(slugs):
        path = folder / f"{slug}.jsonl"
        if not path.is_file() or path.is_symlink():
            continue
        with path.open(encoding="utf-8") as lines:
            for line in lines:
                m = _ID.search(line)
                if m and m.group(1) in wanted:
                    try:
                        found[m.group(1)] = json.loads(line)
                    except ValueError:
                        continue
    return found


def _project(catalog: Any, name: Any) -> Any:
    """The catalog's project of that name (slug, package or repository, as catalog.reader.Catalog.project reads
    it), or None."""
    from ..catalog.reader import CatalogQueryError

    try:
        return catalog.project(name)
    except CatalogQueryError:
        return None


def _raised(entries: list[dict[str, Any]], project: Any, release: str) -> list[str] | None:
    """The ids of `entries` raised in `release` ([] when none is), or None when the catalog did not harvest it."""
    from ..catalog.reader import CatalogQueryError

    try:
        at = project.release_index(release)
    except CatalogQueryError:
        return None
    order = {v: i for i, v in enumerate(project.releases)}
    return [e["id"] for e in entries
            if any(a in order and b in order and order[a] <= at <= order[b] for a, b in e.get("releases") or [])]


def _misses_pinned(data: dict[str, Any], mine: list[dict[str, Any]], catalog: Any) -> set[str]:
    """The projects whose catalog lacks the record's message in the release its snippet is verified at."""
    source = data.get("source") if isinstance(data.get("source"), dict) else {}
    release = source.get("release") if isinstance(source.get("release"), dict) else {}
    version, package = release.get("version"), release.get("package")
    project = _project(catalog, package) if isinstance(package, str) else None
    if project is None or not isinstance(version, str):
        return set()
    ours = [e for e in mine if e["id"].split("/", 1)[0] == project.slug]
    return {project.slug} if ours and _raised(ours, project, version) == [] else set()


def version_findings(raws: list[Any], folder: Path) -> list[Finding]:
    """VER001 and VER002 for the records in `raws` against the catalog in `folder` (none without links.json)."""
    from ..catalog.reader import catalog_projects

    catalog = catalog_projects(folder)
    if not catalog.links:
        return []
    by_record: dict[str, list[str]] = {}
    for eid, records in catalog.links.items():
        for rid in records:
            by_record.setdefault(rid, []).append(eid)
    entries = _entries(folder, {e for ids in by_record.values() for e in ids})
    findings = []
    for raw in raws:
        rid, versions = raw.data.get("id"), raw.data.get("versions")
        if not isinstance(rid, str) or not isinstance(versions, list) or rid not in by_record:
            continue
        mine = [entries[e] for e in sorted(by_record[rid]) if e in entries]
        missed = _misses_pinned(raw.data, mine, catalog)
        for i, v in enumerate(versions):
            if not isinstance(v, dict) or not isinstance(v.get("version"), str):
                continue
            m = _VERSION.match(v["version"].strip())
            project = _project(catalog, m.group(1)) if m else None
            ours = [e for e in mine if project is not None and e["id"].split("/", 1)[0] == project.slug]
            if not ours:
                continue
            slug = project.slug
            raised = _raised(ours, project, m.group(2))
            where = f"/versions/{i}/version"
            if raised == [] and v.get("status") == "active" and slug not in missed:
                findings.append(make("VER001", raw.path, where, f"the record says {v['version']} raises it, but none of its "
                                     f"catalog messages ({', '.join(e['id'] for e in ours)}) is raised in {slug} {m.group(2)}",
                                     raw.pos(where)))
            elif raised and v.get("status") == "fixed":
                findings.append(make("VER002", raw.path, where, f"the record says {v['version']} no longer raises it, but the "
                                     f"catalog has {raised[0]} in {slug} {m.group(2)}", raw.pos(where)))
            for key in ("behavior_change", "behavior_change_zh"):
                note = v.get(key) if isinstance(v.get(key), str) else ""
                for claim in _REMOVED.finditer(note):
                    gone = _raised(ours, project, claim.group(1))
                    if gone:
                        at = f"/versions/{i}/{key}"
                        findings.append(make("VER002", raw.path, at, f"the notes say it was removed in {claim.group(1)}, but the "
                                             f"catalog has {gone[0]} in {slug} {claim.group(1)}", raw.pos(at)))
    return findings
