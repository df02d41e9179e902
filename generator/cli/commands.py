"""What each `errdex` command runs: the arguments (cli/parser.py) in, an exit code out."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from ..findings import FORMATTERS
from ..terminal import shown


def cmd_validate(args: argparse.Namespace) -> int:
    from ..checks.pipeline import check

    from ..checks.catalog import check_catalog, is_catalog_path
    from ..harvest.config import CATALOG_ROOT

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
        from ..checks.pipeline import Checked

        result = Checked(raws=[], findings=[], strict=args.strict)
    extra = []
    for path in catalogs:
        if path.is_dir():
            extra += check_catalog(path)
        else:
            from ..checks.catalog import check_catalog_file, release_order

            releases, bad = release_order(path.parent)
            extra += bad + list(check_catalog_file(path, releases.get(path.name[: -len(".jsonl")]) if releases else None))
    if result.raws and any(p.is_dir() for p in catalogs):  # what the records say of releases, against the catalog
        from ..checks.versions import version_findings

        extra += version_findings(result.raws, next(p for p in catalogs if p.is_dir()))
    if extra:
        result.findings = sorted(result.findings + extra)
    if args.base:
        from ..records.history import HistoryError, names_at, removed_names

        try:
            before = names_at(args.base, args.root)
        except HistoryError as exc:
            sys.stderr.write(f"errdex validate: cannot read the records at {shown(args.base)}: {shown(exc)}\n")
            return 2
        result.findings = sorted(result.findings + removed_names(before, result.raws, args.root))
    sys.stdout.write(FORMATTERS[args.format](result.findings, result.file_count))
    return 1 if result.failed else 0


def cmd_build(args: argparse.Namespace) -> int:
    from ..checks.pipeline import check
    from ..site.build import build_site

    result = check([args.data], args.data, args.strict)
    if result.failed:
        sys.stderr.write(FORMATTERS["text"](result.findings, result.file_count))
        sys.stderr.write(f"build stopped: {shown(args.out)}/ was left as it was\n")
        return 1
    return build_site(result.records, args.out, quiet=args.quiet, catalog=None if args.no_catalog else args.data.parent / "catalog")


def cmd_serve(args: argparse.Namespace) -> int:
    from ..site.serve import serve

    if not (args.dir / "index.html").is_file():
        sys.stderr.write(f"{shown(args.dir)}/ holds no built site; run `errdex build` first\n")
        return 1
    serve(args.dir, args.host, args.port)
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    from ..records.new import NewRecordError, new_record
    try:
        path = new_record(args.id, args.root, args.from_catalog, args.catalog)
    except NewRecordError as exc:
        sys.stderr.write(f"errdex new: {shown(exc)}\n")
        return 1
    print(f"wrote {shown(path)}\nnext: fill it in (uncomment the '#:' examples and make them true), then run: errdex validate {shown(path)}")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from ..findings import fails
    from ..imports.importer import ImportFailure, convert_file, write_records
    from ..checks.pipeline import check

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
    from ..records.load import inside_or_below, load_records
    from ..safefs import UnsafePath
    from ..checks.marks import mark_record

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
    from ..findings import fails

    if args.catalog:
        from ..harvest.verify import verify_catalog_cli

        return verify_catalog_cli(args)
    from ..checks.pipeline import check
    from ..verify.sources import DEFAULT_BASE_URL, Sources, git_dirs, verify

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
    from ..verify.artifacts import default_cache

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


def cmd_guides(args: argparse.Namespace) -> int:
    from ..harvest.commands import guides_command

    return guides_command(args)


def cmd_symbols(args: argparse.Namespace) -> int:
    from ..harvest.commands import symbols_command

    return symbols_command(args)


def cmd_harvest(args: argparse.Namespace) -> int:
    from ..harvest.commands import harvest_command

    return harvest_command(args)


def cmd_harvest_merge(args: argparse.Namespace) -> int:
    from ..harvest.commands import merge_command

    return merge_command(args)


def cmd_stats(args: argparse.Namespace) -> int:
    from ..harvest.commands import stats_command

    return stats_command(args)


def cmd_match(args: argparse.Namespace) -> int:
    from ..match.engine import Matcher
    from ..match.output import FORMATS
    from . import end

    if args.top < 1:
        sys.stderr.write("errdex match: --top wants a number of at least 1\n")
        return 2
    if args.file == "-" and sys.stdin.isatty():  # else a bare `errdex match` would wait without a word
        sys.stderr.write("errdex match: reading the log from standard input: paste it, then press Ctrl-D "
                         "(or give a FILE: errdex match server.log)\n")
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
    from ..match.index import load_index

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
    return end(0 if results else 1)


def cmd_bundle(args: argparse.Namespace) -> int:
    from .. import bundle
    from ..bundle import checkout, compile as bundlecompile
    from ..cachedir import write_atomic

    catalog = args.catalog if args.catalog is not None else args.data.parent / "catalog"
    made = bundlecompile.make(args.data, catalog, checkout.mkdocs_settings(args.data), sys.stderr)
    if isinstance(made, str):
        sys.stderr.write(f"errdex bundle: {shown(made)}\n")
        return 1
    out = args.out or bundle.WHEEL_BUNDLE
    write_atomic(out, made)
    summary = bundle.Bundle(out).summary
    sys.stdout.write(f"wrote the knowledge bundle of {summary['records']} records and {summary['catalog_entries']:,} "
                     f"catalog entries to {shown(out)} ({len(made) / 1e6:.1f} MB)\n")
    return 0


def cmd_mcp(args: argparse.Namespace) -> int:
    from ..mcp.main import serve

    return serve(args.api, args.data, args.catalog, args.cache_dir, args.repo_url)


def cmd_schema(args: argparse.Namespace) -> int:
    from ..records.schema import SCHEMA_PATH, schema_text

    if args.write:
        SCHEMA_PATH.parent.mkdir(parents=True, exist_ok=True)
        SCHEMA_PATH.write_text(schema_text(), encoding="utf-8")
        print(f"wrote {SCHEMA_PATH}")
        from ..checks.catalogschema import write_schemas

        for path in write_schemas():
            print(f"wrote {path}")
    else:
        sys.stdout.write(schema_text())
    return 0
