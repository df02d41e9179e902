"""CAT011-CAT012: the symbol index (data/catalog/symbols/<project>.jsonl), checked as the catalog is, before anything
reads it. Each line is bounded, UTF-8, JSON with only plain characters, valid against
schema/catalog-symbols.schema.json and written canonically (the header first, modules in order, then registries)
(CAT011); the file belongs to a configured project whose releases.json releases its header lists, and every range
stays within them (CAT012)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

from ..cachedir import cached_findings
from ..catalog.reader import SLUG
from ..findings import Finding, make
from ..jsonline import canonical
from ..records.load import pointer_escape
from .catalog import schema_lines

SCHEMA = "catalog-symbols.schema.json"
FOLDER = "symbols"


def check_symbols(folder: Path, releases: dict[str, list[str]] | None, configured: set[str] | None) -> list[Finding]:
    """Findings for every file of `folder`/symbols (none when there is no such folder)."""
    root = folder / FOLDER
    if not root.is_dir() or root.is_symlink():
        return [make("CAT011", str(root), "", "symbols is not a folder (a symbolic link is not read)")] if root.is_symlink() else []
    out: list[Finding] = []
    for path in sorted(root.iterdir()):
        slug = path.name[: -len(".jsonl")] if path.name.endswith(".jsonl") else ""
        if path.is_symlink() or not path.is_file() or not SLUG.fullmatch(slug):
            out.append(make("CAT011", str(path), "", f"{path.name} is not a symbol index (a regular file named <project>.jsonl); nothing in it is read"))
            continue
        if configured is not None and slug not in configured:
            out.append(make("CAT012", str(path), "", f"{slug}: projects.yaml does not configure this project"))
        order = (releases or {}).get(slug)
        out += cached_findings("symbols-lines", path, json.dumps(order), lambda p=path, o=order: check_symbols_file(p, o))
    return out


def check_symbols_file(path: Path, releases: list[str] | None) -> Iterator[Finding]:
    slug = path.name[: -len(".jsonl")]
    count = None
    previous: tuple | None = None
    seen: dict[str, bool] = {}  # each ranges string's verdict
    for n, line, data, refused in schema_lines(path, SCHEMA):
        where = (n, 1)
        if data is None:
            yield make("CAT011", str(path), "", refused, where)
            continue
        if refused:
            for finding in refused[:3]:
                yield make("CAT011", str(path), finding.pointer, finding.message, where)
            continue
        if canonical(data) + "\n" != line:
            yield make("CAT011", str(path), "", f"line {n} is not compact JSON with sorted keys (and an LF)", where)
        if n == 1:
            if "format" not in data:
                yield make("CAT011", str(path), "", "the first line must be the header (format, packages, pip, project, releases)", where)
                return
            if data["project"] != slug:
                yield make("CAT012", str(path), "/project", f"the header names {data['project']!r}, the file {slug!r}", where)
            if releases is not None and data["releases"] != releases:
                yield make("CAT012", str(path), "/releases", f"{slug}: the header's releases are not releases.json's ({len(data['releases'])} "
                           f"listed, {len(releases)} there)", where)
            count = len(data["releases"])
            continue
        if "format" in data:
            yield make("CAT011", str(path), "", f"line {n}: a second header", where)
            continue
        key = (0, data["module"]) if "module" in data else (1, data["registry"])
        if previous is not None and key <= previous:
            yield make("CAT011", str(path), "", f"line {n}: modules must come in order, then registries in order, each once", where)
        previous = key
        if count is not None and not _all_good(line, count, seen):
            bad = _beyond(data, count, seen)
            if bad:
                yield make("CAT012", str(path), bad, f"line {n}: {bad}: a range runs past the header's {count} releases, or backwards", where)


def _beyond(node, count: int, seen: dict[str, bool]) -> str | None:
    """The JSON pointer of the first ranges string that names a release index >= count or runs backwards."""
    path = _bad_path(node, count, seen)
    return None if path is None else "/" + "/".join(pointer_escape(k) for k in reversed(path))


def _bad_path(node, count: int, seen: dict[str, bool]) -> list[str] | None:
    """The keys down to the first bad ranges string, innermost first ([] for `node` itself); None when all are good.
    `seen` remembers each string's verdict (an index repeats a few strings, "" and "0-135", thousands of times)."""
    if isinstance(node, str):
        return None if _judged(node, count, seen) else []
    if isinstance(node, dict):
        for k, v in node.items():
            if k in ("module", "registry"):
                continue
            found = _bad_path(v, count, seen)
            if found is not None:
                found.append(k)
                return found
    return None


# Every string of a JSON line that could be a ranges string, and more: a key or a string's escaped tail may be taken
# too, but a value never slips by (a value's opening quote follows a colon, which no match ends on).
_RANGES_LIKE = re.compile(r'"([0-9,-]*)"')


def _all_good(line: str, count: int, seen: dict[str, bool]) -> bool:
    """True when every string of a schema-checked line that could be a ranges string is a good one (an object of
    thousands of names holds a few distinct strings: no walk of it); False when one is not, for _bad_path to say
    where (or that it was a key)."""
    for text in set(_RANGES_LIKE.findall(line)):
        try:
            if not _judged(text, count, seen):
                return False
        except ValueError:  # no ranges string ("-", ","): a key, which the schema allows no value to be
            return False
    return True


def _judged(text: str, count: int, seen: dict[str, bool]) -> bool:
    """Whether `text` is a good ranges string (ValueError when it is none), its verdict remembered in `seen`."""
    good = seen.get(text)
    if good is None:
        good = seen[text] = _good_ranges(text, count)
    return good


def _good_ranges(text: str, count: int) -> bool:
    for run in filter(None, text.split(",")):
        first, _, last = run.partition("-")
        a, b = int(first), int(last or first)
        if b < a or b >= count:
            return False
    return True
