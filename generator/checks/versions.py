"""Version claims checked against the catalog: what a record says of a release (its `versions`, and "removed in X"
in their notes) must agree with the releases the catalog's entries for the record's message are raised in.

A record's messages in the catalog are the entries data/catalog/links.json ties to it. A version is read as
"<project> <release>" ("vLLM 0.8.5", "TGI 2.0.1"); the project is the catalog's when its name is the project's
slug, package or repository name (letters and digits compared, case aside), and the release is checked only when
the catalog harvested it (a leading "v" either way). Then:
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


def _key(name: str) -> str:
    return re.sub(r"[^a-z0-9]", "", name.lower())


def _projects(folder: Path) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(a project's names -> its slug, slug -> its releases oldest first), from projects.yaml and releases.json."""
    import yaml

    try:
        config = yaml.safe_load((folder / "projects.yaml").read_text(encoding="utf-8")) or {}
        releases = json.loads((folder / "releases.json").read_text(encoding="utf-8"))
    except (OSError, ValueError, yaml.YAMLError):
        return {}, {}
    projects = config.get("projects") if isinstance(config, dict) and isinstance(config.get("projects"), dict) else {}
    names: dict[str, str] = {}
    for slug, info in projects.items():
        info = info if isinstance(info, dict) else {}
        for name in (slug, info.get("package"), str(info.get("repo") or "").rsplit("/", 1)[-1]):
            if isinstance(name, str) and name:
                names.setdefault(_key(name), slug)
    order = {slug: [r["version"] for r in rows if isinstance(r, dict) and isinstance(r.get("version"), str)]
             for slug, rows in (releases.items() if isinstance(releases, dict) else ()) if isinstance(rows, list)}
    return names, order


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


def _raised(entries: list[dict[str, Any]], order: list[str], release: str) -> list[str] | None:
    """The ids of `entries` raised in `release` ([] when none is), or None when the catalog did not harvest it."""
    other = release[1:] if release[:1] in "vV" else "v" + release
    name = release if release in order else other if other in order else None
    if name is None:
        return None
    at = order.index(name)
    out = []
    for e in entries:
        for a, b in e.get("releases") or []:
            if a in order and b in order and order.index(a) <= at <= order.index(b):
                out.append(e["id"])
                break
    return out


def _misses_pinned(data: dict[str, Any], mine: list[dict[str, Any]], names: dict[str, str], order: dict[str, list[str]]) -> set[str]:
    """The projects whose catalog lacks the record's message in the release its snippet is verified at."""
    source = data.get("source") if isinstance(data.get("source"), dict) else {}
    release = source.get("release") if isinstance(source.get("release"), dict) else {}
    version, package = release.get("version"), release.get("package")
    slug = names.get(_key(package)) if isinstance(package, str) else None
    if slug is None or not isinstance(version, str):
        return set()
    ours = [e for e in mine if e["id"].split("/", 1)[0] == slug]
    return {slug} if ours and _raised(ours, order.get(slug, []), version) == [] else set()


def version_findings(raws: list[Any], folder: Path) -> list[Finding]:
    """VER001 and VER002 for the records in `raws` against the catalog in `folder` (none without links.json)."""
    from ..catalog.reader import read_links

    links = read_links(folder)
    if not links:
        return []
    by_record: dict[str, list[str]] = {}
    for eid, records in links.items():
        for rid in records:
            by_record.setdefault(rid, []).append(eid)
    names, order = _projects(folder)
    entries = _entries(folder, {e for ids in by_record.values() for e in ids})
    findings = []
    for raw in raws:
        rid, versions = raw.data.get("id"), raw.data.get("versions")
        if not isinstance(rid, str) or not isinstance(versions, list) or rid not in by_record:
            continue
        mine = [entries[e] for e in sorted(by_record[rid]) if e in entries]
        missed = _misses_pinned(raw.data, mine, names, order)
        for i, v in enumerate(versions):
            if not isinstance(v, dict) or not isinstance(v.get("version"), str):
                continue
            m = _VERSION.match(v["version"].strip())
            slug = names.get(_key(m.group(1))) if m else None
            ours = [e for e in mine if e["id"].split("/", 1)[0] == slug]
            if not m or not ours:
                continue
            raised = _raised(ours, order.get(slug, []), m.group(2))
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
                    gone = _raised(ours, order.get(slug, []), claim.group(1))
                    if gone:
                        at = f"/versions/{i}/{key}"
                        findings.append(make("VER002", raw.path, at, f"the notes say it was removed in {claim.group(1)}, but the "
                                             f"catalog has {gone[0]} in {slug} {claim.group(1)}", raw.pos(at)))
    return findings
