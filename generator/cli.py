"""The `errdex` command: a thin layer that parses arguments and calls the pipeline's stages."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import __version__
from .findings import FORMATTERS
from .load import DATA_ROOT
from .terminal import Escaping, shown


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="errdex", description="Check, build and query the errdex error knowledge base.")
    parser.add_argument("--version", action="version", version=f"errdex {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("validate", help="check records against the schema and the coded checks")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="record files or folders (default: data/errors)")
    p.add_argument("--format", choices=sorted(FORMATTERS), default="text", help="output format (default: text)")
    p.add_argument("--strict", action="store_true", help="treat warnings as errors")
    p.add_argument("--root", type=Path, default=DATA_ROOT, help="the folder whose layout gives record ids (default: data/errors)")
    p.add_argument("--base", metavar="REV", help="also check that no id or alias that existed at git revision REV is gone")
    p.set_defaults(func=cmd_validate)

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

    p = sub.add_parser("import", help="convert ErrLookup or deadends.dev records into errdex records")
    p.add_argument("files", nargs="+", type=Path, metavar="FILE", help="JSON (a record, an envelope or a list) or NDJSON")
    p.add_argument("--root", type=Path, default=DATA_ROOT, help="the records folder (default: data/errors)")
    p.add_argument("--force", action="store_true", help="re-import: merge an entry into the record imported from it before (only adds; no record is ever replaced)")
    p.add_argument("--repo", default=None, help="OWNER/NAME for deadends records whose names tell no known project")
    p.add_argument("--no-merge", action="store_true", help="write a separate record even where one of the same error exists")
    p.set_defaults(func=cmd_import)

    p = sub.add_parser("mark-translated", help="record that the Chinese texts of records were reviewed against their English")
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="record files or folders")
    p.add_argument("--root", type=Path, default=DATA_ROOT, help="the records folder (default: data/errors)")
    p.set_defaults(func=cmd_mark_translated)

    p = sub.add_parser("verify-sources", help="compare each snippet with the real file at its pinned commit")
    p.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="record files or folders (default: data/errors)")
    p.add_argument("--git", action="append", default=[], metavar="OWNER/NAME=PATH", help="read OWNER/NAME from a local git checkout or mirror (repeatable)")
    p.add_argument("--online", action="store_true", help="fetch files from the raw-file host (off by default: nothing is fetched unless asked)")
    p.add_argument("--base-url", default=None, help="raw-file host, files at BASE/OWNER/NAME/COMMIT/PATH (default: https://raw.githubusercontent.com)")
    p.add_argument("--release", action="store_true", help="check each snippet in the release artifact its record names (source.release): the exact file the package index lists, sha256-checked, read as an archive (nothing in it is run), kept in the cache")
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
    p.add_argument("--releases", nargs="+", metavar="VERSION", help="harvest these releases (default: those listed in projects.yaml)")
    p.add_argument("--new", action="store_true", help="add only upstream releases newer than the catalog's last (and list them in projects.yaml)")
    p.add_argument("--cache", type=Path, default=None, help="the download and extraction cache (default: ~/.cache/errdex or $ERRDEX_CACHE)")
    p.add_argument("--git", action="append", default=[], metavar="OWNER/NAME=PATH", help="a local clone or mirror for a project read from git (repeatable)")
    p.add_argument("--config", type=Path, default=None, help=argparse.SUPPRESS)
    p.add_argument("--out", type=Path, default=None, help=argparse.SUPPRESS)
    p.set_defaults(func=cmd_harvest)

    p = sub.add_parser("stats", help="per project: catalog templates, user-facing ones, curated records and coverage")
    p.add_argument("--data", type=Path, default=DATA_ROOT, help="the records folder (default: data/errors)")
    p.add_argument("--catalog", type=Path, default=None, help="the catalog folder (default: data/catalog)")
    p.add_argument("--links", type=Path, default=None, metavar="FILE", help="also write the record -> catalog entry links as JSON")
    p.add_argument("--format", choices=["text", "json"], default="text")
    p.set_defaults(func=cmd_stats)

    p = sub.add_parser("match", help="find the known errors in a log or traceback, ranked, with the records' pages")
    p.add_argument("file", nargs="?", default="-", metavar="FILE", help="the log to read; - or nothing for standard input")
    p.add_argument("--format", choices=["text", "json"], default="text", help="output format (default: text)")
    p.add_argument("--top", type=int, default=10, metavar="N", help="show the N best records (default: 10)")
    p.add_argument("--index", default=None, metavar="PATH_OR_URL", help="match with the patterns of an API match.json (a file, or its https:// address) instead of the records")
    p.add_argument("--data", type=Path, default=None, help="the records folder (default: data/errors here, else the checkout's, else the match data installed with errdex)")
    p.add_argument("--no-catalog", action="store_false", dest="catalog", help="leave out the catalog entries (every message the projects' releases raise, data/catalog), which are found by default")
    p.add_argument("--catalog", action="store_true", dest="explicit_catalog", help="find catalog entries too (the default; kept for scripts that pass it)")
    p.add_argument("--version", action="append", metavar="PROJECT==RELEASE", dest="versions", help="the release the log comes from (e.g. vllm==0.11.0), repeatable; what it raises ranks first, what it lacks last")
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("bundle", help="write the knowledge bundle (the records and the catalog, compiled) that an installed wheel answers from")
    p.add_argument("--data", type=Path, default=DATA_ROOT, help="the records folder (default: data/errors)")
    p.add_argument("--catalog", type=Path, default=None, help="the catalog folder (default: data/catalog beside the records)")
    p.add_argument("--out", type=Path, default=None, help="where to write it (default: generator/data/knowledge.bundle, which the wheel ships)")
    p.set_defaults(func=cmd_bundle)

    p = sub.add_parser("mcp", help="serve the records and the catalog to AI agents: a Model Context Protocol server on stdio")
    p.add_argument("--api", default=None, metavar="PATH_OR_URL", help="answer from a built API folder (site/api) or a published one (https://.../api/) instead of the records")
    p.add_argument("--data", type=Path, default=None, help="the records folder (default: data/errors here, else the repository's)")
    p.add_argument("--catalog", type=Path, default=None, help="the message catalog folder (default: data/catalog beside the records, when present)")
    p.add_argument("--cache-dir", type=Path, default=None, help="where a fetched API is kept (default: $XDG_CACHE_HOME/errdex or ~/.cache/errdex)")
    p.add_argument("--repo-url", default=None, help="where report_outcome files issues (default: repo_url in mkdocs.yml)")
    p.set_defaults(func=cmd_mcp)

    p = sub.add_parser("schema", help="print the record JSON Schema, or write it to schema/error.schema.json")
    p.add_argument("--write", action="store_true", help="write schema/error.schema.json instead of printing")
    p.set_defaults(func=cmd_schema)
    return parser


def cmd_validate(args: argparse.Namespace) -> int:
    from .pipeline import check

    from .checks.catalog import check_catalog, is_catalog_path
    from .harvest.config import CATALOG_ROOT

    missing = [str(p) for p in args.paths if not p.exists() and not p.is_symlink()]
    if missing:
        sys.stderr.write(f"errdex validate: no such file or folder: {shown(', '.join(missing))}\n")
        return 2
    catalogs = [p for p in args.paths if is_catalog_path(p)]
    record_paths = [p for p in args.paths if not is_catalog_path(p)]
    if not args.paths and is_catalog_path(CATALOG_ROOT):
        catalogs = [CATALOG_ROOT]
    result = check(record_paths or None, args.root, args.strict, models=False) if record_paths or not args.paths else None
    if result is None:
        from .pipeline import Checked

        result = Checked(raws=[], findings=[], strict=args.strict)
    extra = []
    for path in catalogs:
        if path.is_dir():
            extra += check_catalog(path)
        else:
            from .checks.catalog import check_catalog_file, release_order

            releases, bad = release_order(path.parent)
            extra += bad + list(check_catalog_file(path, releases.get(path.name[: -len(".jsonl")]) if releases else None))
    if extra:
        result.findings = sorted(result.findings + extra)
    if args.base:
        from .history import HistoryError, names_at, removed_names

        try:
            before = names_at(args.base, args.root)
        except HistoryError as exc:
            sys.stderr.write(f"errdex validate: cannot read the records at {shown(args.base)}: {shown(exc)}\n")
            return 2
        result.findings = sorted(result.findings + removed_names(before, result.raws, args.root))
    sys.stdout.write(FORMATTERS[args.format](result.findings, result.file_count))
    return 1 if result.failed else 0


def cmd_build(args: argparse.Namespace) -> int:
    from .pipeline import check
    from .site import build_site

    result = check([args.data], args.data, args.strict)
    if result.failed:
        sys.stderr.write(FORMATTERS["text"](result.findings, result.file_count))
        sys.stderr.write(f"build stopped: {shown(args.out)}/ was left as it was\n")
        return 1
    return build_site(result.records, args.out, quiet=args.quiet, catalog=None if args.no_catalog else args.data.parent / "catalog")


def cmd_serve(args: argparse.Namespace) -> int:
    from .serve import serve

    if not (args.dir / "index.html").is_file():
        sys.stderr.write(f"{shown(args.dir)}/ holds no built site; run `errdex build` first\n")
        return 1
    serve(args.dir, args.host, args.port)
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    from .new import NewRecordError, new_record
    try:
        path = new_record(args.id, args.root, args.from_catalog, args.catalog)
    except NewRecordError as exc:
        sys.stderr.write(f"errdex new: {shown(exc)}\n")
        return 1
    print(f"wrote {shown(path)}\nnext: fill it in (uncomment the '#:' examples and make them true), then run: errdex validate {shown(path)}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from .findings import fails
    from .importer import ImportFailure, convert_file, write_records
    from .pipeline import check

    imported, failures = [], []
    for path in args.files:
        try:
            imported += convert_file(path, args.repo)
        except ImportFailure as exc:
            failures.append(str(exc))
    if failures:
        for failure in failures:
            sys.stderr.write(f"errdex import: {shown(failure)}\n")
        sys.stderr.write("errdex import: nothing was written\n")
        return 1
    written, refused, merged = write_records(imported, args.root, args.force, merge_into=not args.no_merge)
    for item in sorted(imported, key=lambda i: (i.id, i.source)):
        for note in item.notes:
            print(f"note: {shown(note)}")
    for line in merged:
        print(f"merged: {shown(line)}")
    for refusal in refused:
        sys.stderr.write(f"errdex import: {shown(refusal)}\n")
    for path in written:
        print(f"wrote {shown(path)}")
    print(f"{len(imported)} record(s) read, {len(merged)} merged, {len(written)} file(s) written, {len(refused)} refused")
    # The records written go through the usual checks; what a source lacks (Chinese, examples) is only a warning.
    result = check([args.root], args.root)
    mine = [p.as_posix() for p in written]
    listed = [f for f in result.findings if any(f.path.endswith(p) or p in f.message for p in mine)]
    sys.stdout.write(FORMATTERS["text"](listed, len(written)))
    return 1 if refused or fails(listed, strict=False) else 0


def cmd_mark_translated(args: argparse.Namespace) -> int:
    from .load import inside_or_below, load_records
    from .safefs import UnsafePath
    from .translations import mark_record

    raws, findings = load_records(args.paths, args.root)
    if findings:
        sys.stdout.write(FORMATTERS["text"](findings, len(raws) + len(findings)))
        return 1
    for raw in raws:
        path = Path(raw.path)
        try:
            count = mark_record(raw, path, args.root if inside_or_below(path, args.root) else None)
        except UnsafePath as exc:
            sys.stderr.write(f"errdex mark-translated: {shown(exc)}\n")
            return 1
        print(f"marked {count} translated texts in {shown(raw.path)}")
    return 0


def cmd_verify_sources(args: argparse.Namespace) -> int:
    from .findings import fails

    if args.catalog:
        from .harvest.verify import verify_catalog_cli

        return verify_catalog_cli(args)
    from .pipeline import check
    from .verify import DEFAULT_BASE_URL, Sources, git_dirs, verify

    git = git_dirs(args.git, "verify-sources")
    if git is None:
        return 2
    base = args.base_url or DEFAULT_BASE_URL
    if not base.startswith(("http://", "https://")):
        sys.stderr.write("errdex verify-sources: --base-url must be an http(s) URL\n")
        return 2
    # The whole dataset is checked (a record's links resolve against all the others); the named files are verified.
    result = check(None, args.root)
    if args.paths:
        named = [Path(p).resolve() for p in args.paths]

        def mine(path: str) -> bool:
            here = Path(path).resolve()
            return any(here == n or n in here.parents for n in named)

        result.findings = [f for f in result.findings if mine(f.path)]
        result.raws = [r for r in result.raws if mine(r.path)]
    if result.failed:
        sys.stdout.write(FORMATTERS[args.format](result.findings, result.file_count))
        return 1
    from .artifacts import default_cache

    releases = (args.cache or default_cache()) if args.release else None
    findings, checked, skipped = verify(result.raws, result.records, Sources(git, args.online, base, releases=releases, find_links=args.find_links))
    findings = sorted(result.findings + findings)
    sys.stdout.write(FORMATTERS[args.format](findings, result.file_count))
    if args.format == "text":
        note = f"{checked} snippets checked against {'their release artifacts' if args.release else 'upstream'}"
        if skipped and args.release:
            note += f", {skipped} not checked (source.release names no artifact to fetch: check those with --git)"
        elif skipped:
            note += f", {skipped} not checked (no --git for their repository{'' if args.online else ' and --online not set'})"
        print(note)
    return 1 if fails(findings, args.strict) else 0


def cmd_harvest(args: argparse.Namespace) -> int:
    from .harvest.commands import harvest_command

    return harvest_command(args)


def cmd_stats(args: argparse.Namespace) -> int:
    from .harvest.commands import stats_command

    return stats_command(args)


def cmd_match(args: argparse.Namespace) -> int:
    from .match import Matcher
    from .matchout import FORMATS

    if args.top < 1:
        sys.stderr.write("errdex match: --top wants a number of at least 1\n")
        return 2
    if args.index is None:
        if args.explicit_catalog and not args.catalog:
            sys.stderr.write("errdex match: --catalog and --no-catalog contradict each other; pass one\n")
            return 2
        if args.versions and not args.catalog:
            sys.stderr.write("errdex match: --version ranks catalog entries; leave out --no-catalog\n")
            return 2
        from . import matchcatalog

        return matchcatalog.run(args.file, args.data, args.versions, args.top, args.format, sys.stdout, sys.stderr,
                                catalog=args.catalog)
    if args.versions or args.explicit_catalog:
        sys.stderr.write("errdex match: --index matches an API match.json's records alone: --catalog and --version need the records and data/catalog\n")
        return 2
    from .matchindex import load_index

    try:
        patterns, rules, site_url = load_index(args.index)
    except (OSError, ValueError) as exc:
        sys.stderr.write(f"errdex match: cannot read {shown(args.index)}: {shown(exc)}\n")
        return 2
    if site_url:  # links that open from a terminal: absolute, at the published site
        from dataclasses import replace
        from urllib.parse import urljoin

        patterns = [replace(p, url=urljoin(site_url, p.url)) for p in patterns]
    matcher = Matcher(patterns, rules=rules)
    source = "standard input" if args.file == "-" else args.file
    try:
        if args.file == "-":
            results = matcher.find(sys.stdin.buffer)
        else:
            with open(args.file, "rb") as stream:
                results = matcher.find(stream)
    except OSError as exc:
        sys.stderr.write(f"errdex match: cannot read {shown(source)}: {shown(exc.strerror or exc)}\n")
        return 2
    for pid, why in matcher.skipped:
        sys.stderr.write(f"errdex match: skipped {shown(pid)}: {shown(why)}\n")
    sys.stdout.write(FORMATS[args.format](results, args.top, source, matcher.lines_read, matcher.bytes_read))
    return 0 if results else 1


def cmd_bundle(args: argparse.Namespace) -> int:
    from . import bundle, bundlecompile, checkout

    catalog = args.catalog if args.catalog is not None else args.data.parent / "catalog"
    made = bundlecompile.make(args.data, catalog, checkout.mkdocs_settings(args.data), sys.stderr)
    if isinstance(made, str):
        sys.stderr.write(f"errdex bundle: {shown(made)}\n")
        return 1
    out = args.out or bundle.WHEEL_BUNDLE
    bundle.write_atomic(out, made)
    summary = bundle.Bundle(out).summary
    sys.stdout.write(f"wrote the knowledge bundle of {summary['records']} records and {summary['catalog_entries']:,} "
                     f"catalog entries to {shown(out)} ({len(made) / 1e6:.1f} MB)\n")
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from .mcp.main import serve

    return serve(args.api, args.data, args.catalog, args.cache_dir, args.repo_url)


def cmd_schema(args: argparse.Namespace) -> int:
    from .schema import SCHEMA_PATH, schema_text

    if args.write:
        SCHEMA_PATH.parent.mkdir(parents=True, exist_ok=True)
        SCHEMA_PATH.write_text(schema_text(), encoding="utf-8")
        print(f"wrote {SCHEMA_PATH}")
        from .checks.catalogschema import write_schemas

        for path in write_schemas():
            print(f"wrote {path}")
    else:
        sys.stdout.write(schema_text())
    return 0


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 findings/failure, 2 usage).

    What a command prints goes through `Escaping` (generator/terminal.py): no text from data can steer the
    terminal, whichever line prints it. `errdex mcp` speaks its protocol on stdout, so only its stderr is."""
    saved = sys.stdout, sys.stderr
    sys.stderr = Escaping(sys.stderr)
    try:
        try:
            args = _parser().parse_args(argv)
        except SystemExit as exc:
            return int(exc.code or 0)
        if args.command != "mcp":
            sys.stdout = Escaping(sys.stdout)
        return args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    finally:
        sys.stdout, sys.stderr = saved
