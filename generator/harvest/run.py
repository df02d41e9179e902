"""`errdex harvest`: fetch each release, extract its sites, fold them into the catalog, write the files.

A hostile upstream file costs only itself: it is skipped (`Outcome.skipped`), an entry the catalog's checks
refuse is left out (`Outcome.dropped`), each with a note naming it, and the rest is harvested. Only a release
that cannot be fetched (FetchError) is a failure (`Outcome.failures`); anything else that goes wrong is a crash
and is raised, never reported as a failed fetch.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .. import forked
from ..verify.packageindex import ArtifactError, index_files
from ..terminal import shown
from .catalog import (Dropped, Fold, catalog_path, load_fold, read_releases, release_refused, version_key, write_catalog,
                      write_releases)
from .config import CATALOG_ROOT, CONFIG_PATH, Project
from .extract import release_sites
from .fetch import Cache, FetchError, fetch_git, fetch_pypi, git_tags, release_info, release_versions
from .guides import add_guides

RELEASE_TAG = re.compile(r"v?\d+(\.\d+){1,3}(\.post\d+)?")


@dataclass
class Timing:
    project: str
    version: str
    fetch_s: float
    extract_s: float
    files: int
    sites: int
    skipped: int = 0  # files of the release not harvested (see Outcome.skipped)


@dataclass(frozen=True)
class SkippedFile:
    """A file of a release that was not harvested: a path the catalog refuses, or a file that cannot be read."""

    project: str
    release: str
    path: str
    reason: str


@dataclass(frozen=True)
class DroppedEntry:
    """A catalog entry the catalog's checks refuse, left out of the written catalog."""

    project: str
    id: str
    release: str  # its newest release
    path: str  # the file of its newest site
    reason: str


@dataclass
class Outcome:
    timings: list[Timing] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # releases (or release lists) that could not be fetched
    written: list[Path] = field(default_factory=list)
    added: dict[str, list[str]] = field(default_factory=dict)  # project -> new releases (--new)
    skipped: list[SkippedFile] = field(default_factory=list)
    dropped: list[DroppedEntry] = field(default_factory=list)
    entries: dict[str, tuple[int, int]] = field(default_factory=dict)  # project -> (entries written, user-facing)
    seconds: dict[str, float] = field(default_factory=dict)  # project -> wall time (both processes, fold, guides, write)


def fetch_release(project: Project, version: str, cache: Cache, git: dict[str, Path], downloader: Callable | None = None) -> dict:
    """The release's manifest (FetchError when it cannot be brought into the cache)."""
    if project.source == "git":
        gitdir = git.get(project.repo)
        if gitdir is None:
            raise FetchError(f"{project.slug} is read from git: pass --git {project.repo}=PATH (a local clone or mirror)")
        return fetch_git(project, version, gitdir, cache)
    return fetch_pypi(project, version, cache, downloader)


def pypi_versions(project: Project) -> list[str]:
    """The package's final releases, newest first, that have a file of the kind the project's configuration
    takes (its sdist, or a wheel for its Python and platforms), read from the package index's Simple API."""
    assert project.package
    try:
        return release_versions(project, index_files(project.package))
    except ArtifactError as exc:
        raise FetchError(str(exc)) from exc


def newer_releases(project: Project, after: str | None, git: dict[str, Path]) -> list[str]:
    """Upstream releases newer than `after` (final releases only), oldest first."""
    if project.source == "git":
        gitdir = git.get(project.repo)
        if gitdir is None:
            raise FetchError(f"pass --git {project.repo}=PATH to look for new tags")
        found = git_tags(gitdir)
    else:
        found = pypi_versions(project)
    final = [v for v in found if RELEASE_TAG.fullmatch(v)]
    return sorted((v for v in final if after is None or version_key(v) > version_key(after)), key=version_key)


def add_releases_to_config(text: str, slug: str, versions: list[str]) -> str:
    """projects.yaml with `versions` appended to the project's one-line `releases: [...]` list (comments kept);
    a version the list already holds is not added twice (the file's schema refuses a repeated release)."""
    block = re.search(rf"(?m)^  {re.escape(slug)}:\n(?:(?:    .*|\s*)\n)*?    releases: \[(?P<list>[^\]\n]*)\]", text)
    if block is None:
        raise ValueError(f"projects.yaml: no one-line `releases: [...]` for {slug}")
    items = block["list"].rstrip()
    listed = {item.strip().strip("'\"") for item in items.split(",")}
    versions = [v for v in versions if v not in listed]
    if not versions:
        return text
    extra = ", ".join(f'"{v}"' for v in versions)
    new_list = f"{items}, {extra}" if items else extra
    return text[: block.start("list")] + new_list + text[block.end("list") :]


def _prepare(project: Project, versions: list[str], cache: Cache, git: dict[str, Path], downloader: Callable | None) -> int:
    """Fetch and extract `versions` into the cache (what the fold then reads back): a second process's share of a
    harvest. A release that cannot be fetched is left for the fold, which reports it. Returns the releases done."""
    done = 0
    for version in versions:
        try:
            manifest, _ = _fetch_checked(project, version, cache, git, downloader)
        except FetchError:
            continue
        release_sites(cache, project, manifest)
        done += 1
    return done


def harvest(projects: dict[str, Project], releases: list[str] | None, cache: Cache, git: dict[str, Path], *, new: bool = False,
            root: Path = CATALOG_ROOT, config_path: Path = CONFIG_PATH, log: Callable[[str], None] = print,
            downloader: Callable | None = None, jobs: int = 1) -> Outcome:
    """Harvest `projects` (all their configured releases, or `releases`; with `new`, only upstream releases newer
    than the catalog's last, appended to the catalog and to projects.yaml) and write their catalog files. With
    `jobs` 2 (and a second core), a forked process fetches and extracts every other release into the cache while
    this one does the rest; the fold then reads them back in order, so the catalog is the same byte for byte."""
    outcome = Outcome()
    rows = read_releases(root)
    for slug, project in projects.items():
        began = time.perf_counter()
        if new:
            fold = load_fold(project, root)
            try:
                versions = newer_releases(project, fold.releases[-1] if fold.releases else None, git)
            except FetchError as exc:
                outcome.failures.append(str(exc))
                continue
            known = {r["version"]: r for r in rows.get(slug, [])}
        else:
            fold = Fold(project)
            versions = sorted(releases or project.releases, key=version_key)
            known = {}
        done: list[dict] = []
        if jobs > 1 and len(versions) > 1 and forked.available():
            second = forked.start(lambda: _prepare(project, versions[1::2], cache, git, downloader))
            _prepare(project, versions[0::2], cache, git, downloader)
            try:
                second()
            except RuntimeError:
                pass  # what stopped the second process stops the fold below, in this one, where it is raised as itself
        for version in versions:
            started = time.perf_counter()
            try:
                manifest, info = _fetch_checked(project, version, cache, git, downloader)
            except FetchError as exc:
                outcome.failures.append(f"{slug} {version}: {exc}")
                log(f"{slug} {version}: not harvested: {shown(exc)}")
                continue
            fetched = time.perf_counter()
            sites, skipped = release_sites(cache, project, manifest)
            fold.add_release(version, sites)
            finished = time.perf_counter()
            outcome.skipped += [SkippedFile(slug, version, s.path, s.reason) for s in skipped]
            timing = Timing(slug, version, fetched - started, finished - fetched, len(manifest["files"]), len(sites), len(skipped))
            outcome.timings.append(timing)
            done.append(info)
            log(f"{slug} {version}: {timing.files} files, {timing.sites} sites, {timing.skipped} files skipped, fetch {timing.fetch_s:.1f}s, "
                f"extract {timing.extract_s:.1f}s, {len(fold.entries)} entries")
        if new and not done:
            continue
        if not fold.releases:
            continue
        if not new:  # a rebuilt fold keeps the guides of the catalog it replaces (reused where the site is unchanged)
            old = {e.id: e.guide for e in load_fold(project, root).entries.values()} if catalog_path(slug, root).is_file() else {}
            for entry in fold.entries.values():
                entry.guide = old.get(entry.id)
        add_guides(cache, project, fold.entries.values())
        path, dropped = write_catalog(fold, root)
        outcome.written.append(path)
        kept = [e for e in fold.entries.values() if e.id not in {d.id for d in dropped}]
        outcome.entries[slug] = (len(kept), sum(1 for e in kept if e.tier == "user"))
        outcome.dropped += [_dropped_entry(slug, d) for d in dropped]
        outcome.seconds[slug] = time.perf_counter() - began
        rows[slug] = list(known.values()) + done
        if new:
            outcome.added[slug] = [d["version"] for d in done]
    if outcome.written:
        outcome.written.append(write_releases(rows, root))
    if new and outcome.added and config_path.is_file():
        text = config_path.read_text(encoding="utf-8")
        for slug, versions in outcome.added.items():
            text = add_releases_to_config(text, slug, versions)
        config_path.write_text(text, encoding="utf-8")
    return outcome


def _fetch_checked(project: Project, version: str, cache: Cache, git: dict[str, Path], downloader: Callable | None) -> tuple[dict, dict]:
    """(manifest, releases.json row) of a fetched release. A release whose row the catalog's checks refuse (an
    artifact name from the index that is no file name, ...) cannot be harvested: a FetchError too."""
    manifest = fetch_release(project, version, cache, git, downloader)
    info = release_info(manifest)
    refused = release_refused(project.slug, info)
    if refused:
        raise FetchError(f"its releases.json row would not pass the catalog's checks: {refused}")
    return manifest, info


def _dropped_entry(slug: str, dropped: Dropped) -> DroppedEntry:
    return DroppedEntry(slug, dropped.id, dropped.release, dropped.path, dropped.reason)


def exit_code(outcome: Outcome) -> int:
    """0: everything was harvested; 3: some release could not be fetched while others were (the only failure the
    weekly workflow tolerates); 1: nothing could be fetched. Skipped files and dropped entries are notes, not
    failures. A crash is never an exit code of ours: it is raised (a traceback, exit 1)."""
    if not outcome.failures:
        return 0
    return 3 if outcome.timings else 1
