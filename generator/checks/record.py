"""REC: facts inside one record (its id and path, dates, example fix, self references)."""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterator

from .. import chars
from ..findings import Finding, make
from ..records.load import RawRecord, pointer_escape
from ..records.model import CATEGORIES, FIX_POINTER, RELATIONS
from . import get, record_check, strings

_DATES = ("first_seen", "last_confirmed", "last_updated")
# How far past today a date may lie (time zones: a contributor's today can be the checker's tomorrow).
FUTURE_MARGIN = dt.timedelta(days=1)


def today() -> dt.date:
    """The checker's today, in UTC (a function so that tests can move the clock)."""
    return dt.datetime.now(dt.timezone.utc).date()


@record_check
def id_matches_path(raw: RawRecord) -> Iterator[Finding]:
    record_id = get(raw.data, "id", kind=str)
    if record_id is not None and raw.id_from_path is not None and record_id != raw.id_from_path:
        yield make("REC001", raw.path, "/id", f"id {record_id!r} does not match the file's path, which implies {raw.id_from_path!r}", raw.pos("/id"))


def _dated(raw: RawRecord) -> Iterator[tuple[str, str]]:
    """(pointer, text) of every date a record holds: provenance and origin dates, analyzed_at, the release's check
    date and each report's date (each says when something happened, so none may be in the future)."""
    for name in _DATES:
        yield f"/provenance/{name}", get(raw.data, "provenance", name, kind=str)
    for name in ("first_seen", "last_confirmed"):
        yield f"/provenance/origin/{name}", get(raw.data, "provenance", "origin", name, kind=str)
    analyzed = get(raw.data, "provenance", "analyzed_at", kind=str)
    yield "/provenance/analyzed_at", analyzed[:10] if analyzed else None
    yield "/source/release/checked", get(raw.data, "source", "release", "checked", kind=str)
    for i, _ in enumerate(get(raw.data, "reports", kind=list) or []):
        yield f"/reports/{i}/date", get(raw.data, "reports", i, "date", kind=str)


@record_check
def dates(raw: RawRecord) -> Iterator[Finding]:
    parsed: dict[str, dt.date] = {}
    latest = today() + FUTURE_MARGIN
    for pointer, text in _dated(raw):
        if text is None:
            continue
        try:
            day = dt.date.fromisoformat(text)
        except ValueError:
            if pointer.startswith("/provenance/") and pointer.rsplit("/", 1)[-1] in _DATES:
                yield make("REC002", raw.path, pointer, f"{text!r} is not a real date", raw.pos(pointer))
            continue  # elsewhere the schema's pattern reports the form
        parsed[pointer] = day
        if day > latest:
            name = pointer.rsplit("/", 1)[-1]
            yield make("REC008", raw.path, pointer, f"{name} {day.isoformat()} is in the future (latest allowed: {latest.isoformat()})", raw.pos(pointer))
    ordered = [(name, parsed[f"/provenance/{name}"]) for name in _DATES if f"/provenance/{name}" in parsed]
    for (a_name, a), (b_name, b) in zip(ordered, ordered[1:]):
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
    for relation in RELATIONS:
        for i, target in strings(raw.data, "related", relation):
            if target == record_id:
                pointer = f"/related/{relation}/{i}"
                yield make("REC005", raw.path, pointer, f"the record lists itself under related.{relation}", raw.pos(pointer))
    for i, alias in strings(raw.data, "aliases"):
        if alias == record_id:
            yield make("REC005", raw.path, f"/aliases/{i}", "an alias equals the record's own id", raw.pos(f"/aliases/{i}"))
    if get(raw.data, "superseded_by", kind=str) == record_id:
        yield make("REC005", raw.path, "/superseded_by", "the record is superseded by itself", raw.pos("/superseded_by"))


def _strings(value, pointer=""):
    """(pointer, text) for every string of a record: values, and the keys of mappings (findings echo keys too)."""
    if isinstance(value, str):
        yield pointer, value
    elif isinstance(value, dict):
        for key, child in value.items():
            here = f"{pointer}/{pointer_escape(str(key))}"
            if isinstance(key, str):
                yield here, key
            yield from _strings(child, here)
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _strings(child, f"{pointer}/{i}")


# One scan of the record's values and keys decides (not of the file text: YAML may spell a character as an
# escape); only a record that may have such a character is walked to find where. ensure_ascii=False keeps every
# character as itself (a lone surrogate included) but C0 controls, which JSON writes as \b \f \r or \u00XX: the
# scan also takes those spellings (a false alarm only costs the walk).
_ANY = re.compile(f"{chars.HIDDEN.pattern}|{chars.UNSAFE.pattern}|" + r"\\[bfr]|\\u00[01]")


@record_check
def no_hidden_or_unsafe_characters(raw: RawRecord) -> Iterator[Finding]:
    """REC006 for invisible and direction-changing characters, REC007 for controls, surrogates and non-characters."""
    if not _ANY.search(json.dumps(raw.data, ensure_ascii=False)):
        return
    for pointer, text in _strings(raw.data):
        for code, pattern in (("REC006", chars.HIDDEN), ("REC007", chars.UNSAFE)):
            found = pattern.search(text)
            if found:
                yield make(code, raw.path, pointer, f"{chars.describe(found.group())} at offset {found.start()}", raw.pos(pointer))


@record_check
def reports_name_a_fix(raw: RawRecord) -> Iterator[Finding]:
    """REC009: each report says which fix it is about, and that fix exists."""
    for i, report in enumerate(get(raw.data, "reports", kind=list) or []):
        fix = get(report, "fix", kind=str)
        if fix is None or not re.fullmatch(FIX_POINTER, fix):
            continue  # the schema reports the form
        _, kind, index = fix.split("/")
        items = get(raw.data, kind, kind=list) or []
        if int(index) >= len(items):
            pointer = f"/reports/{i}/fix"
            noun = kind.replace("_", " ").rstrip("s") + ("" if len(items) == 1 else "s")
            yield make("REC009", raw.path, pointer, f"the report is about {fix}, but the record has {len(items)} {noun}", raw.pos(pointer))


@record_check
def examples_say_where_they_come_from(raw: RawRecord) -> Iterator[Finding]:
    """REC010: an example is either seen in a public report (`seen: URL`) or marked `constructed: true`."""
    for i, example in enumerate(get(raw.data, "error", "examples", kind=list) or []):
        if not isinstance(example, dict):
            continue
        seen = example.get("seen") is not None
        constructed = example.get("constructed") is True
        if seen == constructed:
            pointer = f"/error/examples/{i}"
            what = "both a `seen` URL and `constructed: true`" if seen else "neither a `seen` URL nor `constructed: true`"
            yield make("REC010", raw.path, pointer, f"example {i} has {what}", raw.pos(pointer))


@record_check
def a_real_example_or_why_not(raw: RawRecord) -> Iterator[Finding]:
    """RGX008: at least one example seen in a public report, or `error.unseen` saying why there is none."""
    examples = get(raw.data, "error", "examples", kind=list)
    if not examples or get(raw.data, "error", "unseen", kind=str) is not None:
        return  # no examples at all is RGX004's finding
    if any(isinstance(e, dict) and e.get("seen") is None and e.get("constructed") is not True for e in examples):
        return  # an example that says nothing of where it comes from is REC010's finding
    if not any(isinstance(e, dict) and e.get("seen") is not None for e in examples):
        yield make("RGX008", raw.path, "/error/examples", "no example is seen in a public report, and error.unseen does not say why", raw.pos("/error/examples", key=True))


@record_check
def tier_is_backed(raw: RawRecord) -> Iterator[Finding]:
    """REC011: a verification tier is a claim about what was checked; the record must carry what backs it."""
    tier = get(raw.data, "provenance", "verification_tier", kind=str)
    pointer = "/provenance/verification_tier"
    if tier == "source_verified" and get(raw.data, "source", "release", "checked", kind=str) is None:
        yield make("REC011", raw.path, pointer, "source_verified, but source.release.checked does not say when the snippet was compared with its release", raw.pos(pointer))
    if tier in ("reproduced", "maintainer_confirmed") and get(raw.data, "provenance", "confirmation", kind=str) is None:
        yield make("REC011", raw.path, pointer, f"{tier}, but provenance.confirmation links no public report of it", raw.pos(pointer))


@record_check
def artifact_address_is_whole(raw: RawRecord) -> Iterator[Finding]:
    """REC012: source.release.url names the very file `artifact` and comes with its sha256 (and no package)."""
    url = get(raw.data, "source", "release", "url", kind=str)
    if url is None:
        return
    pointer = "/source/release/url"
    artifact = get(raw.data, "source", "release", "artifact", kind=str)
    if get(raw.data, "source", "release", "sha256", kind=str) is None:
        yield make("REC012", raw.path, pointer, "the artifact is fetched from an address, but source.release.sha256 is missing", raw.pos(pointer))
    if get(raw.data, "source", "release", "package", kind=str) is not None:
        yield make("REC012", raw.path, pointer, "source.release names both a package and an address; keep one", raw.pos(pointer))
    if artifact is None or url.rsplit("/", 1)[-1] != artifact:
        yield make("REC012", raw.path, pointer, f"the address does not end with the artifact's file name ({artifact or 'no artifact'})", raw.pos(pointer))


@record_check
def category_is_known(raw: RawRecord) -> Iterator[Finding]:
    """REC013: the category is one the site has a name for in every language."""
    category = get(raw.data, "category", kind=str)
    if category is not None and category not in CATEGORIES:
        yield make("REC013", raw.path, "/category", f"{category!r} is not one of the categories: {', '.join(CATEGORIES)}", raw.pos("/category"))
