"""Records -> the static JSON API under `api/`: exact bytes, the same bytes for the same data.

`api_files` is pure (records in, `{relative path: bytes}` out) so the site build can hand the files to MkDocs
or write them itself; `write_api` is the I/O edge. docs/en/api.md (docs/zh/api.md in Chinese) is the contract these functions implement.

There is no envelope: every file is the document itself. The dataset version and the API version live in
`manifest.json` (and the API version in `openapi.json`), because a version stamped into every file would change
every file on every release, and the manifest's per-file sha256 could then never tell a client what to skip.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Any

from ..records.evidence import best_fix_document, evidence_document
from .card import card as record_card
from ..records.bilingual import translation_slots
from ..labels import page_title
from ..match.rules import match_document
from ..records.model import TIERS, Record
from ..records.vocabulary import ID_PATTERN, SEVERITIES
from .openapi import API_VERSION, file_entry, openapi_document
from ..routes import Links, api_path
from ..records.schema import schema_text
from .. import safefs
from ..safefs import Reuse

DATASET_VERSION_LENGTH = 16

_ID = re.compile(ID_PATTERN)
_SEGMENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
# Python's str.splitlines (and JavaScript source) break lines at these; JSON allows them raw. Escape them so an
# NDJSON line is always one line to every reader.
_LINE_BREAKS = {"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"}


# The encoder's settings, made once (json.dumps would make an encoder per call: tens of thousands a build).
_COMPACT = json.JSONEncoder(ensure_ascii=False, sort_keys=True, allow_nan=False, separators=(",", ":"))
_PRETTY = json.JSONEncoder(ensure_ascii=False, sort_keys=True, allow_nan=False, indent=2, separators=(",", ": "))


def encode_json(value: Any, pretty: bool = False) -> bytes:
    """The one JSON encoding of the API: UTF-8, no ASCII escaping, sorted keys, shortest-round-trip floats,
    no insignificant whitespace (or a two-space indent), exactly one trailing newline. NaN and infinities are
    refused. Compact is the default: it is what tools read, it is smaller, and it lets one NDJSON line be
    byte-identical to a record's file."""
    text = (_PRETTY if pretty else _COMPACT).encode(value)
    for char, escaped in _LINE_BREAKS.items():
        text = text.replace(char, escaped)  # these only ever occur inside strings
    return (text + "\n").encode("utf-8")


def encode_file(path: str, value: Any) -> bytes:
    """The bytes of the API file at `path` (relative to the API root): `encode_json`, gzip-compressed where the
    route ends in `.gz` (no name or time in the header: the same document, the same bytes)."""
    data = encode_json(value)
    return gzip.compress(data, compresslevel=6, mtime=0) if path.endswith(".gz") else data


def decode_file(path: str, data: bytes) -> Any:
    """The document in the API file at `path`: what `encode_file` wrote, read back."""
    return json.loads(gzip.decompress(data) if path.endswith(".gz") else data)


def _record_path(name: str) -> str:
    """`errors/<name>.json` for an id or alias, refusing any name that is not a well-formed id."""
    if not isinstance(name, str) or len(name) > 200 or not _ID.fullmatch(name):
        raise ValueError(f"{name!r} is not a valid record id; it cannot become an API path")
    return api_path("record", name)


def _names(record: Record) -> list[str]:
    """The record's id, then each alias (an alias equal to the id is no second name)."""
    return [record.id, *(a for a in record.aliases if a != record.id)]


def _canonical_names(records: list[Record]) -> dict[str, str]:
    """Every id and alias -> its record's id; a name claimed twice is refused (it would be two files)."""
    owner: dict[str, str] = {}
    for record in records:
        for name in _names(record):
            _record_path(name)
            if name in owner:
                raise ValueError(f"{name!r} is claimed by both {owner[name]!r} and {record.id!r}")
            owner[name] = record.id
    return owner


def record_document(record: Record, names: dict[str, str], links: Links) -> dict[str, Any]:
    """What `errors/<id>.json` holds: the record as written (all of it, EN and ZH) plus derived links."""
    doc: dict[str, Any] = {"links": links.pages(record.id), "record": record.model_dump(mode="json", exclude_none=True)}
    permalink = record.permalink()
    if permalink is not None:
        doc["links"]["source"] = permalink
    counted = evidence_document(record)
    if counted:
        doc["evidence"] = counted
    doc["best_fix"] = best_fix_document(record)
    doc["card"] = record_card(doc, title(record), page_title(record, "zh"))
    if record.superseded_by is not None:
        successor = names.get(record.superseded_by)
        if successor is None:
            raise ValueError(f"{record.id!r} is superseded by {record.superseded_by!r}, which no record is named")
        doc["successor"] = {"id": successor, "links": links.pages(successor)}
    return doc


def index_entry(record: Record, names: dict[str, str], links: Links) -> dict[str, Any]:
    """One line of `errors.json`: what a listing or a lookup by legacy id needs."""
    entry: dict[str, Any] = {
        "id": record.id,
        "aliases": _names(record)[1:],
        "message": record.error.message,
        "repo": record.repo,
        "category": record.category,
        "severity": record.error.severity,
        "tags": list(record.tags),
        "last_updated": record.provenance.last_updated,
        "links": links.pages(record.id),
    }
    if record.error.message_zh is not None:
        entry["message_zh"] = record.error.message_zh
    if record.superseded_by is not None:
        entry["superseded_by"] = names[record.superseded_by]
    return entry


def title(record: Record) -> str:
    """The question a page answers, as people ask it: the English page's own title."""
    return page_title(record, "en")


def match_entry(record: Record, names: dict[str, str], links: Links, card: dict[str, Any]) -> dict[str, Any]:
    """One pattern of `match.json`: enough to match a log line offline and link to the answer.

    Besides the pattern as written, it carries its analysis (generator.match.rules.pattern_analysis): the pattern
    for JavaScript's `new RegExp(js_source, js_flags)` (same meaning), `literals` (every match contains one of
    them; lower-cased when js_flags has `i`) for a prefilter, and `specificity`, `anchored` and `exception_name`
    for ranking; and its answer card (`card`, the one of its `record_document`), which the paste page shows.
    """
    from ..match.rules import pattern_analysis

    entry: dict[str, Any] = {
        "id": record.id,
        "regex": record.error.regex,
        "message": record.error.message,
        "severity": record.error.severity,
        "repo": record.repo,
        "title": title(record),
        "title_zh": page_title(record, "zh"),
        "html": links.html(record.id),
        **pattern_analysis(record.error.regex, record.error.exception_class),
    }
    if record.error.exception_class is not None:
        entry["exception_class"] = record.error.exception_class
    if record.superseded_by is not None:
        entry["superseded_by"] = names[record.superseded_by]
    entry["card"] = card
    return entry


def stats_document(records: list[Record]) -> dict[str, Any]:
    """Counts by project, category, severity, verification tier, and how much is translated."""
    severity = Counter({s: 0 for s in SEVERITIES})
    tier = Counter({t: 0 for t in TIERS})
    complete = partial = none = fields = fields_translated = 0
    for record in records:
        severity[record.error.severity] += 1
        tier[record.provenance.verification_tier] += 1
        total, done = translation_slots(record.model_dump(mode="json", exclude_none=True))
        fields += total
        fields_translated += done
        if done == total:
            complete += 1
        elif done:
            partial += 1
        else:
            none += 1
    return {
        "records": len(records),
        "aliases": sum(len(_names(r)) - 1 for r in records),
        "superseded": sum(r.superseded_by is not None for r in records),
        "by_repo": dict(Counter(r.repo for r in records)),
        "by_category": dict(Counter(r.category for r in records)),
        "by_severity": dict(severity),
        "by_verification_tier": dict(tier),
        "translation": {
            "records_complete": complete,
            "records_partial": partial,
            "records_untranslated": none,
            "fields": fields,
            "fields_translated": fields_translated,
            "coverage": round(fields_translated / fields, 4) if fields else 0.0,
        },
    }


def dataset_version(ndjson: bytes) -> str:
    """The dataset version: the first 16 hex digits of the sha256 of `errors.ndjson` (which holds every record)."""
    return hashlib.sha256(ndjson).hexdigest()[:DATASET_VERSION_LENGTH]


def api_files(records: list[Record], *, base: str = "/", extra: dict[str, bytes] | None = None,
              extra_paths: dict[str, Any] | None = None, unlisted: str | None = None) -> dict[str, bytes]:
    """Every file of the API: path relative to `api/` -> its exact bytes.

    Pure and deterministic: the same records (in any order) give the same bytes. `base` is the URL path the
    site is served under (`/` at a domain's root, `/errdex/` for a project page); it only changes link values.
    Raises ValueError for an id or alias that cannot be a safe path, a name claimed twice, or a successor that
    names no record.
    """
    links = Links(base)
    records = sorted(records, key=lambda r: r.id)
    names = _canonical_names(records)
    files: dict[str, bytes] = {}
    docs = {r.id: record_document(r, names, links) for r in records}
    lines = []
    for record in records:
        body = encode_json(docs[record.id])
        lines.append(body)  # a line of errors.ndjson is the record's file, byte for byte
        for name in _names(record):
            files[_record_path(name)] = body  # an alias serves the very same bytes
    files[api_path("index")] = encode_json({"count": len(records), "errors": [index_entry(r, names, links) for r in records]})
    files[api_path("match")] = encode_json(match_document([match_entry(r, names, links, docs[r.id]["card"]) for r in records]))
    files[api_path("stats")] = encode_json(stats_document(records), pretty=True)
    files[api_path("schema")] = schema_text().encode("utf-8")
    files[api_path("ndjson")] = b"".join(lines)
    version = dataset_version(files[api_path("ndjson")])
    files.update(extra or {})  # the catalog's files (generator/site/catalogpages.py), described by extra_paths
    document = openapi_document(records, files, docs, names, version, base)
    document["paths"] = dict(sorted({**document["paths"], **(extra_paths or {})}.items()))
    files[api_path("openapi")] = encode_json(document, pretty=True)
    # Files matching `unlisted` (the catalog's one file per entry: tens of thousands) are left out of the manifest;
    # each is listed, with its digest, where its group's index names it.
    listed = sorted(p for p in files if not (unlisted and re.fullmatch(unlisted, p)))
    files[api_path("manifest")] = encode_json(
        {
            "api_version": API_VERSION,
            "dataset_version": version,
            "records": len(records),
            "files": {path: file_entry(files[path]) for path in listed},
        }
    )
    return dict(sorted(files.items()))


def safe_relpath(path: str) -> PurePosixPath:
    """`path` as a relative POSIX path that stays inside its folder; ValueError for anything else."""
    if not isinstance(path, str) or not path or "\\" in path or "\x00" in path or path.startswith("/"):
        raise ValueError(f"refusing API path {path!r}: not a plain relative path")
    parts = path.split("/")
    if any(not _SEGMENT.fullmatch(part) or part in (".", "..") for part in parts):
        raise ValueError(f"refusing API path {path!r}: empty, dot or unexpected segment")
    return PurePosixPath(*parts)


def write_api(records: list[Record], dest: Path, *, base: str = "/", reuse: Reuse | None = None, **catalog: Any) -> None:
    """Write the API files into `dest` (created if needed), replacing files of the same name. `reuse`: the API
    folder of the build this one replaces, whose files of the same bytes are linked rather than written
    (generator.safefs.Reuse).

    Every path is checked before anything is written: a path that would land outside `dest` (through `..`,
    an absolute path, or a symlink already inside `dest`) raises ValueError and nothing is written. Files in
    `dest` that are not part of the API are left alone, so build into a fresh folder for an exact tree.
    """
    files = api_files(records, base=base, **catalog)
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    root = os.path.realpath(dest)  # paths as strings: tens of thousands of files
    targets: list[tuple[str, str, bytes]] = []
    inside: dict[str, bool] = {}  # folder -> whether it resolves inside dest (tens of thousands of files share a few)
    for rel, body in files.items():
        parts = safe_relpath(rel).parts
        target = os.path.join(root, *parts)
        folder = os.path.dirname(target)
        if folder not in inside:
            inside[folder] = safefs.inside(folder, root)
        if not inside[folder] or (os.path.islink(target) and not safefs.inside(target, root)):
            raise ValueError(f"refusing API path {rel!r}: it resolves outside {dest}")
        targets.append((target, "/".join(parts), body))
    made: set[str] = set()
    reuse = reuse or Reuse(None)
    for target, rel, body in targets:
        folder = os.path.dirname(target)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        try:  # a new file is written in place (O_EXCL: never through anything already there, a link included)
            reuse.write(target, rel, body)
        except FileExistsError:  # a file that is there is replaced whole
            tmp = os.path.join(folder, f".{os.path.basename(target)}.tmp")
            Path(tmp).write_bytes(body)
            os.replace(tmp, target)
