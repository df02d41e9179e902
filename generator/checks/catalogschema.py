"""The JSON Schemas of the catalog's files, made here from one set of field shapes.

`schema/catalog.schema.json` (a line of `<project>.jsonl`), `schema/catalog-releases.schema.json`
(releases.json), `schema/catalog-projects.schema.json` (projects.yaml, the harvest configuration) and
`schema/catalog-links.schema.json` (links.json) and `schema/catalog-symbols.schema.json` (a line of the symbol index,
data/catalog/symbols/<project>.jsonl) are this module's output, committed for editors and other tools;
`write_schemas()` refreshes them and a test fails when one is stale.

Catalog text is upstream text: a release name, a path or a function name reaches pages, URLs and file names. So
every field that names something has a tight ASCII shape (no space where none is needed, no markup, no
controls), and the free text (templates, statements, patterns) is checked for the character classes of
generator/chars.py by the checks (generator/checks/catalogparts.py), the one definition of those classes.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

SCHEMA_DIR = Path(__file__).resolve().parents[2] / "schema"
BASE = "https://errdex.dev/schema/"
FREE_TEXT = ("free text: any characters but those generator/chars.py refuses (controls but tab and line feed, "
             "surrogates, non-characters, invisible and direction-changing characters), checked by `errdex validate`")

_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_TEMPLATE_ARGS = r"<[A-Za-z0-9_:*&]+(?:, ?[A-Za-z0-9_:*&]+)*>"
_NAME_PART = rf"(?:~?{_IDENT}(?:{_TEMPLATE_ARGS})?|operator(?:\(\)|\[\]|[-+*/%^&|!=<>]{{1,3}})|<[a-z]{{1,20}}>)"

# Versions are URL path segments and file names as they are: letters, digits, '.' and '-' only.
VERSION = {"type": "string", "maxLength": 64, "pattern": r"^v?[0-9][0-9A-Za-z.-]{0,62}$"}
SLUG = {"type": "string", "maxLength": 64, "pattern": r"^[a-z0-9][a-z0-9.-]{0,63}$"}
ENTRY_ID = {"type": "string", "pattern": r"^[a-z0-9][a-z0-9.-]{0,63}/[0-9a-f]{16}$"}
RECORD_ID = {"type": "string", "maxLength": 200, "pattern": r"^[a-z0-9]+(?:-[a-z0-9]+)*(?:/[a-z0-9]+(?:-[a-z0-9]+)*){0,3}$"}
# A file inside the repository: segments of letters, digits and _ . + -, none '.' or '..'.
PATH = {"type": "string", "maxLength": 500, "pattern": r"^(?!(?:.*/)?\.\.?(?:/|$))[A-Za-z0-9_.+-]+(?:/[A-Za-z0-9_.+-]+)*$"}
# fnmatch globs: `*`, `?`, `[...]` and `[!...]` (a class that excludes)
GLOB = {"type": "string", "maxLength": 300, "pattern": r"^(?!(?:.*/)?\.\.(?:/|$))(?:[A-Za-z0-9_.*?+/\]-]|\[!?)+$"}
PREFIX = {"type": "string", "maxLength": 300, "pattern": r"^(?!(?:.*/)?\.\.?/)(?:[A-Za-z0-9_.+-]+/)*$"}
REPO = {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/(?!\.\.?$)[A-Za-z0-9._-]{1,100}$"}
PACKAGE = {"type": "string", "pattern": r"^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,98}[A-Za-z0-9])?$"}
ARTIFACT = {"type": "string", "pattern": r"^[A-Za-z0-9][A-Za-z0-9_.+-]{0,250}\.(?:whl|tar\.gz|tar\.bz2|zip)$"}
HEX64 = {"type": "string", "pattern": r"^[0-9a-f]{64}$"}
HEX40 = {"type": "string", "pattern": r"^[0-9a-f]{40}$"}
# Python, C++ and Rust names: `Class.method`, `ns::Class<T>::~Class`, `operator()`, `<lambda>`, `type name`.
FUNCTION = {"type": "string", "maxLength": 200, "pattern": rf"^(?:{_IDENT}(?:::{_IDENT})*[*&]* )?{_NAME_PART}(?:(?:::|\.){_NAME_PART})*$"}
EXCEPTION = {"type": "string", "maxLength": 200, "pattern": rf"^{_IDENT}(?:(?:\.|::){_IDENT})*$"}
_URL_CHAR = r"(?:[A-Za-z0-9_./#%+=~-]|\{(?:version|path|line)\})"
SOURCE_URL = {"type": "string", "maxLength": 500, "pattern": rf"^https://[A-Za-z0-9.-]+/{_URL_CHAR}*\{{path\}}{_URL_CHAR}*$"}


def _text(low: int, high: int, description: str = FREE_TEXT) -> dict[str, Any]:
    return {"type": "string", "minLength": low, "maxLength": high, "description": description}


def _list(items: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"type": "array", "items": items, **more}


def _object(properties: dict[str, Any], required: list[str], **more: Any) -> dict[str, Any]:
    return {"type": "object", "additionalProperties": False, "required": required, "properties": properties, **more}


def _document(name: str, title: str, description: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": BASE + name, "title": title,
            "description": description, **body}


def entry_schema() -> dict[str, Any]:
    site = _object({
        "from": VERSION, "to": VERSION, "path": PATH, "line": {"type": "integer", "minimum": 1},
        "statement": _text(0, 400),
        "lines": _list({"type": "array", "prefixItems": [VERSION, {"type": "integer", "minimum": 1}], "minItems": 2, "maxItems": 2},
                       minItems=2, description="when the statement moved within the range: each stretch's first release and its line, oldest first (the last is `line`)"),
    }, ["from", "to", "path", "line", "statement"])
    option = _object({
        "kind": {"enum": ["flag", "field"]},
        "name": {"type": "string", "maxLength": 100, "pattern": r"^[A-Za-z0-9_.]+$"},
        "flag": {"type": "string", "maxLength": 102, "pattern": r"^--[A-Za-z0-9][A-Za-z0-9_.-]*$"},
        "class": {"type": "string", "maxLength": 200, "pattern": rf"^{_IDENT}$"},
        "default": _text(1, 300), "help": _text(1, 300), "path": PATH, "line": {"type": "integer", "minimum": 1},
    }, ["kind", "name", "path", "line"])
    guide = _object({
        "release": VERSION, "path": PATH, "line": {"type": "integer", "minimum": 1},
        "guard": _object({"kind": {"enum": ["if", "else", "while", "except", "case", "assert"]}, "source": _text(1, 300)}, ["kind", "source"],
                         description="the condition that guards the statement: the nearest enclosing `if` test (or the `else` of one), `while`, `except` clause, `case` pattern, or the asserted condition, as source"),
        "comment": _text(1, 300, "the comment just above the statement (or above its guard); " + FREE_TEXT),
        "doc": _text(1, 300, "the first line of the enclosing function's docstring (its doc comment in C, C++ and Rust); " + FREE_TEXT),
        "options": _list(option, maxItems=4, description="configuration fields and command-line flags the condition or the message names, as declared in that release (argparse, dataclass and pydantic fields)"),
    }, ["release", "path", "line"], minProperties=4,
        description="read mechanically from the code at `release` around the newest site (generator/harvest/guides.py): what the code gives, never a curated fix")
    return _document("catalog.schema.json", "errdex catalog entry",
                     "One line of data/catalog/<project>.jsonl: one message template that a project's releases raise or log (see CATALOG_FORMAT in the README).",
                     _object({
                         "id": {**ENTRY_ID, "description": "project + '/' + the first 16 hex of sha256(project + NUL + normalised template)"},
                         "project": SLUG,
                         "template": _text(1, 20000, "the message, `{}` for each value, as in the newest release that has it; " + FREE_TEXT),
                         "pattern": _text(4, 2000, "RE2- and JavaScript-portable pattern for the template's stable part; " + FREE_TEXT),
                         "literal": _text(1, 2000, "the pattern's prefilter literal: its longest fixed text, spaces included, at most 64 characters (CAT013); " + FREE_TEXT),
                         "specificity": {"type": "integer", "minimum": 4},
                         "kind": {"enum": ["raise", "log", "warn", "assert", "http", "panic"]},
                         "exception": {"anyOf": [EXCEPTION, {"type": "null"}]},
                         "level": {"enum": ["error", "critical", "warning", None]},
                         "tier": {"enum": ["user", "internal"]},
                         "function": FUNCTION,
                         "sites": _list(site, minItems=1),
                         "releases": _list({"type": "array", "prefixItems": [VERSION, VERSION], "minItems": 2, "maxItems": 2}, minItems=1),
                         "first": VERSION,
                         "last": VERSION,
                         "variants": _list(ENTRY_ID, uniqueItems=True),
                         "guide": guide,
                     }, ["id", "project", "template", "pattern", "literal", "specificity", "kind", "exception", "level", "tier",
                         "function", "sites", "releases", "first", "last"]))


def releases_schema() -> dict[str, Any]:
    pypi = _object({"version": VERSION, "source": {"const": "pypi"}, "artifact": ARTIFACT, "sha256": HEX64}, ["version", "source", "artifact", "sha256"])
    git = _object({"version": VERSION, "source": {"const": "git"}, "repo": REPO, "tag": VERSION, "commit": HEX40}, ["version", "source", "repo", "tag", "commit"])
    row = {"type": "object", "required": ["source"], "properties": {"source": {"enum": ["pypi", "git"]}},
           "if": {"properties": {"source": {"const": "git"}}}, "then": git, "else": pypi}
    return _document("catalog-releases.schema.json", "errdex catalog releases",
                     "data/catalog/releases.json: per project, its harvested releases oldest first, each with the artifact (PyPI) or "
                     "the tag and commit (git) it was read from.",
                     {"type": "object", "propertyNames": SLUG, "additionalProperties": _list(row, minItems=1)})


def projects_schema() -> dict[str, Any]:
    platforms = _list({"type": "string", "pattern": r"^[a-z0-9_]{1,60}$"})
    python = {"type": "string", "pattern": r"^[0-9]{1,2}\.[0-9]{1,3}$"}
    call = _object({"kind": {"enum": ["raise", "log", "warn", "assert", "http", "panic"]}, "arg": {"type": "integer", "minimum": 0, "maximum": 20},
                    "level": {"enum": ["error", "critical", "warning"]}, "condition": {"type": "boolean"},
                    "joined": {"type": "boolean"}, "exception": EXCEPTION, "checks": {"type": "integer", "minimum": 0, "maximum": 20}}, ["kind"])
    calls = {"type": "object", "propertyNames": {"pattern": rf"^{_IDENT}$", "maxLength": 100}, "additionalProperties": call}
    project = _object({
        "repo": REPO, "aliases": _list(REPO), "source_url": SOURCE_URL, "source": {"enum": ["pypi", "git"]}, "package": PACKAGE,
        "artifact": {"enum": ["wheel", "sdist"]}, "strip": PREFIX, "languages": _list({"enum": ["python", "c", "cpp", "rust", "go"]}, minItems=1),
        "include": _list(GLOB), "skip": _list(GLOB), "user": _list(GLOB), "releases": _list(VERSION, uniqueItems=True),
        "c_calls": {"oneOf": [calls, {"type": "string", "pattern": r"^[a-z][a-z0-9_]{0,40}$",
                                      "description": "the name of a table in defaults.c_call_sets"}]},
        "pip_platforms": platforms, "pip_python": python,
        "symbols": _object({
            "registries": {"type": "object", "propertyNames": {"pattern": r"^[a-z][a-z0-9_]{0,40}$"},
                           "additionalProperties": _list(_object({"path": GLOB, "variable": {"type": "string", "maxLength": 100, "pattern": r"^[A-Za-z0-9_*?]+$"}},
                                                                 ["path", "variable"]), minItems=1)},
            "flag_classes": _list({"type": "string", "maxLength": 400, "pattern": rf"^{_IDENT}(?:\.{_IDENT})+$"}),
            "clap_structs": _list(_object({"path": GLOB, "struct": {"type": "string", "maxLength": 100, "pattern": rf"^{_IDENT}$"}},
                                          ["path", "struct"]), minItems=1),
            "auto_classes": _object({"path": GLOB, "classes": {"type": "string", "maxLength": 100, "pattern": r"^[A-Za-z0-9_*?]+$"},
                                     "also": {"type": "object", "propertyNames": {"pattern": rf"^{_IDENT}$", "maxLength": 100},
                                              "additionalProperties": {"type": "string", "maxLength": 100, "pattern": rf"^{_IDENT}$"}}},
                                    ["path", "classes"]),
            "compared": {"type": "object", "propertyNames": {"pattern": r"^[a-z][a-z0-9_]{0,40}$"},
                         "additionalProperties": _list(_object({"path": GLOB, "name": {"type": "string", "maxLength": 100, "pattern": rf"^{_IDENT}$"}},
                                                               ["path", "name"]), minItems=1)},
            "skip": _list(GLOB),
            "python_root": {**PREFIX, "minLength": 2},
        }, [], description="what the symbol index (data/catalog/symbols) keeps besides modules, classes and functions: registries users "
                           "hit by key (string keys of top-level dict literals: variable globs in files matching path globs) and the classes "
                           "whose fields are command-line flags (a project with any has its flags indexed), the clap-derived Rust structs "
                           "whose fields are flags (struct names in files matching path globs), transformers' auto classes (the files that "
                           "build their tables, a glob of their names, and the classes that name no table in their body), registries of the strings a variable is compared "
                           "with (a dispatch written as a chain of tests: TGI's model types), files the index leaves out "
                           "(placeholder modules, beside the catalog's own skip), and the folder an sdist keeps the importable package in "
                           "(python_root: bindings/python/py_src/ holds tokenizers/), whose Python files alone are indexed, named from it"),
    }, ["repo", "source", "languages", "releases"], **{"if": {"properties": {"source": {"const": "pypi"}}}, "then": {"required": ["package"]}})
    return _document("catalog-projects.schema.json", "errdex catalog projects",
                     "data/catalog/projects.yaml: the harvest configuration, per project where its releases come from and which files are read.",
                     _object({"defaults": _object({"pip_platforms": platforms, "pip_python": python,
                                                           "c_call_sets": {"type": "object", "propertyNames": {"pattern": r"^[a-z][a-z0-9_]{0,40}$"},
                                                                           "additionalProperties": calls}}, []),
                              "projects": {"type": "object", "propertyNames": SLUG, "additionalProperties": project}}, ["projects"]))


def links_schema() -> dict[str, Any]:
    return _document("catalog-links.schema.json", "errdex catalog links",
                     "data/catalog/links.json (`errdex stats --links`): per record id, the catalog entries the record explains.",
                     {"type": "object", "propertyNames": RECORD_ID, "additionalProperties": _list(ENTRY_ID, uniqueItems=True)})


def symbols_schema() -> dict[str, Any]:
    ident = rf"^[A-Za-z_][A-Za-z0-9_]{{0,199}}$"
    dotted = rf"^[A-Za-z_][A-Za-z0-9_]{{0,199}}(?:\.[A-Za-z_][A-Za-z0-9_]{{0,199}}){{0,31}}$"
    ranges = {"$ref": "#/$defs/ranges"}

    def named(pattern: str, value: dict[str, Any]) -> dict[str, Any]:
        return {"type": "object", "propertyNames": {"pattern": pattern, "maxLength": 6500}, "additionalProperties": value}

    params = named(r"^(?:\*\*|\*?[A-Za-z_][A-Za-z0-9_]{0,199})$", ranges)
    function = _object({"in": ranges, "params": params}, ["in"])
    klass = _object({"in": ranges, "attrs": named(ident, ranges), "bases": named(dotted, ranges),
                     "methods": named(ident, {"$ref": "#/$defs/function"})}, ["in"])
    header = _object({"format": {"const": 1}, "packages": _list({"type": "string", "pattern": ident}, maxItems=20),
                      "pip": {"oneOf": [PACKAGE, {"type": "null"}]}, "project": SLUG, "releases": _list(VERSION, minItems=1, maxItems=2000, uniqueItems=True)},
                     ["format", "packages", "pip", "project", "releases"])
    module = _object({"module": {"type": "string", "maxLength": 6500, "pattern": dotted}, "in": ranges, "names": named(ident, ranges),
                      "star": named(dotted, ranges), "classes": named(ident, {"$ref": "#/$defs/class"}),
                      "functions": named(ident, {"$ref": "#/$defs/function"})}, ["module", "in"])
    registry = _object({"registry": {"type": "string", "pattern": r"^[a-z][a-z0-9_]{0,40}$"},
                        "keys": named(r"^(?:--)?[A-Za-z0-9_][A-Za-z0-9_.+=-]{0,199}$", ranges)}, ["registry", "keys"])
    return _document("catalog-symbols.schema.json", "errdex symbol index line",
                     "One line of data/catalog/symbols/<project>.jsonl (`errdex symbols`): the header (first), a module with the names "
                     "it defines, or a registry's keys. A ranges string holds runs of indexes into the header's releases "
                     "(\"0-35,40\"); \"\" means the releases of the enclosing name.",
                     {"$defs": {"ranges": {"type": "string", "maxLength": 4000,
                                           "pattern": r"^(?:[0-9]{1,4}(?:-[0-9]{1,4})?(?:,[0-9]{1,4}(?:-[0-9]{1,4})?)*)?$"},
                                "function": function, "class": klass},
                      "oneOf": [header, module, registry]})


SCHEMAS = {"catalog.schema.json": entry_schema, "catalog-releases.schema.json": releases_schema,
           "catalog-projects.schema.json": projects_schema, "catalog-links.schema.json": links_schema,
           "catalog-symbols.schema.json": symbols_schema}


def schema_text(name: str) -> str:
    """A schema file's exact text."""
    return json.dumps(SCHEMAS[name](), indent=2, ensure_ascii=False) + "\n"


def write_schemas(folder: Path = SCHEMA_DIR) -> list[Path]:
    """Write every catalog schema file into `folder`; returns their paths."""
    paths = []
    for name in SCHEMAS:
        (folder / name).write_text(schema_text(name), encoding="utf-8")
        paths.append(folder / name)
    return paths


@lru_cache(maxsize=None)
def validator(name: str):
    """A compiled validator of one of SCHEMAS (made from this module, not the file: the file is its copy)."""
    import jsonschema_rs

    return jsonschema_rs.validator_for(SCHEMAS[name]())
