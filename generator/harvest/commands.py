"""The catalog's commands behind the CLI: `errdex harvest` and `errdex stats` (cli/parser.py parses, these run)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..findings import FORMATTERS
from ..terminal import shown
from ..verify.sources import git_dirs

if TYPE_CHECKING:
    from .run import Outcome


def harvest_command(args: argparse.Namespace) -> int:
    """`errdex harvest`: the projects' releases into data/catalog. Exit 0 when everything was harvested (files
    skipped and entries dropped are reported, not failures), 3 when some release could not be fetched and others
    were, 1 when none could be, 2 for bad arguments; a crash is a traceback, never 3."""
    from .config import CATALOG_ROOT, CONFIG_PATH
    from .fetch import Cache, default_cache
    from .run import exit_code, harvest

    config = args.config or CONFIG_PATH
    found = _projects_and_git(args, "harvest")
    if found is None:
        return 2
    projects, git = found
    chosen = {slug: projects[slug] for slug in (args.projects or projects)}
    outcome = harvest(chosen, args.releases, Cache(args.cache or default_cache()), git, new=args.new,
                      root=args.out or CATALOG_ROOT, config_path=config, jobs=args.jobs)
    for path in outcome.written:
        print(f"wrote {path}")
    for slug, versions in outcome.added.items():
        print(f"{slug}: added {', '.join(versions)}")
    sys.stdout.write(format_report(outcome))
    sys.stdout.write(format_notes(outcome))
    for failure in outcome.failures:
        sys.stderr.write(f"errdex harvest: {shown(failure)}\n")
    return exit_code(outcome)


def _projects(args: argparse.Namespace, command: str) -> dict | None:
    """The configured projects, or None when the configuration or the PROJECT arguments are wrong (said on
    standard error): `errdex harvest` and `errdex symbols` take the same ones."""
    from .config import CONFIG_PATH, ConfigError, load_config

    config = args.config or CONFIG_PATH
    try:
        projects = load_config(config)
    except (OSError, ConfigError) as exc:
        sys.stderr.write(f"errdex {command}: {config}: {exc}\n")
        return None
    unknown = [p for p in args.projects if p not in projects]
    if unknown:
        sys.stderr.write(f"errdex {command}: unknown project {', '.join(unknown)}; known: {', '.join(projects)}\n")
        return None
    if getattr(args, "releases", None) and len(args.projects) != 1:
        sys.stderr.write(f"errdex {command}: --releases needs exactly one PROJECT\n")
        return None
    return projects


def _projects_and_git(args: argparse.Namespace, command: str) -> tuple[dict, dict] | None:
    """The configured projects and the --git clones, or None when either is wrong (said on standard error)."""
    projects = _projects(args, command)
    if projects is None:
        return None
    git = git_dirs(args.git, command)
    return None if git is None else (projects, git)


def format_report(outcome: Outcome) -> str:
    """Per project: the releases read, those that could not be fetched, the files skipped, the entries written
    and the time it took: in all (both processes' fetching and extraction, the fold, the guides, the writing), and
    the fold's own fetch and extraction (with a second process, a release the other one prepared is read back from the cache)."""
    lines = []
    for slug in dict.fromkeys(t.project for t in outcome.timings):
        rows = [t for t in outcome.timings if t.project == slug]
        failed = sum(1 for f in outcome.failures if f.startswith(f"{slug} "))
        skipped = sum(1 for n in outcome.skipped if n.project == slug)
        dropped = sum(1 for n in outcome.dropped if n.project == slug)
        entries = outcome.entries.get(slug)
        lines.append(f"{slug}: {len(rows)} releases read, {failed} not fetched, {skipped} files skipped, "
                     + (f"{entries[0]:,} entries ({entries[1]:,} user-facing), " if entries else "")
                     + f"{dropped} dropped; "
                     + (f"{outcome.seconds[slug]:.1f} s in all, " if slug in outcome.seconds else "")
                     + f"fetch {sum(t.fetch_s for t in rows):.1f} s, extract {sum(t.extract_s for t in rows):.1f} s in the fold")
    return "\n".join(lines) + ("\n" if lines else "")


def format_notes(outcome: Outcome) -> str:
    """The report of what was left out: each skipped file and dropped entry on a line of its own (every value
    from upstream escaped, so none can forge a line), then their counts."""
    lines = [f"skipped {n.project} {shown(n.release)} {shown(n.path)}: {shown(n.reason)}" for n in outcome.skipped]
    lines += [f"dropped {n.project} {n.id} ({shown(n.path)}, {shown(n.release)}): {shown(n.reason)}" for n in outcome.dropped]
    lines.append(f"{len(outcome.skipped)} files skipped, {len(outcome.dropped)} entries dropped")
    return "\n".join(lines) + "\n"


def stats_command(args: argparse.Namespace) -> int:
    """`errdex stats`: per project, templates, user-facing ones, curated records and their share."""
    import json

    from .catalog import catalog_path, read_catalog, read_releases
    from .config import CATALOG_ROOT, load_config
    from .stats import format_stats, link_records, project_stats, write_links
    from ..checks.pipeline import check

    root = args.catalog or CATALOG_ROOT
    projects = load_config(root / "projects.yaml")
    result = check([args.data], args.data)
    if result.failed:
        sys.stderr.write(FORMATTERS["text"](result.findings, result.file_count))
        return 2
    catalogs = {slug: read_catalog(catalog_path(slug, root)) for slug in projects if catalog_path(slug, root).is_file()}
    links = link_records(result.records, catalogs, projects)
    rows = project_stats(result.records, catalogs, projects, read_releases(root), links)
    if args.links:
        write_links(links, args.links)
    if args.format == "json":
        print(json.dumps([{**vars(r), "share": round(r.share, 4)} for r in rows], indent=1))
    else:
        sys.stdout.write(format_stats(rows))
        print(f"{len(links)} curated records link to {sum(map(len, links.values()))} catalog entries (an entry's pattern finds the record's examples)")
    return 0


def symbols_command(args: argparse.Namespace) -> int:
    """`errdex symbols`: the symbol index of Python projects from the package index, and the flags registry of
    projects with clap structs (TGI, read from git: --git), in data/catalog/symbols/<project>.jsonl, from their
    configured releases, fetching into the cache what it lacks. Exit 0, 3 when some release could not be fetched
    (the index is then not written: it would claim a release lacks every name), 2 for bad arguments."""
    import time

    from .config import CATALOG_ROOT
    from .fetch import Cache, FetchError, default_cache
    from .run import fetch_release
    import json

    from .symbols import build_index, symbols_path, write_index

    found = _projects_and_git(args, "symbols")
    if found is None:
        return 2
    projects, git = found
    if args.releases and args.new:
        sys.stderr.write("errdex symbols: --new takes the releases projects.yaml lists after the index's last; not with --releases\n")
        return 2
    chosen = [s for s in (args.projects or projects)
              if ("python" in projects[s].languages and projects[s].source == "pypi") or projects[s].clap_structs]
    cache = Cache(args.cache or default_cache())
    status = 0
    for slug in chosen:
        project = projects[slug]
        started = time.perf_counter()
        manifests, failed = {}, []
        after = None
        wanted = args.releases or project.releases
        if args.new:  # continue the index with the releases projects.yaml lists after its last
            existing = symbols_path(slug, args.out or CATALOG_ROOT)
            if existing.is_file():
                after = [json.loads(line) for line in existing.read_text(encoding="utf-8").splitlines() if line.strip()]
                done = after[0]["releases"]
                if project.releases[: len(done)] != done:
                    sys.stderr.write(f"errdex symbols: {slug}: the index's releases are not the first of projects.yaml's; "
                                     f"run `errdex symbols {slug}` without --new\n")
                    status = 2
                    continue
                wanted = project.releases[len(done):]
                if not wanted:
                    print(f"{slug}: the index has every release")
                    continue
        for version in wanted:
            try:
                manifests[version] = fetch_release(project, version, cache, git)
            except FetchError as exc:
                failed.append(f"{version}: {shown(exc)}")
        if failed:
            for line in failed:
                sys.stderr.write(f"errdex symbols: {slug} {line}\n")
            status = 3
            continue
        lines, unreadable = build_index(project, cache, manifests, workers=args.jobs, log=lambda m: print(f"{slug}: {m}"),
                                        modules=args.modules, after=after)
        path = write_index(slug, lines, args.out or CATALOG_ROOT)
        for file, why in sorted(unreadable.items()):
            print(f"skipped {slug} {shown(file)}: {shown(why)}")
        print(f"wrote {path}: {len(lines) - 1} lines, {path.stat().st_size} bytes, {len(lines[0]['releases'])} releases, "
              f"{time.perf_counter() - started:.1f} s")
    return status


def guides_command(args: argparse.Namespace) -> int:
    """`errdex guides`: each user-facing entry's guide, read from the cached release sources at its newest site
    (fetching into the cache a release it lacks), written into the project's catalog file. A guide whose site is
    unchanged is kept. Exit 0, 3 when some release could not be fetched (those entries keep no guide), 2 for bad
    arguments."""
    import time

    from .catalog import load_fold, newest_site, write_catalog
    from .config import CATALOG_ROOT
    from .fetch import Cache, FetchError, default_cache
    from .guides import add_guides
    from .run import fetch_release

    found = _projects_and_git(args, "guides")
    if found is None:
        return 2
    projects, git = found
    cache = Cache(args.cache or default_cache())
    root = args.out or CATALOG_ROOT
    status = 0
    for slug in args.projects or sorted(projects):
        project = projects[slug]
        started = time.perf_counter()
        fold = load_fold(project, root)
        if not fold.entries:
            continue
        wanted = sorted({newest_site(e.sites)["to"] for e in fold.entries.values() if e.tier == "user"})
        for version in wanted:
            if cache.manifest(slug, version, project.selection()) is None:
                try:
                    fetch_release(project, version, cache, git)
                except FetchError as exc:
                    sys.stderr.write(f"errdex guides: {slug} {version}: {shown(exc)}\n")
                    status = 3
        read, have = add_guides(cache, project, fold.entries.values(), again=args.again)
        path, _ = write_catalog(fold, root)
        users = sum(1 for e in fold.entries.values() if e.tier == "user")
        print(f"{slug}: {have} of {users} user-facing entries have a guide ({read} read), {path}, {time.perf_counter() - started:.1f} s")
    return status


def merge_command(args) -> int:
    """`errdex harvest-merge`: exit 0 when every part was merged, 1 (and nothing written) when one is refused."""
    from .config import CATALOG_ROOT
    from .merge import MergeError, merge_parts

    root = args.out or CATALOG_ROOT
    try:
        parts = merge_parts(args.parts, root, args.config or root / "projects.yaml")
    except MergeError as exc:
        sys.stderr.write(f"errdex harvest-merge: {shown(str(exc))}\n")
        return 1
    for part in parts:
        added = ", ".join(shown(v) for v in part.added)
        print(f"{part.slug}: merged" + (f", {len(part.added)} new release(s): {added}" if part.added else ", no new release"))
    return 0
