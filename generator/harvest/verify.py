"""`errdex verify-sources --catalog`: re-extract a sample of catalog entries from the cached release sources
and find each at its recorded file and line (CAT101), or say that the release is not cached (CAT102). With
`--release`, a release the cache lacks is fetched into it first, as the harvest fetches it (sha256-checked)."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable
from pathlib import Path

from ..findings import FORMATTERS, Finding, fails, make
from .catalog import catalog_path, read_catalog
from .extract import extract
from .config import CATALOG_ROOT, Project, load_config
from .fetch import Cache, FetchError, default_cache
from .templates import entry_id


def extract_fresh(project: Project, path: str, source: bytes):
    """The file's sites, parsed now (never from the extraction cache), by the harvest's own extractor for its
    language (generator.harvest.catalog.extract)."""
    lang = project.language_of(path)
    return extract(source, lang, project) if lang is not None else []


def verify_entries(samples: list[tuple[Path, int, dict]], projects: dict[str, Project], cache: Cache,
                   fetch: Callable[[Project, str], dict] | None = None) -> tuple[list[Finding], int, int]:
    """Findings, entries found, entries not checked (source not cached, and not fetched: `fetch` brings a release
    into the cache and returns its manifest, or raises FetchError)."""
    findings: list[Finding] = []
    found = skipped = 0
    for file, lineno, entry in samples:
        project = projects[entry["project"]]
        where = (lineno, 1)
        for site in entry["sites"]:
            manifest = cache.manifest(project.slug, site["to"], project.selection())
            why = f"is not in the cache {cache.root}"
            if manifest is None and fetch is not None:
                try:
                    manifest = fetch(project, site["to"])
                except FetchError as exc:
                    why = f"could not be fetched: {exc}"
            if manifest is None:
                findings.append(make("CAT102", str(file), "/sites", f"{entry['id']}: {project.slug} {site['to']} {why}", where))
                skipped += 1
                break
            sha = manifest["files"].get(site["path"])
            sites = extract_fresh(project, site["path"], cache.get_blob(sha)) if sha else []
            if not any(s.line == site["line"] and entry_id(project.slug, s.template) == entry["id"] for s in sites):
                near = sorted({s.line for s in sites if entry_id(project.slug, s.template) == entry["id"]})
                detail = f"; it is at line(s) {', '.join(map(str, near))}" if near else ("; the file is not in that release" if not sha else "")
                findings.append(make("CAT101", str(file), "/sites", f"{entry['id']}: not found at {site['path']}:{site['line']} in {project.slug} {site['to']}{detail}", where))
                break
        else:
            found += 1
    return findings, found, skipped


def sample_entries(root: Path, projects: dict[str, Project], n: int, seed: int | None) -> list[tuple[Path, int, dict]]:
    everything = []
    for slug in projects:
        path = catalog_path(slug, root)
        if path.is_file():
            everything += [(path, i, e) for i, e in enumerate(read_catalog(path), 1)]
    if n and n < len(everything):
        everything = random.Random(seed).sample(everything, n)
    return everything


def verify_catalog_cli(args) -> int:
    root = CATALOG_ROOT
    projects = load_config(root / "projects.yaml")
    samples = sample_entries(root, projects, args.sample, args.seed)
    cache = Cache(args.cache or default_cache())
    fetch = None
    if args.release:
        from ..verify.sources import git_dirs
        from .run import fetch_release

        git = git_dirs(args.git, "verify-sources")
        if git is None:
            return 2
        fetch = lambda project, version: fetch_release(project, version, cache, git)  # noqa: E731
    findings, found, skipped = verify_entries(samples, projects, cache, fetch)
    sys.stdout.write(FORMATTERS[args.format](sorted(findings), len(samples)))
    if args.format == "text":
        print(f"{len(samples)} catalog entries re-extracted: {found} found at every recorded file and line, {skipped} not cached"
              + ("" if args.release else " (--release fetches them)"))
    return 1 if fails(findings, args.strict) else 0
