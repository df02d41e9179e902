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
    from .config import CATALOG_ROOT, CONFIG_PATH, ConfigError, load_config
    from .fetch import Cache, default_cache
    from .run import exit_code, harvest

    config = args.config or CONFIG_PATH
    try:
        projects = load_config(config)
    except (OSError, ConfigError) as exc:
        sys.stderr.write(f"errdex harvest: {config}: {exc}\n")
        return 2
    unknown = [p for p in args.projects if p not in projects]
    if unknown:
        sys.stderr.write(f"errdex harvest: unknown project {', '.join(unknown)}; known: {', '.join(projects)}\n")
        return 2
    if args.releases and len(args.projects) != 1:
        sys.stderr.write("errdex harvest: --releases needs exactly one PROJECT\n")
        return 2
    git = git_dirs(args.git, "harvest")
    if git is None:
        return 2
    chosen = {slug: projects[slug] for slug in (args.projects or projects)}
    outcome = harvest(chosen, args.releases, Cache(args.cache or default_cache()), git, new=args.new,
                      root=args.out or CATALOG_ROOT, config_path=config)
    for path in outcome.written:
        print(f"wrote {path}")
    for slug, versions in outcome.added.items():
        print(f"{slug}: added {', '.join(versions)}")
    sys.stdout.write(format_notes(outcome))
    for failure in outcome.failures:
        sys.stderr.write(f"errdex harvest: {shown(failure)}\n")
    return exit_code(outcome)


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
