"""REC: facts inside one record (its id and path, dates, example fix, self references)."""

from __future__ import annotations

import datetime as dt
import json
import re
import unicodedata
from collections.abc import Iterator

from ..findings import Finding, make
from ..load import RawRecord, pointer_escape
from . import get, record_check, strings

_DATES = ("first_seen", "last_confirmed", "last_updated")


@record_check
def id_matches_path(raw: RawRecord) -> Iterator[Finding]:
    record_id = get(raw.data, "id", kind=str)
    if record_id is not None and raw.id_from_path is not None and record_id != raw.id_from_path:
        yield make("REC001", raw.path, "/id", f"id {record_id!r} does not match the file's path, which implies {raw.id_from_path!r}", raw.pos("/id"))


@record_check
def dates(raw: RawRecord) -> Iterator[Finding]:
    parsed: list[tuple[str, dt.date]] = []
    for name in _DATES:
        text = get(raw.data, "provenance", name, kind=str)
        if text is None:
            continue
        pointer = f"/provenance/{name}"
        try:
            parsed.append((name, dt.date.fromisoformat(text)))
        except ValueError:
            yield make("REC002", raw.path, pointer, f"{text!r} is not a real date", raw.pos(pointer))
    for (a_name, a), (b_name, b) in zip(parsed, parsed[1:]):
        if a > b:
            pointer = f"/provenance/{b_name}"
            yield make("REC003", raw.path, pointer, f"{b_name} {b.isoformat()} is before {a_name} {a.isoformat()}", raw.pos(pointer))


@record_check
def example_fix_changes_something(raw: RawRecord) -> Iterator[Finding]:
    before = get(raw.data, "example_fix", "before", kind=str)
    after = get(raw.data, "example_fix", "after", kind=str)
    if before is not None and before.strip() == (after or "").strip():
        yield make("REC004", raw.path, "/example_fix/after", "example_fix.after is the same as example_fix.before", raw.pos("/example_fix/after"))


@record_check
def no_self_reference(raw: RawRecord) -> Iterator[Finding]:
    record_id = get(raw.data, "id", kind=str)
    if record_id is None:
        return
    for relation in ("leads_to", "preceded_by", "confused_with"):
        for i, target in strings(raw.data, "related", relation):
            if target == record_id:
                pointer = f"/related/{relation}/{i}"
                yield make("REC005", raw.path, pointer, f"the record lists itself under related.{relation}", raw.pos(pointer))
    for i, alias in strings(raw.data, "aliases"):
        if alias == record_id:
            yield make("REC005", raw.path, f"/aliases/{i}", "an alias equals the record's own id", raw.pos(f"/aliases/{i}"))
    if get(raw.data, "superseded_by", kind=str) == record_id:
        yield make("REC005", raw.path, "/superseded_by", "the record is superseded by itself", raw.pos("/superseded_by"))


# Invisible and direction-changing characters let a record show one text and mean another (an id that looks
# like another's, a message whose parts render in a different order). Real error text does not need them.
HIDDEN_CHARACTERS = re.compile("[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u00ad]")


def _strings(value, pointer=""):
    if isinstance(value, str):
        yield pointer, value
    elif isinstance(value, dict):
        for key, child in value.items():
            yield from _strings(child, f"{pointer}/{pointer_escape(str(key))}")
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _strings(child, f"{pointer}/{i}")


@record_check
def no_hidden_characters(raw: RawRecord) -> Iterator[Finding]:
    # One scan of the record's values decides (not of the file text: YAML may spell the character as an
    # escape); only a record that has such a character is walked to find where.
    if not HIDDEN_CHARACTERS.search(json.dumps(raw.data, ensure_ascii=False)):
        return
    for pointer, text in _strings(raw.data):
        found = HIDDEN_CHARACTERS.search(text)
        if found:
            message = f"U+{ord(found.group()):04X} ({unicodedata.name(found.group(), 'format character')}) at offset {found.start()}"
            yield make("REC006", raw.path, pointer, message, raw.pos(pointer))
