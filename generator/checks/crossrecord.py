"""XRC: facts across the dataset: unique ids and aliases, resolvable references, no supersede cycles."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

import re2

from ..findings import Finding, make
from ..records.load import RawRecord
from ..records.model import RELATIONS
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


def _links(raw: RawRecord) -> set[str]:
    """The ids and aliases a record points at through `related` (any relation) or `superseded_by`."""
    targets = {t for rel in ("leads_to", "preceded_by", "confused_with") for _, t in strings(raw.data, "related", rel)}
    successor = get(raw.data, "superseded_by", kind=str)
    return targets | ({successor} if successor else set())


def _matcher(raw: RawRecord):
    from .regex import compile_error, compile_pattern

    pattern = get(raw.data, "error", "regex", kind=str)
    return compile_pattern(pattern) if pattern is not None and compile_error(pattern) is None else None


_HOLE = re.compile(r"\{[^{}]{0,40}\}|%[sdifr]")


def _which(index: int | str) -> str:
    return "the message" if index == "message" else f"example {index}"


def _finds(matcher, examples: list[tuple[int | str, str]]) -> int | str | None:
    return next((i for i, text in examples if matcher is not None and matcher.search(text) is not None), None)


def _candidate_pairs(entries: list) -> list[tuple[int, int]]:
    """The pairs (a, b), a < b, in order, whose patterns each find some example of the other. The examples are
    indexed by the literals in them: every match of a pattern holds one of its literals (generator.match.portable,
    case-folded for a case-insensitive pattern), so one pass of each example through one RE2 set of every
    pattern's literals names the few patterns that can find it, and only those are run on it. The caller still
    asks each pair which example, so findings are the same as a pass over all pairs."""
    from ..match.portable import analyse
    from .regex import pattern_set

    literals = pattern_set()
    owners: list[list[int]] = []  # literal k -> the entries whose pattern holds it
    keys: dict[str, int] = {}
    always: list[int] = []  # entries whose pattern names no literal: run on every example
    for i, (_, matcher, *_) in enumerate(entries):
        if matcher is None:
            continue
        found = analyse(matcher.pattern, backtracking=False)
        if found.broken or not found.literals:
            always.append(i)
            continue
        for text in found.literals:
            key = f"(?i:{re2.escape(text)})" if found.ignore_case else re2.escape(text)
            if key not in keys:
                keys[key] = len(owners)
                owners.append([])
                literals.Add(key)
            owners[keys[key]].append(i)
    try:
        literals.Compile()
    except re2.error:  # over RE2's memory budget: every entry is tried on every example
        always = [i for i, (_, matcher, *_) in enumerate(entries) if matcher is not None]
        owners = []
    finds: dict[int, set[int]] = {}  # record -> the records whose pattern finds one of its examples
    for a, (_, _, examples, *_) in enumerate(entries):
        hits = finds.setdefault(a, set())
        for _, text in examples:
            tried = set(always)
            for k in (literals.Match(text) or ()) if owners else ():
                tried.update(owners[k])
            hits.update(i for i in tried - hits if entries[i][1].search(text) is not None)
    return sorted((a, b) for a, hits in finds.items() for b in hits if a < b and a in finds.get(b, ()))


@dataset_check
def one_record_per_error(records: list[RawRecord]) -> Iterator[Finding]:
    """XRC007: each of two records' patterns finds an example of the other, and neither links the other: two
    records for one error (what an import without merging, or a second author, makes). A match one way only is
    one error quoted inside another (`Worker failed with error '<the LoRA error>'`), not a duplicate. A record
    without examples (an import) offers its message, holes filled in. Reported once
    per pair, at the first file, naming both."""
    entries = []
    for raw in records:
        items = get(raw.data, "error", "examples", kind=list) or []
        examples = [(i, text) for i, item in enumerate(items) if isinstance(text := get(item, "text", kind=str), str)]
        message = get(raw.data, "error", "message", kind=str)
        if not examples and message is not None:  # no examples yet (an import): the message, its holes filled in
            examples = [("message", _HOLE.sub("1", message))]
        entries.append((raw, _matcher(raw), examples, {name for _, name in _names(raw)}, _links(raw)))
    # A link to a retired record reaches its successors too: a record that points at the old one is linked to the new.
    successor = {name: get(raw.data, "superseded_by", kind=str) for raw, *_, names, _ in entries for name in names}
    for _, _, _, _, links in entries:
        todo = list(links)
        while todo:
            nxt = successor.get(todo.pop())
            if nxt and nxt not in links:
                links.add(nxt)
                todo.append(nxt)
    for a, b in _candidate_pairs(entries):
        (one, match_one, ex_one, names_one, links_one), (two, match_two, ex_two, names_two, links_two) = entries[a], entries[b]
        if names_one & links_two or names_two & links_one or one.path == two.path:
            continue
        hit, back = _finds(match_two, ex_one), _finds(match_one, ex_two)
        if hit is not None and back is not None:
            yield make(
                "XRC007", one.path, "/error/regex",
                f"two records for one error: the pattern of {one.path} matches {_which(back)} of {two.path} and its "
                f"pattern matches {_which(hit)} here (neither links the other through related or superseded_by)",
                one.pos("/error/regex"),
            )
