"""XRC: facts across the dataset: unique ids and aliases, resolvable references, no supersede cycles."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from ..findings import Finding, make
from ..load import RawRecord
from ..model import RELATIONS
from . import dataset_check, get, strings


def _names(raw: RawRecord) -> Iterator[tuple[str, str]]:
    """(pointer, name) for the record's id and each alias."""
    record_id = get(raw.data, "id", kind=str)
    if record_id is not None:
        yield "/id", record_id
    for i, alias in strings(raw.data, "aliases"):
        if alias != record_id:
            yield f"/aliases/{i}", alias


@dataset_check
def unique_names(records: list[RawRecord]) -> Iterator[Finding]:
    owner: dict[str, tuple[str, str]] = {}
    for raw in records:
        for pointer, name in _names(raw):
            if name in owner:
                first_path, first_pointer = owner[name]
                where = "this file" if first_path == raw.path else first_path
                yield make("XRC001", raw.path, pointer, f"{name!r} is already used at {where} {first_pointer}", raw.pos(pointer))
            else:
                owner[name] = (raw.path, pointer)


def _canonical(records: list[RawRecord]) -> dict[str, str]:
    """Every id and alias -> the canonical id it names."""
    table: dict[str, str] = {}
    for raw in records:
        record_id = get(raw.data, "id", kind=str)
        if record_id is None:
            continue
        for _, name in _names(raw):
            table.setdefault(name, record_id)
    return table


@dataset_check
def references_resolve(records: list[RawRecord]) -> Iterator[Finding]:
    known = _canonical(records)
    for raw in records:
        targets = [(f"/related/{rel}/{i}", t) for rel in RELATIONS for i, t in strings(raw.data, "related", rel)]
        successor = get(raw.data, "superseded_by", kind=str)
        if successor is not None:
            targets.append(("/superseded_by", successor))
        for pointer, target in targets:
            if target not in known:
                yield make("XRC002", raw.path, pointer, f"no record has the id or alias {target!r}", raw.pos(pointer))


@dataset_check
def related_records_are_live(records: list[RawRecord]) -> Iterator[Finding]:
    known = _canonical(records)
    successors = {get(raw.data, "id", kind=str): get(raw.data, "superseded_by", kind=str) for raw in records}
    for raw in records:
        for rel in RELATIONS:
            for i, target in strings(raw.data, "related", rel):
                successor = successors.get(known.get(target))
                if successor is not None:
                    pointer = f"/related/{rel}/{i}"
                    yield make("XRC004", raw.path, pointer, f"{target!r} is retired in favour of {successor!r}", raw.pos(pointer))


@dataset_check
def no_supersede_cycles(records: list[RawRecord]) -> Iterator[Finding]:
    known = _canonical(records)
    successor = {}
    for raw in records:
        record_id, target = get(raw.data, "id", kind=str), get(raw.data, "superseded_by", kind=str)
        if record_id is not None and target in known:
            successor[record_id] = (known[target], raw)
    reported: set[str] = set()
    for start in sorted(successor):
        seen, node = [], start
        while node in successor and node not in seen:
            seen.append(node)
            node = successor[node][0]
        if node in seen and node not in reported:
            cycle = seen[seen.index(node):]
            reported.update(cycle)
            raw = successor[node][1]
            yield make("XRC003", raw.path, "/superseded_by", "superseded_by forms a cycle: " + " -> ".join(cycle + [node]), raw.pos("/superseded_by"))


@dataset_check
def one_spelling_per_project(records: list[RawRecord]) -> Iterator[Finding]:
    """XRC006: GitHub names are case-insensitive, so `Dao-AILab/flash-attention` and `dao-ailab/flash-attention`
    are one project; spelled both ways they would make two browse pages for one project (and one path on a
    case-insensitive file system). The spelling most records use is the right one (ties: the first in order)."""
    uses: dict[str, list[tuple[str, RawRecord, str]]] = {}
    for raw in records:
        for pointer in ("/repo", "/source/repo"):
            value = get(raw.data, *pointer.split("/")[1:], kind=str)
            if value is not None:
                uses.setdefault(value.casefold(), []).append((value, raw, pointer))
    for spelled in uses.values():
        counts = Counter(value for value, _, _ in spelled)
        if len(counts) < 2:
            continue
        best = min(counts, key=lambda v: (-counts[v], v))
        for value, raw, pointer in spelled:
            if value != best:
                yield make("XRC006", raw.path, pointer, f"{value!r} is written {best!r} in {counts[best]} other place(s); one project, one spelling", raw.pos(pointer))
