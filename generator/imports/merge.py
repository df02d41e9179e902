"""Merging an imported record into the record of the same error: one error, one record.

The same error: the existing record's pattern finds the incoming message, one of its examples or message variants
(our patterns are reviewed, so this is the strong sign), or both patterns find an example of the other. A match the
other way only (their pattern finds one of our examples) is reported as a possible duplicate and not merged: their
patterns are often wide (`context.*length.*exceeded`). Merging keeps our text and adds: the legacy id to
`aliases`, the examples and message variants our pattern finds, the dead ends and workarounds we lack, and the
source's rates as its attributed estimates (never as counted reports).
"""

from __future__ import annotations

import re
from typing import Any

from ..checks.regex import compile_error, compile_pattern
from .base import HOLE, Imported
from ..records.model import LIST
from ..records.vocabulary import ID_PATTERN



def matcher(pattern: Any):
    return compile_pattern(pattern) if isinstance(pattern, str) and compile_error(pattern) is None else None


def lines_of(record: dict[str, Any]) -> list[str]:
    """The lines a record says its error looks like: its examples, else its message with the holes filled."""
    error = record.get("error") if isinstance(record.get("error"), dict) else {}
    examples = [e["text"] for e in error.get("examples") or [] if isinstance(e, dict) and isinstance(e.get("text"), str)]
    message = error.get("message")
    filled = [message, HOLE.sub("1", message)] if isinstance(message, str) else []
    return examples or filled


_CLASS = re.compile(r"^[A-Za-z_][\w.]*(?:Error|Exception): ")


def _numbers(text: str) -> str:
    return re.sub(r"\d+(?:\.\d+)?", "0", text)


def relation(ours: dict[str, Any], item: Imported) -> tuple[int, int]:
    """(how strongly, how many lines): 2 when our pattern finds their lines, 1 when only theirs finds ours, else 0."""
    mine, theirs = matcher((ours.get("error") or {}).get("regex")), matcher((item.record.get("error") or {}).get("regex"))
    incoming = lines_of(item.record) + item.variants
    message = (item.record.get("error") or {}).get("message")
    if isinstance(message, str):
        incoming += [message, HOLE.sub("1", message)]
    found = sum(1 for line in incoming if mine is not None and mine.search(line) is not None)
    # A signature cut short ("CUDA out of memory. Tried to allocate 2.00 GiB") that our pattern cannot find whole
    # is still ours when, numbers and the exception class aside, one of our examples holds it where a message begins.
    ours_text = [_numbers(line) for line in lines_of(ours)]
    for line in incoming:
        core = _numbers(_CLASS.sub("", line))
        if len(core) >= 16 and any(text.startswith(core) or ": " + core in text for text in ours_text):
            found += 1
    back = sum(1 for line in lines_of(ours) if theirs is not None and theirs.search(line) is not None)
    if found:
        return 2, found + back
    return (1, back) if back else (0, 0)


def mergeable(data: dict[str, Any]) -> bool:
    """Whether a record has the shape a merge writes into (a record of ours with findings of its own is left alone)."""
    error = data.get("error")
    return (isinstance(error, dict) and isinstance(error.get("regex"), str) and isinstance(error.get("examples", []), list)
            and all(isinstance(data.get(k, []), list) for k in ("aliases", "dead_ends", "workarounds"))
            and isinstance(data.get("provenance", {}), dict) and isinstance(origin := data.get("provenance", {}).get("origin") or {}, dict)
            and isinstance(origin.get("estimates", []), list))


def same_error(item: Imported, pool: dict[str, dict[str, Any]], reviewed: set[str]) -> tuple[str | None, list[str]]:
    """The id of the record in `pool` that is the same error (or None), and the ids it only might be. A record
    of this import (not in `reviewed`) has the source's pattern, not a reviewed one: it counts only when both
    patterns find each other's lines and the project is the same."""
    scored = []
    for rid, data in pool.items():
        if not mergeable(data):
            continue
        strength, count = relation(data, item)
        if strength == 2 and rid not in reviewed:
            back = relation({"error": item.record["error"]}, Imported("", {"error": data["error"]}))[0] == 2
            strength = 2 if back and data.get("repo") == item.record.get("repo") else 1
        if strength:
            scored.append((-strength, rid not in reviewed, -count, rid))
    scored.sort()
    best = next((rid for strength, _, _, rid in scored if strength == -2), None)
    return best, [rid for strength, _, _, rid in scored if strength == -1]


def alike(one: dict[str, Any], two: dict[str, Any]) -> bool:
    """Each pattern finds an example of the other: what `validate` calls two records for one error (XRC007)."""
    def finds(a: dict[str, Any], b: dict[str, Any]) -> bool:
        pattern = matcher((a.get("error") or {}).get("regex"))
        examples = [e.get("text") for e in (b.get("error") or {}).get("examples") or [] if isinstance(e, dict)]
        return pattern is not None and any(isinstance(t, str) and pattern.search(t) for t in examples)
    return finds(one, two) and finds(two, one)


def _append(target: list, items: list, limit: int = LIST) -> int:
    added = 0
    for item in items:
        if item not in target and len(target) < limit:
            target.append(item)
            added += 1
    return added


def merge(ours: dict[str, Any], item: Imported, taken: set[str]) -> list[str]:
    """Merge `item` into `ours` in place; what was merged (and what was not) as notes. `taken`: every id and alias
    in use, which an alias must not repeat."""
    where, rid, done = item.source, ours["id"], []
    # Only ever added to: our values stay as they are, and a list or mapping we had not is dropped again if
    # nothing went into it.
    had = {key for key in ("aliases", "dead_ends", "workarounds") if key in ours} | ({"examples"} if "examples" in ours["error"] else set())
    legacy = item.legacy
    aliases = ours.setdefault("aliases", [])
    if legacy and legacy not in aliases and legacy != rid:
        if re.fullmatch(ID_PATTERN, legacy) and legacy not in taken:
            aliases.append(legacy)
            taken.add(legacy)
            done.append(f"alias {legacy!r}")
        else:
            done.append(f"legacy id {legacy!r} not added to aliases (not an id of ours, or in use); it is in this note only")
    mine = matcher(ours["error"].get("regex"))
    examples = ours["error"].setdefault("examples", [])
    have = [e.get("text") for e in examples if isinstance(e, dict)]
    fresh, unmatched = [], []
    for example in item.record["error"].get("examples", []) + [{"text": v, "constructed": True} for v in item.variants]:
        if example["text"] in have or example in fresh:
            continue
        (fresh if mine is not None and mine.search(example["text"]) else unmatched).append(example)
    added = _append(examples, fresh)
    if added:
        done.append(f"{added} example(s)")
    if unmatched:
        done.append("message text(s) our pattern does not find, not added: " + "; ".join(repr(e["text"]) for e in unmatched))
    origin = item.record["provenance"].get("origin", {})
    estimates = []
    for kind in ("dead_ends", "workarounds"):
        target = ours.setdefault(kind, [])
        actions = [f.get("action") for f in target if isinstance(f, dict)]
        for i, fix in enumerate(item.record.get(kind, [])):
            if fix.get("action") in actions or len(target) >= LIST:
                continue
            target.append(fix)
            estimates += [{**e, "field": f"/{kind}/{len(target) - 1}"} for e in origin.get("estimates", []) if e.get("field") == f"/{kind}/{i}"]
            done.append(f"{kind}[{i}]")
    estimates += [e for e in origin.get("estimates", []) if "field" not in e]
    if estimates:
        provenance = ours.setdefault("provenance", {})
        have_origin = provenance.get("origin")
        if have_origin is None:
            provenance["origin"] = {"dataset": origin["dataset"], "id": legacy, "url": origin.get("url"), "estimates": estimates[:LIST]}
            provenance["origin"] = {k: v for k, v in provenance["origin"].items() if v}
            done.append(f"{len(estimates)} estimate(s) of {origin['dataset']}, attributed in provenance.origin")
        elif have_origin.get("dataset") == origin["dataset"]:
            fresh_list = "estimates" not in have_origin
            added = _append(have_origin.setdefault("estimates", []), estimates)
            if fresh_list and not added:
                have_origin.pop("estimates")
            if added:
                done.append(f"{added} estimate(s) of {origin['dataset']}, added to provenance.origin")
        else:
            done.append(f"{len(estimates)} estimate(s) not kept: the record's provenance.origin is {have_origin.get('dataset')!r}")
    for kind in ("aliases", "dead_ends", "workarounds"):
        if not ours.get(kind) and kind not in had:
            ours.pop(kind, None)
    if not ours["error"]["examples"] and "examples" not in had:
        ours["error"].pop("examples")
    return [f"{where}: merged into {rid}: " + (", ".join(done) if done else "nothing new")]
