"""`errdex import`: records of other knowledge bases -> errdex records, merged with ours: one error, one record.

Two foreign datasets are understood: ErrLookup (camelCase `ErrorEntry`: a bare record, the API's
`{"record": ..., "datasetVersion": ...}` envelope, a repo file's JSON list, or NDJSON) and deadends.dev (its
published canons, and the flat shape of the seed). generator/imports/shapes.py maps each shape (field tables in
CONTRIBUTING.md); generator/imports/merge.py finds the record of the same error and merges into it. A field that
cannot be placed is reported by name, never dropped silently. Same input, same output bytes.
"""

from __future__ import annotations

import bisect
import copy
import json
import os
import re
from pathlib import Path
from typing import Any

import yaml

from .. import safefs
from .base import ORDER, ImportFailure, Imported, cut, ordered
from .merge import alike, matcher, merge, mergeable, same_error
from .shapes import convert_deadends, convert_errlookup
from ..records.load import load_records
from ..checks.marks import HEADER, marked_text
from ..records.vocabulary import ID_PATTERN
from ..yamlout import MODELINE, dump_record

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


def _head(text: str) -> tuple[str, str]:
    """(the comment lines a record file starts with, its modeline left out; the rest of the file)."""
    lines = text.splitlines(keepends=True)
    n = next((i for i, line in enumerate(lines) if line.strip() and not line.startswith("#")), len(lines))
    return "".join(line for line in lines[:n] if line.startswith("#") and not line.startswith(MODELINE[:24])), "".join(lines[n:])


def _scalar_spans(node: yaml.Node) -> list[tuple[int, int]]:
    """(start, end) character offsets of every scalar under `node`, sorted."""
    spans, stack = [], [node]
    while stack:
        node = stack.pop()
        if isinstance(node, yaml.ScalarNode):
            spans.append((node.start_mark.index, node.end_mark.index))
        elif isinstance(node, yaml.MappingNode):
            stack += [n for pair in node.value for n in pair]
        elif isinstance(node, yaml.SequenceNode):
            stack += node.value
    return sorted(spans)


def _comment_free(text: str) -> bool:
    """Whether a record file holds no comment but those it starts with (a merge keeps them) and mark-translated's
    (a merge writes it again). A merge writes the file anew from its data, which keeps every value but no other
    comment, so a file with one is merged by hand instead."""
    body = _head(text)[1].replace(HEADER, "zh_fingerprints:\n")
    if "#" not in body:
        return True
    try:
        spans = _scalar_spans(yaml.compose(body, Loader=yaml.SafeLoader))
    except yaml.YAMLError:
        return False
    # A `#` outside every scalar is a comment (the loader refuses the tags and anchors that could hold one).
    starts = [a for a, _ in spans]
    for at in (i for i, c in enumerate(body) if c == "#"):
        k = bisect.bisect_right(starts, at) - 1
        if k < 0 or not at < spans[k][1]:
            return False
    return True


def _refusal(item: Imported, path: Path, again: bool) -> str:
    if again:
        return f"{item.source}: {path} was imported from this entry before (use --force to merge what it brings new into it)"
    return (f"{item.source}: {path} already exists and holds another error (its pattern does not find this message); "
            "an import never replaces a record: nothing was written for this entry (merge it by hand, or give it another slug)")


def write_records(imported: list[Imported], root: Path, force: bool, merge_into: bool = True) -> tuple[list[Path], list[str], list[str]]:
    """Merge each record into the record of the same error (unless `merge_into` is off), else write it to a new
    file root/<id>.yaml. An existing record is never replaced, nor any of its values changed or removed: a merge
    only adds (generator/imports/merge.py), and an entry whose id another error has is refused. `force` merges an
    entry into the record that was imported from it before. Returns written paths, refusals and the merge report."""
    loaded = load_records([root], root)[0] if root.is_dir() else []
    existing = {r.data["id"]: r.data for r in loaded if isinstance(r.data.get("id"), str)}
    texts = {r.data["id"]: r.text for r in loaded if isinstance(r.data.get("id"), str)}
    files = {r.data["id"]: Path(r.file) for r in loaded if isinstance(r.data.get("id"), str)}
    existing_keys = {rid: list(data) for rid, data in existing.items()}
    # Records whose pattern a person wrote or checked: not an import left as it came (ai_generated, with an origin).
    reviewed = {rid for rid, data in existing.items() if not (isinstance(p := data.get("provenance"), dict) and p.get("origin") and p.get("verification_tier") == "ai_generated")}
    pool: dict[str, dict[str, Any]] = dict(existing)
    as_read = {rid: copy.deepcopy(data) for rid, data in existing.items()}
    names = {name: rid for rid, data in pool.items() for name in [rid, *(a for a in data.get("aliases") or [] if isinstance(a, str))]}
    changed: set[str] = set()
    refused, report = [], []
    items = sorted(imported, key=lambda i: (i.id, i.source))
    for item in items:
        _examples_from_variants(item)
        target, maybe = same_error(item, pool, reviewed) if merge_into else (None, [])
        again = item.id in existing and ((existing[item.id].get("provenance") or {}).get("origin") or {}).get("id") == item.legacy
        if again:  # the entry this record was imported from: --force merges what it brings new, never replaces
            target = item.id if force and mergeable(pool[item.id]) else None
        if target is not None and target in texts and not _comment_free(texts[target]):
            refused.append(f"{item.source}: {files[target]} is the same error but holds comments, which a merge "
                           "would not keep: nothing was written for this entry (merge it by hand)")
            continue
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
        if item.id in pool and item.alternative and not again:
            item.record["id"] = cut(item.alternative, 80)
        if not re.fullmatch(ID_PATTERN, item.id):
            refused.append(f"{item.source}: derived id {item.id!r} is not a valid id")
            continue
        if item.id in existing:
            refused.append(_refusal(item, root / (item.id + ".yaml"), again))
            continue
        if os.path.lexists(root / f"{item.id}.yaml"):  # a file that does not load (or names another id) is kept too
            refused.append(f"{item.source}: {root / (item.id + '.yaml')} already exists (it does not load as the record "
                           f"{item.id!r}); an import never replaces a file: nothing was written for this entry")
            continue
        if item.id in pool:
            refused.append(f"{item.source}: another entry in this import already has the id {item.id!r}")
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
        if rid in as_read and pool[rid] == as_read[rid]:
            continue  # merged, but nothing new: the file stays as it is, byte for byte
        path = files.get(rid, root / f"{rid}.yaml")  # a merge writes the file it read
        try:
            data = _in_order(pool[rid], list(existing_keys.get(rid, [])))
            marks = data.pop("zh_fingerprints", None)
            text = dump_record(data)
            if rid in texts:  # the comments a merged record's file starts with stay, after the modeline
                first = text.index("\n") + 1
                text = text[:first] + _head(texts[rid])[0] + text[first:]
            # A new record's file must not exist yet; only a merge writes over its own record.
            safefs.write_text(path, marked_text(text, marks) if isinstance(marks, dict) else text, root, exclusive=rid not in as_read)
        except (safefs.UnsafePath, FileExistsError) as exc:
            refused.append(f"{rid}: {exc}")
            continue
        written.append(path)
    return written, refused, report
