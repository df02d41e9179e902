"""CAT: the catalog's files beside its lines, and the characters of all of them.

- `releases.json`, `projects.yaml` and `links.json` are read as strictly as records (no symbolic link, strict
  UTF-8, no duplicate key; projects.yaml with the records' YAML loader: no tags, anchors or aliases) and checked
  against their schemas (generator/checks/catalogschema.py): CAT001 when a file does not parse, CAT002 for each
  value refused, with its line and JSON pointer.
- Every key and string of every catalog file is checked for the two classes of generator/chars.py (unsafe and
  hidden characters), before the schema: CAT002, naming the code point.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import yaml

from .. import chars
from ..findings import Finding, make
from ..records.load import RawRecord, load_file, pointer_escape
from .catalogschema import validator

RELEASES, PROJECTS, LINKS = "releases.json", "projects.yaml", "links.json"
# An escape other than \t, \n, \" and \\: a backslash that starts an escape (an odd one in its run) before any
# other character. The second backslash of an escaped pair (`\\.` in a pattern) starts none.
_ESCAPES = re.compile(r"(?<!\\)(?:\\\\)*\\[^tn\"\\]")
_LONE_ESCAPE = re.compile(r"\\[^tn\"]")
MAX_FILE_BYTES = 16 << 20  # releases.json, links.json: far above any real one
HINTS = {RELEASES: "make releases.json match schema/catalog-releases.schema.json (the message names the field); `errdex harvest` writes it",
         PROJECTS: "make projects.yaml match schema/catalog-projects.schema.json (the message names the field)",
         LINKS: "make links.json match schema/catalog-links.schema.json; `errdex stats --links` writes it"}
SCHEMA_OF = {RELEASES: "catalog-releases.schema.json", PROJECTS: "catalog-projects.schema.json", LINKS: "catalog-links.schema.json"}


def bad_characters(value: Any) -> Iterator[tuple[str, str]]:
    """(JSON pointer, what is wrong) for each key and string under `value` that holds an unsafe or a hidden
    character (generator/chars.py), naming the first one. Iterative: a deeply nested value costs no stack."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, pointer = stack.pop()
        if isinstance(item, str):
            found = chars.first_unsafe(item) or chars.HIDDEN.search(item)
            if found:
                yield pointer, f"{chars.describe(found.group())} at character {found.start() + 1}"
        elif isinstance(item, dict):
            for key, child in reversed(list(item.items())):
                where = f"{pointer}/{pointer_escape(str(key))}"
                stack.append((child, where))
                stack.append((key, where))
        elif isinstance(item, list):
            stack.extend((child, f"{pointer}/{i}") for i, child in reversed(list(enumerate(item))))


def text_findings(path: str, data: Any, where: Any, hint: str | None = None) -> list[Finding]:
    """CAT002 for every unsafe or hidden character in `data`; `where(pointer)` gives the (line, column)."""
    return [make("CAT002", path, pointer, f"{pointer or '/'}: {problem}: catalog text holds no control, invisible or "
                 "direction-changing character", where(pointer), hint) for pointer, problem in bad_characters(data)]


def plain_json(text: str) -> bool:
    """Whether no string decoded from this JSON text can hold an unsafe or hidden character: none is in the text
    and no escape but \\t, \\n, \\" and \\\\ (a quick test that spares most catalog lines the walk)."""
    if text.isascii() and text.replace("\t", "").replace("\n", "").isprintable():
        return not _escapes(text)  # printable ASCII holds no unsafe and no hidden character: one search, not three
    return not (chars.first_unsafe(text) or chars.HIDDEN.search(text) or _escapes(text))


def _escapes(text: str) -> bool:
    """Whether the JSON text holds an escape other than \\t, \\n, \\" and \\\\ (what _ESCAPES finds, at a
    fraction of the cost: the escaped backslashes taken out first, left to right as JSON reads them)."""
    if "\\" not in text:
        return False
    return _LONE_ESCAPE.search(text.replace("\\\\", "")) is not None


def schema_findings(name: str, path: str, data: Any, where: Any, hint: str | None = None, plain: bool = False) -> list[Finding]:
    """CAT002 for every value schema `name` refuses (first the characters: the validator takes no surrogate);
    `plain`: the text `data` was read from passed `plain_json`."""
    found = [] if plain else text_findings(path, data, where, hint)
    if found:
        return found
    if validator(name).is_valid(data):
        return []
    out = []
    for error in validator(name).iter_errors(data):
        pointer = "".join(f"/{pointer_escape(str(p))}" for p in error.instance_path)
        out.append(make("CAT002", path, pointer, f"{pointer or '/'}: {error.message}", where(pointer), hint))
    return out


def read_bytes(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """A catalog file's bytes, never through a symbolic link (OSError then), at most `limit` + 1 of them."""
    with os.fdopen(os.open(path, os.O_RDONLY | os.O_NOFOLLOW), "rb") as handle:
        return handle.read(limit + 1)


def _json_file(folder: Path, name: str) -> tuple[Any, RawRecord | None, list[Finding]]:
    """(data, positions, findings) of a JSON part; data is None when it does not parse."""
    path = folder / name
    shown = str(path)

    def refuse(reason: str) -> tuple[None, None, list[Finding]]:
        return None, None, [make("CAT001", shown, "", f"{name} {reason}", hint=HINTS[name])]

    try:
        raw = read_bytes(path)
    except OSError as exc:
        return refuse(f"cannot be read (a symbolic link is not read): {exc.strerror or exc}")
    if len(raw) > MAX_FILE_BYTES:
        return refuse(f"is larger than {MAX_FILE_BYTES >> 20} MiB")
    try:
        text = raw.decode("utf-8")
        data = json.loads(text, object_pairs_hook=_no_duplicates)
    except UnicodeDecodeError as exc:
        return refuse(f"is not UTF-8 (byte {exc.start})")
    except (ValueError, RecursionError) as exc:
        return refuse(f"is not JSON: {exc}")
    return data, RawRecord(shown, data if isinstance(data, dict) else {}, text), []


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise ValueError(f"duplicate key {next(k for k in keys if keys.count(k) > 1)!r}")
    return dict(pairs)


def position(raw: RawRecord | None):
    """`pointer -> (line, column)` in a parsed part (JSON read as the YAML it also is); (1, 1) when unknown."""
    def where(pointer: str) -> tuple[int, int]:
        try:
            return raw.pos(pointer) if raw is not None else (1, 1)
        except (yaml.YAMLError, RecursionError):
            return (1, 1)
    return where


def present(path: Path) -> bool:
    """Whether a part is there (a symbolic link is, and is refused when read)."""
    return path.exists() or path.is_symlink()


def check_releases(folder: Path) -> tuple[dict[str, list[str]] | None, list[Finding], Callable[[str], tuple[int, int]]]:
    """releases.json's release order per project (None when the file is missing or does not parse), its findings
    and where a pointer stands in it. Rows the schema refuses still give their versions, so that the lines are
    checked against them."""
    if not present(folder / RELEASES):
        return None, [], position(None)
    data, raw, findings = _json_file(folder, RELEASES)
    if findings:
        return None, findings, position(None)
    findings = schema_findings(SCHEMA_OF[RELEASES], str(folder / RELEASES), data, position(raw), HINTS[RELEASES])
    order: dict[str, list[str]] = {}
    for slug, rows in data.items() if isinstance(data, dict) else ():
        versions = [r["version"] for r in rows if isinstance(r, dict) and isinstance(r.get("version"), str)] if isinstance(rows, list) else []
        order[slug] = versions
        for i, version in enumerate(versions):
            if version in versions[:i]:
                findings.append(make("CAT002", str(folder / RELEASES), f"/{pointer_escape(slug)}", f"{slug}: release {version!r} is listed twice",
                                     position(raw)(f"/{pointer_escape(slug)}"), HINTS[RELEASES]))
    return order, findings, position(raw)


def check_projects(folder: Path) -> tuple[set[str] | None, list[Finding]]:
    """The project slugs projects.yaml configures (None when it is missing or does not parse) and its findings."""
    path = folder / PROJECTS
    if not present(path):
        return None, []
    raw, findings = load_file(path)
    if raw is None:
        return None, findings
    findings = schema_findings(SCHEMA_OF[PROJECTS], raw.path, raw.data, position(raw), HINTS[PROJECTS])
    projects = raw.data.get("projects")
    if not findings:  # a shared table named by a project must exist (what the schema cannot say)
        sets = (raw.data.get("defaults") or {}).get("c_call_sets") or {}
        where = position(raw)
        for slug, data in sorted(projects.items()):
            name = data.get("c_calls")
            if isinstance(name, str) and name not in sets:
                pointer = f"/projects/{slug}/c_calls"
                findings.append(make("CAT002", raw.path, pointer, f"{pointer}: no table {name!r} in defaults.c_call_sets", where(pointer),
                                     hint="name a table of defaults.c_call_sets, or list the calls here"))
    return (set(projects) if isinstance(projects, dict) else set()), findings


def check_links(folder: Path) -> list[Finding]:
    """links.json's findings (the file is optional: no file, no links)."""
    if not present(folder / LINKS):
        return []
    data, raw, findings = _json_file(folder, LINKS)
    return findings or schema_findings(SCHEMA_OF[LINKS], str(folder / LINKS), data, position(raw), HINTS[LINKS])
