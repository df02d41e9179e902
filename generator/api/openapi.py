"""The OpenAPI 3.1 description of the static JSON API (`api/openapi.json`), built from the files it describes.

Response schemas reference the record schema (`schema.json`, beside this document) instead of copying it, and
every example is cut from the real files of the same build, so the description cannot drift from the data.
An id may hold `/`, which an OpenAPI path parameter may not, so record routes are listed once per id depth
present in the data (`/errors/{part1}.json`, `/errors/{part1}/{part2}.json`, ...).
"""

from __future__ import annotations

import json
import hashlib
from typing import Any

from ..records.model import TIERS, Record
from ..records.vocabulary import SEVERITIES
from ..routes import API_ROOT, api_path, api_url, page_url

API_VERSION = "1"
OPENAPI_VERSION = "3.1.0"
_SEGMENT_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"
_JSON = "application/json"
_NDJSON = "application/x-ndjson"


def file_entry(body: bytes) -> dict[str, Any]:
    """A file's digest and size, as the manifest lists it."""
    return {"sha256": hashlib.sha256(body).hexdigest(), "size": len(body)}


def _ref(name: str) -> dict[str, str]:
    return {"$ref": f"#/components/schemas/{name}"}


def _str(description: str, **extra: Any) -> dict[str, Any]:
    return {"type": "string", "description": description, **extra}


def _count(description: str) -> dict[str, Any]:
    return {"type": "integer", "minimum": 0, "description": description}


def _counts(description: str, keys: tuple[str, ...] | None = None) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "object", "description": description, "additionalProperties": {"type": "integer", "minimum": 0}}
    if keys:
        schema["properties"] = {k: {"type": "integer", "minimum": 0} for k in keys}
        schema["required"] = list(keys)
    return schema


def _object(description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "description": description, "properties": properties, "required": required}


def component_schemas(api_version: str) -> dict[str, Any]:
    """The response shapes. They stay open (no `additionalProperties: false`): new fields may be added."""
    severity = {"type": "string", "enum": list(SEVERITIES)}
    page_links = {
        "html": _str("English page of the record.", format="uri-reference", examples=["/" + page_url("error", "transformers/failed-to-allocate-blocks-for-request")]),
        "html_zh": _str("Chinese page of the record.", format="uri-reference"),
        "json": _str("Canonical JSON URL of the record (an alias file names the canonical one here).", format="uri-reference"),
    }
    return {
        "Record": {"$ref": api_path("schema"), "description": "One error record, English and Chinese, exactly as in data/errors/<id>.yaml with defaults filled in."},
        "PageLinks": _object("Where the record lives on the site and in the API.", page_links, ["html", "html_zh", "json"]),
        "RecordLinks": _object(
            "Page links plus the source permalink.",
            {**page_links, "source": _str("GitHub permalink of the snippet that raises the error, pinned to a commit; present when the record has a source.", format="uri")},
            ["html", "html_zh", "json"],
        ),
        "RecordDocument": _object(
            "The body of errors/<id>.json, of errors/<alias>.json (the same bytes) and of each line of errors.ndjson.",
            {
                "links": _ref("RecordLinks"),
                "record": _ref("Record"),
                "successor": _object(
                    "Present when the record is retired: the record that replaces it (its canonical id, even when the YAML names it by an alias).",
                    {"id": _str("Canonical id of the successor."), "links": _ref("PageLinks")},
                    ["id", "links"],
                ),
                "best_fix": _object(
                    "The solution to try first, chosen by counted evidence: the most reports that it worked, then the fewest that it failed, then the record's order.",
                    {"fix": _str("JSON pointer of the solution in `record`, such as `/solutions/0` (its Chinese text is at the same index of `solutions_zh`)."),
                     **{k: {"type": "integer", "minimum": 0, "description": d} for k, d in (
                         ("worked", "Linked reports in which it worked."), ("failed", "Linked reports in which it failed."),
                         ("partial", "Linked reports in which it partly worked."), ("reports", "All linked reports about it; 0: not yet reported."))}},
                    ["fix", "worked", "failed", "partial", "reports"],
                ),
                "card": _ref("AnswerCard"),
            },
            ["links", "record", "best_fix", "card"],
        ),
        "AnswerCard": _object(
            "What every surface shows of a match first (the paste page, search, `errdex match`, the MCP server): the "
            "record's title, project, exception, the versions it was checked at, and its best fix.",
            {"title": _str("The record's title (English)."), "title_zh": _str("The record's title (Chinese)."),
             "project": _str("The project part of the id."), "exception": _str("The exception class, when it has one."),
             "releases": {"type": "array", "items": {"type": "array", "items": {"type": ["string", "null"]}},
                          "description": "[version, status] of the versions it was checked at (at most 4)."},
             "fix": _object("The best fix (as `best_fix` chooses it), ready to show.",
                            {"text": _str("The solution's text."), "text_zh": _str("Its Chinese text, when translated."),
                             "commands": {"type": "array", "items": {"type": "string"},
                                          "description": "Commands, environment variables and flags the text spells out, to copy."},
                             **{k: {"type": "integer", "minimum": 0} for k in ("worked", "failed", "partial", "reports")}},
                            ["text", "worked", "failed", "partial", "reports", "commands"])},
            ["title", "title_zh", "project", "releases"],
        ),
        "IndexEntry": _object(
            "One record in the index.",
            {
                "id": _str("Canonical id."),
                "aliases": {"type": "array", "items": {"type": "string"}, "description": "Legacy ids that also resolve to this record."},
                "message": _str("Message template; `{}` marks a value filled in at run time."),
                "message_zh": _str("Chinese rendering of the message, when there is one."),
                "repo": _str("The project whose code raises the error (owner/name)."),
                "category": _str("Category slug."),
                "severity": severity,
                "tags": {"type": "array", "items": {"type": "string"}},
                "last_updated": _str("Date the record was last updated.", format="date"),
                "links": _ref("PageLinks"),
                "superseded_by": _str("Canonical id of the successor, when the record is retired."),
            },
            ["id", "aliases", "message", "repo", "category", "severity", "tags", "last_updated", "links"],
        ),
        "Index": _object(
            "errors.json: every record, sorted by id.",
            {"count": _count("Number of records."), "errors": {"type": "array", "items": _ref("IndexEntry")}},
            ["count", "errors"],
        ),
        "MatchEntry": _object(
            "One pattern to match against a log line.",
            {
                "id": _str("Canonical id."),
                "regex": _str("Pattern in the portable subset of RE2 and JavaScript; search (not full-match) a line with it."),
                "message": _str("Message template."),
                "severity": severity,
                "repo": _str("Project (owner/name)."),
                "title": _str('The question the page answers: What causes "<message>" in <repo>?'),
                "title_zh": _str("The same question as the Chinese page asks it."),
                "html": _str("English page of the record.", format="uri-reference"),
                "js_source": _str("The same pattern for JavaScript: `new RegExp(js_source, js_flags)` matches what `regex` matches in RE2."),
                "js_flags": _str("Flags for `new RegExp`: always `u`, plus `i` for a case-insensitive pattern."),
                "literals": {"type": "array", "items": {"type": "string"}, "description": "Every match contains one of these fixed strings (lower-cased when js_flags has `i`): a cheap prefilter before running the pattern."},
                "specificity": _count("How many literal characters the pattern spells out; more is more specific (a ranking hint)."),
                "anchored": {"type": "boolean", "description": "The pattern starts with `^` or ends with `$` (a ranking hint; see `rules`)."},
                "exception_class": _str("Exception class raised, when known."),
                "exception_name": _str("The exception class without its module: named on the matched line, it raises the score (see `rules`)."),
                "superseded_by": _str("Canonical id of the successor, when the record is retired: prefer the successor's page."),
            },
            ["id", "regex", "message", "severity", "repo", "title", "title_zh", "html", "js_source", "js_flags", "literals", "specificity", "anchored"],
        ),
        "MatchRules": _object(
            "How a match is scored: specificity, plus these bonuses, minus the penalty (errdex match and the site use the same).",
            {
                "exception_bonus": _count("Added when the record's exception name is on the matched line."),
                "anchored_bonus": _count("Added for an anchored pattern."),
                "repeat_bonus_cap": _count("One point per further occurrence, at most this many."),
                "retired_penalty": _count("Subtracted for a retired record."),
                "lines_kept": _count("How many line numbers a result keeps."),
            },
            ["exception_bonus", "anchored_bonus", "repeat_bonus_cap", "retired_penalty", "lines_kept"],
        ),
        "Match": _object(
            "match.json: the ranking rules and every record's pattern, sorted by id.",
            {"count": _count("Number of patterns (one per record)."), "rules": _ref("MatchRules"), "patterns": {"type": "array", "items": _ref("MatchEntry")}},
            ["count", "rules", "patterns"],
        ),
        "Stats": _object(
            "stats.json: counts over the dataset.",
            {
                "records": _count("Number of records."),
                "aliases": _count("Number of aliases (legacy ids) over all records."),
                "superseded": _count("Number of retired records."),
                "by_repo": _counts("Records per project."),
                "by_category": _counts("Records per category."),
                "by_severity": _counts("Records per severity (every severity listed, zeros included).", SEVERITIES),
                "by_verification_tier": _counts("Records per verification tier (every tier listed).", TIERS),
                "translation": _object(
                    "Chinese coverage. A field counts when its English text is present; it is translated when its `_zh` sibling is.",
                    {
                        "records_complete": _count("Records with every field translated."),
                        "records_partial": _count("Records with some fields translated."),
                        "records_untranslated": _count("Records with no field translated."),
                        "fields": _count("Translatable fields present over all records."),
                        "fields_translated": _count("Of those, the ones with Chinese text."),
                        "coverage": {"type": "number", "minimum": 0, "maximum": 1, "description": "fields_translated / fields, rounded to 4 decimals (0 when there are no fields)."},
                    },
                    ["records_complete", "records_partial", "records_untranslated", "fields", "fields_translated", "coverage"],
                ),
            },
            ["records", "aliases", "superseded", "by_repo", "by_category", "by_severity", "by_verification_tier", "translation"],
        ),
        "FileEntry": _object(
            "A file's digest and size.",
            {"sha256": _str("Lower-case hex sha256 of the file's bytes.", pattern="^[0-9a-f]{64}$"), "size": _count("Size in bytes.")},
            ["sha256", "size"],
        ),
        "Manifest": _object(
            "manifest.json: the versions, and the digest of every other file under api/.",
            {
                "api_version": _str("Major version of the API; it changes only with a breaking change.", examples=[api_version]),
                "dataset_version": _str("First 16 hex digits of the sha256 of errors.ndjson: changes exactly when a record changes.", pattern="^[0-9a-f]{16}$"),
                "records": _count("Number of records."),
                "files": {"type": "object", "description": "Path relative to api/ -> digest and size, for every file but manifest.json.", "additionalProperties": _ref("FileEntry")},
            },
            ["api_version", "dataset_version", "records", "files"],
        ),
    }


def _json_response(description: str, schema: dict[str, Any], examples: dict[str, Any] | None = None) -> dict[str, Any]:
    media: dict[str, Any] = {"schema": schema}
    if examples:
        media["examples"] = examples
    return {"200": {"description": description, "content": {_JSON: media}}}


def _get(operation_id: str, summary: str, description: str, responses: dict[str, Any], parameters: list | None = None) -> dict[str, Any]:
    op: dict[str, Any] = {"operationId": operation_id, "summary": summary, "description": description, "responses": responses}
    if parameters:
        op["parameters"] = parameters
    return {"get": op}


def _record_paths(records: list[Record], docs: dict[str, dict], names: dict[str, str]) -> dict[str, Any]:
    """One path per id depth present: the first name (canonical ids before aliases) of each depth is its example."""
    by_depth: dict[int, str] = {}
    for name in sorted(names, key=lambda n: (names[n] != n, n)):
        by_depth.setdefault(name.count("/") + 1, name)
    paths: dict[str, Any] = {}
    for depth, name in sorted(by_depth.items()):
        parts = name.split("/")
        template = "/" + api_path("record", "/".join(f"{{part{i}}}" for i in range(1, depth + 1)))
        parameters = [
            {
                "name": f"part{i}",
                "in": "path",
                "required": True,
                "description": f"Part {i} of {depth} of a {depth}-part record id or alias (the parts are joined by `/`).",
                "schema": {"type": "string", "pattern": _SEGMENT_PATTERN},
                "example": part,
            }
            for i, part in enumerate(parts, 1)
        ]
        kind = "id" if names[name] == name else f"alias of {names[name]}"
        responses = _json_response(
            "The record with its links. An alias serves the same bytes as its canonical id.",
            _ref("RecordDocument"),
            {"record": {"summary": f"GET {api_url('record', name, '/')} ({kind})", "value": docs[names[name]]}},
        )
        responses["404"] = {"description": "No record has this id or alias."}
        paths[template] = _get(
            f"getRecord{depth}",
            f"One record by a {depth}-part id or alias",
            "The whole record, English and Chinese, plus derived links. Legacy ids (aliases) serve the canonical record, "
            "whose `record.id` and `links.json` name the canonical id. A retired record keeps its file and names its `successor`.",
            responses,
            parameters,
        )
    return paths


def openapi_document(
    records: list[Record],
    files: dict[str, bytes],
    docs: dict[str, dict],
    names: dict[str, str],
    dataset_version: str,
    base: str = "/",
) -> dict[str, Any]:
    """The OpenAPI 3.1 document for this build. `files` must already hold every file except openapi.json and
    manifest.json; the examples are taken from them."""
    def loaded(path: str) -> Any:
        return json.loads(files[path])

    index, match = loaded(api_path("index")), loaded(api_path("match"))
    index["errors"], match["patterns"] = index["errors"][:2], match["patterns"][:2]
    first_line = files[api_path("ndjson")].split(b"\n", 1)[0].decode("utf-8")
    manifest_example = {
        "api_version": API_VERSION,
        "dataset_version": dataset_version,
        "records": len(records),
        "files": {p: file_entry(files[p]) for p in (api_path("index"), api_path("match"), api_path("schema"))},
    }
    paths: dict[str, Any] = {
        "/" + api_path("manifest"): _get(
            "getManifest",
            "Versions and file digests: start here",
            "The API version, the dataset version and the sha256 and size of every other file. Poll this small file; "
            "fetch another file only when its sha256 differs from the copy you hold.",
            _json_response("The manifest.", _ref("Manifest"), {"manifest": {"summary": "Cut to three files", "value": manifest_example}}),
        ),
        "/" + api_path("index"): _get(
            "getIndex",
            "Index of all records",
            "Id, message, project, category, severity, tags, last update and links of every record, sorted by id. Compact JSON.",
            _json_response("The index.", _ref("Index"), {"index": {"summary": f"The first entries of {len(records)}", "value": index}}),
        ),
        "/" + api_path("match"): _get(
            "getMatchPatterns",
            "Patterns to match error text offline",
            "Each record's regex with what a client shows for a hit. Search a log line with every pattern; a hit links to the page. Compact JSON.",
            _json_response("The patterns.", _ref("Match"), {"match": {"summary": f"The first patterns of {len(records)}", "value": match}}),
        ),
        "/" + api_path("stats"): _get(
            "getStats",
            "Counts over the dataset",
            "Records by project, category, severity and verification tier, and translation coverage.",
            _json_response("The counts.", _ref("Stats"), {"stats": {"summary": "This build's counts", "value": loaded(api_path("stats"))}}),
        ),
        "/" + api_path("schema"): _get(
            "getRecordSchema",
            "The record JSON Schema",
            "JSON Schema (draft 2020-12) of one record: the `record` member of every record document validates against it. "
            "Byte-identical to schema/error.schema.json in the repository.",
            _json_response("The schema.", {"type": "object", "description": "A JSON Schema (draft 2020-12) document."}),
        ),
        "/" + api_path("openapi"): _get(
            "getOpenApi",
            "This OpenAPI document",
            "The OpenAPI 3.1 description of every route.",
            _json_response("This document.", {"type": "object", "description": "An OpenAPI 3.1 document."}),
        ),
        "/" + api_path("ndjson"): _get(
            "getDataset",
            "The whole dataset, one record per line",
            "Newline-delimited JSON: one record document per line, sorted by id, each line ending in `\\n` and byte for byte "
            "the record's errors/<id>.json file. Line separators inside text are escaped, so splitting on `\\n` is safe.",
            {
                "200": {
                    "description": "One RecordDocument per line.",
                    "content": {
                        _NDJSON: {
                            "schema": {"type": "string", "contentMediaType": _NDJSON},
                            "x-item-schema": _ref("RecordDocument"),
                            **({"examples": {"first": {"summary": "The first line", "value": first_line + "\n"}}} if records else {}),
                        }
                    },
                }
            },
        ),
    }
    paths.update(_record_paths(records, docs, names))
    return {
        "openapi": OPENAPI_VERSION,
        "info": {
            "title": "errdex JSON API",
            "version": API_VERSION,
            "summary": "Errors raised by LLM inference and serving stacks, in English and Chinese, as static JSON files.",
            "description": (
                "A read-only API made of static files: any static host serves it, no server runs. Every file is the document "
                "itself (no envelope); the API version and the dataset version are in manifest.json. Unknown fields must be "
                "ignored: fields may be added within an API version, never removed or changed in meaning. "
                f"Human documentation: {base}{page_url('api_docs', lang='en')} (English) and {base}{page_url('api_docs', lang='zh')} (Chinese)."
            ),
            "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"},
        },
        "servers": [{"url": base + API_ROOT.rstrip("/"), "description": "The site this document was built for."}],
        "paths": dict(sorted(paths.items())),
        "components": {"schemas": component_schemas(API_VERSION)},
    }
