"""`errdex harvest-merge`: the parts of a harvest run one project a job (the weekly workflow's matrix) put back
into one catalog.

A part is a folder holding what one job's `errdex harvest PROJECT --new` and `errdex symbols PROJECT --new` wrote:
`<project>.jsonl`, `symbols/<project>.jsonl` (when the project has an index), and the job's `releases.json` and
`projects.yaml`. Those two files are shared by every project, so a part's copy is read only for its own project:
its releases.json rows replace the project's, and the releases its projects.yaml lists after the catalog's are
appended to the project's `releases:` line as the harvest itself appends them (every other line of projects.yaml
stays byte for byte). Merging the parts of a matrix gives the catalog one `errdex harvest --new` over all the
projects gives, file for file. A part is untrusted data (an artifact): a project the catalog does not configure, a
part that holds more than one project or whose releases do not continue the catalog's, is refused with why, and
nothing is written.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from .catalog import catalog_path, read_releases, write_releases
from .config import CATALOG_ROOT, CONFIG_PATH, parse_config
from .run import add_releases_to_config
from .symbols import symbols_path
from ..yamlout import YAMLError, safe_load


class MergeError(Exception):
    """A part that cannot be merged: nothing was written."""


@dataclass
class Part:
    slug: str
    folder: Path
    rows: list[dict]  # its releases.json rows for its project
    added: list[str]  # the releases its projects.yaml lists after the catalog's


def read_part(folder: Path, configured: dict[str, list[str]]) -> Part:
    """One job's part, checked against the catalog's configuration (project -> its releases in projects.yaml)."""
    names = sorted(p.name[: -len(".jsonl")] for p in folder.glob("*.jsonl"))
    if len(names) != 1:
        raise MergeError(f"{folder}: a part holds one project's <project>.jsonl, not {len(names)} ({', '.join(names) or 'none'})")
    slug = names[0]
    for name in (f"{slug}.jsonl", "releases.json", "projects.yaml", f"symbols/{slug}.jsonl"):
        if (folder / name).is_symlink():
            raise MergeError(f"{folder}: {name} is a symbolic link, not a file")
    if slug not in configured:
        raise MergeError(f"{folder}: {slug!r} is not a project of the catalog's projects.yaml")
    try:
        theirs = parse_config(safe_load((folder / "projects.yaml").read_text(encoding="utf-8")))
        rows = json.loads((folder / "releases.json").read_text(encoding="utf-8")).get(slug, [])
    except (OSError, ValueError, YAMLError, AttributeError) as exc:
        raise MergeError(f"{folder}: its projects.yaml and releases.json cannot be read: {exc}") from exc
    if slug not in theirs:
        raise MergeError(f"{folder}: its projects.yaml has no project {slug!r}")
    ours, listed = configured[slug], theirs[slug].releases
    if listed[: len(ours)] != ours:
        raise MergeError(f"{folder}: {slug}'s releases in its projects.yaml do not continue the catalog's")
    if not isinstance(rows, list) or [r.get("version") if isinstance(r, dict) else None for r in rows] != listed:
        raise MergeError(f"{folder}: {slug}'s rows in its releases.json are not the releases its projects.yaml lists")
    return Part(slug, folder, rows, listed[len(ours):])


def merge_parts(folders: list[Path], root: Path = CATALOG_ROOT, config_path: Path = CONFIG_PATH) -> list[Part]:
    """Merge every part into the catalog at `root` (all checked first: a part refused writes nothing)."""
    text = config_path.read_text(encoding="utf-8")
    configured = {slug: p.releases for slug, p in parse_config(safe_load(text)).items()}
    parts = [read_part(folder, configured) for folder in folders]
    seen: set[str] = set()
    for part in parts:
        if part.slug in seen:
            raise MergeError(f"{part.folder}: a second part of {part.slug}")
        seen.add(part.slug)
    rows = read_releases(root)
    for part in parts:
        shutil.copyfile(part.folder / f"{part.slug}.jsonl", catalog_path(part.slug, root))
        index = part.folder / "symbols" / f"{part.slug}.jsonl"
        if index.is_file():
            shutil.copyfile(index, symbols_path(part.slug, root))
        rows[part.slug] = part.rows
        if part.added:
            text = add_releases_to_config(text, part.slug, part.added)
    write_releases(rows, root)
    config_path.write_text(text, encoding="utf-8")
    return parts
