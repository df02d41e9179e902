"""The `errdex` command line: every command, its options and help text, and the function that runs it."""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import __version__
from ..findings import FORMATTERS
from ..records import DATA_ROOT
from .commands import (
    cmd_build,
    cmd_bundle,
    cmd_guides,
    cmd_harvest,
    cmd_harvest_merge,
    cmd_import,
    cmd_mark_translated,
    cmd_match,
    cmd_mcp,
    cmd_new,
    cmd_schema,
    cmd_serve,
    cmd_stats,
    cmd_symbols,
    cmd_validate,
    cmd_verify_sources,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="errdex", description="Find the known errors in a log, and check, build and query the errdex error knowledge base.")
    parser.add_argument("--version", action="version", version=f"errdex {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    # People who look an error up first, then contributors, then maintainers: `errdex --help` lists them so.
    p = sub.add_parser("match", help="find the known errors in a log or traceback (records and the catalog's messages), ranked, with their pages")
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="the log to read; - or nothing for standard input")
    p.add_argument("--format", choices=["text", "json"], default="text", help="output format (default: text)")
    p.add_argument("--top", type=int, default=10, metavar="N", help="show the N best answers (default: 10)")
    p.add_argument("--index", default=None, metavar="PATH_OR_URL", help="match with the patterns of an API match.json (a file, or its https:// address) instead of the records")
    p.add_argument("--data", type=Path, default=None, help="the records folder (default: data/errors here, else the checkout's, else the knowledge bundle installed with errdex)")
    p.add_argument("--no-catalog", action="store_false", dest="catalog", help="leave out the catalog entries (every message the projects' releases raise, data/catalog), which are found by default")
    p.add_argument("--catalog", action="store_true", dest="explicit_catalog", help="find catalog entries too (the default; kept for scripts that pass it)")
    p.add_argument("--version", action="append", metavar="PROJECT==RELEASE", dest="versions", help="the release the log comes from (e.g. vllm==0.11.0), repeatable; what it raises ranks first, what it lacks last")
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("mcp", help="serve the records and the catalog to AI agents: a Model Context Protocol server on stdio")
    p.add_argument("--api", default=None, metavar="PATH_OR_URL", help="answer from a built API folder (site/api) or a published one (https://.../api/) instead of the records")
    p.add_argument("--data", type=Path, default=None, help="the records folder (default: data/errors here, else the repository's)")
    p.add_argument("--catalog", type=Path, default=None, help="the message catalog folder (default: data/catalog beside the records, when present)")
    p.add_argument("--cache-dir", type=Path, default=None, help="where a fetched API is kept (default: $XDG_CACHE_HOME/errdex or ~/.cache/errdex)")
    p.add_argument("--repo-url", default=None, help="where report_outcome files issues (default: repo_url in mkdocs.yml)")
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser("build", help="check all records, then build the site and the JSON API")
    p.add_argument("--out", type=Path, default=Path("site"), help="output folder, replaced only by a complete build (default: site)")
    p.add_argument("--data", type=Path, default=DATA_ROOT, help="the records folder (default: data/errors)")
    p.add_argument("--strict", action="store_true", help="refuse to build when there are warnings too")
    p.add_argument("--quiet", action="store_true", help="no progress output")
    p.add_argument("--no-catalog", action="store_true", help="leave out the message catalog (data/catalog beside the records)")
    p.set_defaults(func=cmd_build)

    p = sub.add_parser("serve", help="serve a built site on localhost")
    p.add_argument("--dir", type=Path, default=Path("site"), help="the built site (default: site)")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000)
    p.set_defaults(func=cmd_serve)

    p = sub.add_parser("new", help="write a commented template for a new record")
    p.add_argument("id", help="the new record's id, e.g. vllm/kv-cache-out-of-memory")
    p.add_argument("--root", type=Path, default=DATA_ROOT, help="the records folder (default: data/errors)")
    p.add_argument("--from-catalog", default=None, metavar="ENTRY", help="prefill project, message, pattern and exception from a catalog entry (errdex match --catalog names them)")
    p.add_argument("--catalog", type=Path, default=None, help="with --from-catalog: the catalog (default: data/catalog beside the records)")
    p.set_defaults(func=cmd_new)

    p = sub.add_parser("validate", help="check records against the schema and the coded checks")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="record files or folders (default: data/errors)")
    p.add_argument("--format", choices=sorted(FORMATTERS), default="text", help="output format (default: text)")
    p.add_argument("--strict", action="store_true", help="treat warnings as errors")
    p.add_argument("--root", type=Path, default=DATA_ROOT, help="the folder whose layout gives record ids (default: data/errors)")
    p.add_argument("--base", metavar="REV", help="also check that no id or alias that existed at git revision REV is gone")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("mark-translated", help="record that the Chinese texts of records were reviewed against their English")
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="record files or folders")
    p.add_argument("--root", type=Path, default=DATA_ROOT, help="the records folder (default: data/errors)")
    p.set_defaults(func=cmd_mark_translated)

    p = sub.add_parser("import", help="convert ErrLookup or deadends.dev records into errdex records")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE", help="JSON (a record, an envelope or a list) or NDJSON")
    p.add_argument("--root", type=Path, default=DATA_ROOT, help="the records folder (default: data/errors)")
    p.add_argument("--force", action="store_true", help="re-import: merge an entry into the record imported from it before (only adds; no record is ever replaced)")
    p.add_argument("--repo", default=None, help="OWNER/NAME for deadends records whose names tell no known project")
    p.add_argument("--no-merge", action="store_true", help="write a separate record even where one of the same error exists")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("verify-sources", help="compare each snippet with the real file at its pinned commit")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="record files or folders (default: data/errors)")
    p.add_argument("--git", action="append", default=[], metavar="OWNER/NAME=PATH", help="read OWNER/NAME from a local git checkout or mirror (repeatable)")
    p.add_argument("--online", action="store_true", help="fetch files from the raw-file host (off by default: nothing is fetched unless asked)")
    p.add_argument("--base-url", default=None, help="raw-file host, files at BASE/OWNER/NAME/COMMIT/PATH (default: https://raw.githubusercontent.com)")
    p.add_argument("--release", action="store_true", help="check each snippet in the release artifact its record names (source.release): the exact file the package index lists, sha256-checked, read as an archive (nothing in it is run), kept in the cache; with --catalog: fetch the releases the cache lacks")
    p.add_argument("--find-links", action="append", default=[], type=Path, metavar="DIR", help="with --release: take artifacts from this folder only, offline (repeatable)")
    p.add_argument("--cache", type=Path, default=None, metavar="DIR", help="with --release or --catalog: the cache of artifacts and harvested sources (default: $ERRDEX_CACHE or ~/.cache/errdex)")
    p.add_argument("--format", choices=sorted(FORMATTERS), default="text")
    p.add_argument("--strict", action="store_true", help="treat warnings as errors")
    p.add_argument("--root", type=Path, default=DATA_ROOT, help=argparse.SUPPRESS)
    p.add_argument("--catalog", action="store_true", help="instead of records, re-extract catalog entries from the cached release sources")
    p.add_argument("--sample", type=int, default=50, metavar="N", help="with --catalog: how many random entries to re-extract (default: 50; 0 for all)")
    p.add_argument("--seed", type=int, default=None, help="with --catalog: random seed, to repeat a sample")
    p.set_defaults(func=cmd_verify_sources)

    p = sub.add_parser("harvest", help="extract every error message of projects' releases into data/catalog (exit 0: all harvested; 3: some release could not be fetched, the rest was; 1: none could be, or a crash)")
    p.add_argument("projects", nargs="*", metavar="PROJECT", help="project slugs from data/catalog/projects.yaml (default: all)")
    p.add_argument("--releases", nargs="+", metavar="VERSION", help="harvest these releases (default: those listed in projects.yaml); the project's catalog file then holds these alone: with --out, a trial")
    p.add_argument("--new", action="store_true", help="add only upstream releases newer than the catalog's last (and list them in projects.yaml)")
    p.add_argument("--cache", type=Path, default=None, help="the download and extraction cache (default: ~/.cache/errdex or $ERRDEX_CACHE)")
    p.add_argument("--git", action="append", default=[], metavar="OWNER/NAME=PATH", help="a local clone or mirror for a project read from git (repeatable)")
    p.add_argument("--jobs", type=int, choices=[1, 2], default=2, help="2 (the default): a second process fetches and extracts every other release (the same catalog, on both cores); 1: one process")
    p.add_argument("--config", type=Path, default=None, help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, default=None, metavar="DIR", help="write the catalog files into DIR, not data/catalog")
    p.set_defaults(func=cmd_harvest)

    p = sub.add_parser("harvest-merge", help="put the parts of a harvest run one project a job (the weekly workflow's matrix) back into data/catalog")
    p.add_argument("parts", nargs="+", type=Path, metavar="PART", help="a folder with one project's <project>.jsonl, symbols/<project>.jsonl, and its job's releases.json and projects.yaml")
    p.add_argument("--config", type=Path, default=None, help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_harvest_merge)

    p = sub.add_parser("symbols", help="index the names each release of the Python projects defines (modules, classes, methods, parameters, registries), and the flags of the Rust launchers' clap structs, into data/catalog/symbols, for version-drift answers")
    p.add_argument("projects", nargs="*", metavar="PROJECT", help="project slugs from data/catalog/projects.yaml (default: every Python project from the package index)")
    p.add_argument("--cache", type=Path, default=None, help="the download and extraction cache (default: ~/.cache/errdex or $ERRDEX_CACHE)")
    p.add_argument("--jobs", type=int, default=2, metavar="N", help="processes that read files (default: 2)")
    p.add_argument("--releases", nargs="+", metavar="VERSION", help="index these releases (default: those listed in projects.yaml); with one PROJECT")
    p.add_argument("--new", action="store_true", help="add only the releases projects.yaml lists after the index's last (after `errdex harvest --new`)")
    p.add_argument("--modules", nargs="+", metavar="MODULE", help="keep only these modules (pkg.* for its submodules too): a small index, for test fixtures")
    p.add_argument("--git", action="append", default=[], metavar="OWNER/NAME=PATH", help="a local clone or mirror for a project read from git (repeatable)")
    p.add_argument("--config", type=Path, default=None, help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_symbols)

    p = sub.add_parser("guides", help="read each user-facing catalog entry's guide from the code at its newest site (the guarding condition, the comment above, the function's docstring, the options it names) into data/catalog")
    p.add_argument("projects", nargs="*", metavar="PROJECT", help="project slugs from data/catalog/projects.yaml (default: all)")
    p.add_argument("--cache", type=Path, default=None, help="the download and extraction cache (default: ~/.cache/errdex or $ERRDEX_CACHE)")
    p.add_argument("--git", action="append", default=[], metavar="OWNER/NAME=PATH", help="a local clone or mirror for a project read from git (repeatable)")
    p.add_argument("--again", action="store_true", help="read every guide again, also those whose site did not change (after the guide reader changed)")
    p.add_argument("--config", type=Path, default=None, help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_guides)

    p = sub.add_parser("stats", help="per project: catalog templates, user-facing ones, curated records and coverage")
    p.add_argument("--data", type=Path, default=DATA_ROOT, help="the records folder (default: data/errors)")
    p.add_argument("--catalog", type=Path, default=None, help="the catalog folder (default: data/catalog)")
    p.add_argument("--links", type=Path, default=None, metavar="FILE", help="also write the record -> catalog entry links as JSON")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("bundle", help="write the knowledge bundle (the records and the catalog, compiled) that an installed wheel answers from")
    p.add_argument("--data", type=Path, default=DATA_ROOT, help="the records folder (default: data/errors)")
    p.add_argument("--catalog", type=Path, default=None, help="the catalog folder (default: data/catalog beside the records)")
    p.add_argument("--out", type=Path, default=None, help="where to write it (default: generator/data/knowledge.bundle, which the wheel ships)")
    p.set_defaults(func=cmd_bundle)

    p = sub.add_parser("schema", help="print the record JSON Schema, or write it to schema/error.schema.json")
    p.add_argument("--write", action="store_true", help="write schema/error.schema.json instead of printing")
    p.set_defaults(func=cmd_schema)
    return parser
