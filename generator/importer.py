"""`errdex import`: records of other knowledge bases -> errdex records, merged with ours: one error, one record.

Two foreign datasets are understood: ErrLookup (camelCase `ErrorEntry`: a bare record, the API's
`{"record": ..., "datasetVersion": ...}` envelope, a repo file's JSON list, or NDJSON) and deadends.dev (its
published canons, and the flat shape of the seed). generator/importshapes.py maps each shape (field tables in
CONTRIBUTING.md); generator/importmerge.py finds the record of the same error and merges into it. A field that
cannot be placed is reported by name, never dropped silently. Same input, same output bytes.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from . import safefs
from .importbase import ORDER, ImportFailure, Imported, cut, ordered
from .importmerge import alike, matcher, merge, same_error
from .importshapes import convert_deadends, convert_errlookup
from .load import load_records
from .translations import marked_text
from .model import ID_PATTERN
from .yamlout import dump_record

__all__ = ["ImportFailure", "Imported", "convert_file", "write_records"]


def _entries(path: Path) -> list[tuple[str, dict[str, Any], dict[str, Any] | None]]:
    """(where, entry, envelope) for every entry a file holds."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ImportFailure(f"{path}: cannot read the file: {exc}") from exc
    try:
        body = json.loads(text)
        items = body if isinstance(body, list) else [body]
        located = [(f"{path} entry {i}" if isinstance(body, list) else str(path), item) for i, item in enumerate(items)]
    except json.JSONDecodeError as whole:
        located = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                located.append((f"{path} line {number}", json.loads(line)))
            except json.JSONDecodeError as exc:
                raise ImportFailure(
                    f"{path}: not JSON ({whole.msg} at line {whole.lineno} column {whole.colno}) "
                    f"and not NDJSON (line {number}: {exc.msg} at column {exc.colno})"
                ) from exc
    out = []
    for where, item in located:
        if not isinstance(item, dict):
            raise ImportFailure(f"{where}: expected a JSON object, found {type(item).__name__}")
        if isinstance(item.get("record"), dict):
            out.append((where, item["record"], item))
            extra = sorted(set(item) - {"record", "datasetVersion"})
            if extra:
                raise ImportFailure(f"{where}: unknown envelope fields {extra}")
        else:
            out.append((where, item, None))
    return out


def convert_file(path: Path, repo_hint: str | None = None) -> list[Imported]:
    """Every record a file holds, converted; raises ImportFailure naming the file and entry."""
    converted = []
    for where, entry, envelope in _entries(path):
        if "errorMessage" in entry:
            converted.append(convert_errlookup(entry, where, envelope))
        elif "signature" in entry or isinstance(entry.get("error"), dict) and "signature" in entry["error"]:
            converted.append(convert_deadends(entry, where, repo_hint))
        else:
            raise ImportFailure(f"{where}: neither an ErrLookup record (no 'errorMessage') nor a deadends record (no 'signature')")
    return converted


def _examples_from_variants(item: Imported) -> None:
    """The source's other message texts become constructed examples where the pattern finds them; the rest are
    reported, never written as aliases (aliases are ids)."""
    pattern = matcher(item.record["error"]["regex"])
    examples = item.record["error"].setdefault("examples", [])
    for text in item.variants:
        if pattern is not None and pattern.search(text) and all(e["text"] != text for e in examples):
            examples.append({"text": text, "constructed": True})
        elif pattern is None or not pattern.search(text):
            item.notes.append(f"{item.source}: message variant {text!r} (field 'aliases') is not found by the pattern; not imported")


def _resolve_links(item: Imported, names: dict[str, str]) -> None:
    """The source's related ids -> ours, where a record has them as id or alias; the rest are reported."""
    related: dict[str, list[str]] = {}
    for relation, targets in sorted(item.links.items()):
        for target in targets:
            ours = names.get(target) or names.get("/".join(target.split("/")[:2]) + "/")
            if ours is None:
                item.notes.append(f"{item.source}: related {relation} {target!r} names no record here; not linked")
            elif ours != item.id and ours not in related.get(relation, []):
                related.setdefault(relation, []).append(ours)
    if related:
        item.record["related"] = related
        order = [k for k in item.record if k != "related"]
        at = order.index("official_docs") if "official_docs" in order else len(order)
        keys = order[:at] + ["related"] + order[at:]
        item.record.update({k: item.record.pop(k) for k in keys})


def _in_order(data: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    """A new record in the schema's order; a merged one in its own order, each added key after the key that comes
    before it in the schema (so that a merge moves nothing; YAML styles may change: flow lists become blocks)."""
    for key in ordered(data):
        if key not in keys:
            before = [k for k in ORDER[: ORDER.index(key)] if k in keys]
            keys.insert(keys.index(before[-1]) + 1 if before else 0, key)
    return {key: data[key] for key in keys + [k for k in data if k not in keys] if key in data}


def _stem(legacy: str | None) -> str:
    """A deadends id without its environment (`cuda/illegal-memory-access/`): links name one environment of an
    error, and the record of any other environment of it is the same record here."""
    return "/".join(legacy.split("/")[:2]) + "/" if legacy and legacy.count("/") == 2 else ""


def write_records(imported: list[Imported], root: Path, force: bool, merge_into: bool = True) -> tuple[list[Path], list[str], list[str]]:
    """Merge each record into the record of the same error (unless `merge_into` is off), else write it to
    root/<id>.yaml; an existing file of that id is kept unless `force`. Returns written paths, refusals and the
    merge report."""
    existing = {r.data["id"]: r.data for r in load_records([root], root)[0] if isinstance(r.data.get("id"), str)} if root.is_dir() else {}
    existing_keys = {rid: list(data) for rid, data in existing.items()}
    # Records whose pattern a person wrote or checked: not an import left as it came (ai_generated, with an origin).
    reviewed = {rid for rid, data in existing.items() if not (isinstance(p := data.get("provenance"), dict) and p.get("origin") and p.get("verification_tier") == "ai_generated")}
    pool: dict[str, dict[str, Any]] = dict(existing)
    names = {name: rid for rid, data in pool.items() for name in [rid, *(a for a in data.get("aliases") or [] if isinstance(a, str))]}
    changed: set[str] = set()
    refused, report = [], []
    items = sorted(imported, key=lambda i: (i.id, i.source))
    for item in items:
        _examples_from_variants(item)
        target, maybe = same_error(item, pool, reviewed) if merge_into else (None, [])
        again = item.id in existing and ((existing[item.id].get("provenance") or {}).get("origin") or {}).get("id") == item.legacy
        if again:
            target = None  # the same entry imported before: a re-import, which --force overwrites
        if target is not None:
            notes = merge(pool[target], item, set(names))
            for name in (item.legacy, item.id):
                if name:
                    names[name] = target
            names.setdefault(_stem(item.legacy), target)
            report += notes
            changed.add(target)
            continue
        for other in maybe:
            if alike(item.record, pool[other]):
                item.links.setdefault("confused_with", []).append(other)
                item.notes.append(f"{item.source}: looks like {other} (each pattern finds the other's example) but is not "
                                  "merged (another project, or patterns of the source alone): linked as related.confused_with; review it")
            else:
                item.notes.append(f"{item.source}: its pattern finds an example of {other}: possibly the same error; not merged, review it")
        if item.id in pool and item.alternative and not again and not (force and item.id in existing):
            item.record["id"] = cut(item.alternative, 80)
        if not re.fullmatch(ID_PATTERN, item.id):
            refused.append(f"{item.source}: derived id {item.id!r} is not a valid id")
            continue
        if item.id in pool and item.id not in existing:
            refused.append(f"{item.source}: another entry in this import already has the id {item.id!r}")
            continue
        if item.id in existing and not force:
            refused.append(f"{item.source}: {root / (item.id + '.yaml')} already exists (use --force to overwrite it)")
            continue
        pool[item.id] = item.record
        names[item.id] = item.id
        if item.legacy:
            names[item.legacy] = item.id
            names.setdefault(_stem(item.legacy), item.id)
        changed.add(item.id)
    for item in items:
        if pool.get(item.id) is item.record:
            _resolve_links(item, names)
    written = []
    for rid in sorted(changed):
        path = root / f"{rid}.yaml"
        try:
            data = _in_order(pool[rid], list(existing_keys.get(rid, [])))
            marks = data.pop("zh_fingerprints", None)
            text = dump_record(data)
            safefs.write_text(path, marked_text(text, marks) if isinstance(marks, dict) else text, root)
        except safefs.UnsafePath as exc:
            refused.append(f"{rid}: {exc}")
            continue
        written.append(path)
    return written, refused, report
