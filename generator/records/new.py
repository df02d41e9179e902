"""`errdex new <id>`: a fully commented record template at data/errors/<id>.yaml."""

from __future__ import annotations

import os
import re
from pathlib import Path

from .. import safefs
from .load import load_records
from .vocabulary import ID_PATTERN
from ..yamlout import comment_text, mapping_lines, schema_ref

TEMPLATE = Path(__file__).parent / "record_template.yaml"


class NewRecordError(Exception):
    """The id is not valid, or a record already exists at its path."""


def template_text(record_id: str, path: str) -> str:
    """The commented template for `record_id`, with the editor modeline pointing at the schema."""
    text = TEMPLATE.read_text(encoding="utf-8")
    return text.replace("{schema}", schema_ref(record_id)).replace("{id}", record_id).replace("{path}", comment_text(path))


def name_owner(name: str, root: Path) -> str | None:
    """The id of the record under `root` that has `name` as an alias, if any (an id is its file, checked apart)."""
    if not root.is_dir():
        return None
    raws, _ = load_records([root], root)
    for raw in raws:
        aliases = raw.data.get("aliases") if isinstance(raw.data, dict) else None
        if isinstance(aliases, list) and name in aliases:
            return str(raw.data.get("id"))
    return None


# Template lines a catalog entry fills, by their start: the key they become and its indent (`error:` holds the rest).
_PREFILL = {
    "#: repo:": ("repo", ""),
    "#: error:": ("error", ""),
    "#:   message:": ("message", "  "),
    "#:   regex:": ("regex", "  "),
    "#:   exception_class:": ("exception_class", "  "),
    "#:   type:": ("type", "  "),
    "#:   severity:": ("severity", "  "),
}
_QUOTED = {"message", "regex"}  # quoted as the template's examples are, so that `\d` and `{}` read as written


def catalog_prefill(entry_id: str, catalog_dir: Path) -> tuple[dict[str, str], str]:
    """The values a catalog entry gives a new record, by key, and a comment naming the entry, its raise site and
    the releases that raise it. Catalog text is upstream's: it reaches the file only through the YAML emitter
    (values) or `comment_text` (the note)."""
    from ..catalog.reader import CatalogQueryError, load_catalog

    catalog = load_catalog(catalog_dir)
    slug = entry_id.split("/", 1)[0]
    try:
        project = catalog.project(slug)
    except CatalogQueryError as exc:
        raise NewRecordError(str(exc)) from None
    entry = next((e for e in project.entries if e.id == entry_id), None)
    if entry is None:
        raise NewRecordError(f"the catalog has no entry {entry_id!r} (errdex match --catalog names entries)")
    d = entry.data
    if not project.repository or not isinstance(d.get("pattern"), str):
        raise NewRecordError(f"catalog entry {entry_id!r} names no repository or pattern to start a record from")
    exception = d.get("exception") if isinstance(d.get("exception"), str) else ""
    values = {"repo": project.repository, "message": d["template"], "regex": d["pattern"], "exception_class": exception,
              "type": "exception" if exception else "console", "severity": "error"}
    releases = [comment_text(v) for v in project.releases]
    ranges = ", ".join(releases[a] if a == b else f"{releases[a]} to {releases[b]}" for a, b in entry.ranges)
    raised = ""
    if entry.sites:
        site = max(entry.sites, key=lambda x: x.end)
        raised = f": raised at {comment_text(site.path)}:{site.line} in {project.slug} {releases[site.end]}"
    note = (f"# Started from the catalog entry {comment_text(entry_id)}{raised}; releases that raise it: {ranges}.\n"
            "# Pin `source` to one of those releases (its tag commit, the artifact and its sha256), then fill in the rest.\n")
    return values, note


def prefilled(text: str, values: dict[str, str], note: str) -> str:
    """The template with the lines a catalog entry fills (the first line of each kind) replaced by the entry's
    values, written by the YAML emitter, and its note."""
    out, done = [], set()
    for line in text.splitlines(keepends=True):
        key = next((k for k in _PREFILL if line.startswith(k) and k not in done), None)
        name, indent = _PREFILL[key] if key is not None else ("", "")
        if key is None or (name == "exception_class" and not values[name]):
            out.append(line)
            continue
        done.add(key)
        out.append("error:\n" if name == "error" else indent + mapping_lines([(name, values[name])], "'" if name in _QUOTED else None))
    body = "".join(out)
    first = body.index("\n", body.index("\nid: ") + 1) + 1  # after the id line
    return body[:first] + note + body[first:]


def new_record(record_id: str, root: Path, from_catalog: str | None = None, catalog_dir: Path | None = None) -> Path:
    """Write the template for `record_id` under `root` (prefilled from a catalog entry when given); refuses bad
    ids and never overwrites."""
    if not re.fullmatch(ID_PATTERN, record_id):
        raise NewRecordError(
            f"{record_id!r} is not a valid id: use lowercase a-z, 0-9 and '-', in segments joined by '/', "
            "e.g. vllm/kv-cache-out-of-memory"
        )
    owner = name_owner(record_id, root)
    if owner is not None:
        raise NewRecordError(f"{record_id!r} is already taken: it is an alias of {owner!r} (ids and aliases are never reused); choose another id")
    path = root / f"{record_id}.yaml"
    if path.exists() or os.path.islink(path):
        raise NewRecordError(f"{path} already exists; edit it instead, or choose another id")
    text = template_text(record_id, path.as_posix())
    if from_catalog is not None:
        text = prefilled(text, *catalog_prefill(from_catalog, catalog_dir or root.parent / "catalog"))
    try:
        safefs.write_text(path, text, root, exclusive=True)
    except (safefs.UnsafePath, FileExistsError) as exc:
        raise NewRecordError(str(exc)) from None
    return path
