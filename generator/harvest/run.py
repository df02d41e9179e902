"""`errdex harvest`: fetch each release, extract its sites, fold them into the catalog, write the files."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from .catalog import Fold, load_fold, read_releases, release_sites, version_key, write_catalog, write_releases
from .config import CATALOG_ROOT, CONFIG_PATH, Project
from .fetch import Cache, FetchError, fetch_git, fetch_pypi, git_tags, release_info

RELEASE_TAG = re.compile(r"v?\d+(\.\d+){1,3}(\.post\d+)?")


@dataclass
class Timing:
    project: str
    version: str
    fetch_s: float
    extract_s: float
    files: int
    sites: int


@dataclass
class Outcome:
    timings: list[Timing] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    written: list[Path] = field(default_factory=list)
    added: dict[str, list[str]] = field(default_factory=dict)  # project -> new releases (--new)


def fetch_release(project: Project, version: str, cache: Cache, git: dict[str, Path], downloader: Callable | None = None) -> dict:
    if project.source == "git":
        gitdir = git.get(project.repo)
        if gitdir is None:
            raise FetchError(f"{project.slug} is read from git: pass --git {project.repo}=PATH (a local clone or mirror)")
        return fetch_git(project, version, gitdir, cache)
    return fetch_pypi(project, version, cache, downloader)


def pypi_versions(project: Project) -> list[str]:
    """The package's final releases that pip sees, for the project's platform settings."""
    cmd = [sys.executable, "-m", "pip", "index", "versions", project.package, "--disable-pip-version-check"]
    if project.artifact != "sdist" and project.pip_platforms:
        cmd += ["--only-binary", ":all:", "--python-version", project.pip_python]
        for platform in project.pip_platforms:
            cmd += ["--platform", platform]
    done = subprocess.run(cmd, capture_output=True, text=True)
    for line in done.stdout.splitlines():
        if line.startswith("Available versions:"):
            return [v.strip() for v in line.split(":", 1)[1].split(",") if v.strip()]
    raise FetchError(f"pip index versions {project.package} failed: {done.stderr.strip()[-300:]}")


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
    """projects.yaml with `versions` appended to the project's one-line `releases: [...]` list (comments kept)."""
    block = re.search(rf"(?m)^  {re.escape(slug)}:\n(?:(?:    .*|\s*)\n)*?    releases: \[(?P<list>[^\]\n]*)\]", text)
    if block is None:
        raise ValueError(f"projects.yaml: no one-line `releases: [...]` for {slug}")
    items = block["list"].rstrip()
    extra = ", ".join(f'"{v}"' for v in versions)
    new_list = f"{items}, {extra}" if items else extra
    return text[: block.start("list")] + new_list + text[block.end("list") :]


def harvest(projects: dict[str, Project], releases: list[str] | None, cache: Cache, git: dict[str, Path], *, new: bool = False,
            root: Path = CATALOG_ROOT, config_path: Path = CONFIG_PATH, log: Callable[[str], None] = print,
            downloader: Callable | None = None) -> Outcome:
    """Harvest `projects` (all their configured releases, or `releases`; with `new`, only upstream releases newer
    than the catalog's last, appended to the catalog and to projects.yaml) and write their catalog files."""
    outcome = Outcome()
    rows = read_releases(root)
    for slug, project in projects.items():
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
        for version in versions:
            started = time.perf_counter()
            try:
                manifest = fetch_release(project, version, cache, git, downloader)
            except FetchError as exc:
                outcome.failures.append(f"{slug} {version}: {exc}")
                log(f"{slug} {version}: not harvested: {exc}")
                continue
            fetched = time.perf_counter()
            sites = list(release_sites(cache, project, manifest))
            fold.add_release(version, sites)
            finished = time.perf_counter()
            timing = Timing(slug, version, fetched - started, finished - fetched, len(manifest["files"]), len(sites))
            outcome.timings.append(timing)
            done.append(release_info(manifest))
            log(f"{slug} {version}: {timing.files} files, {timing.sites} sites, fetch {timing.fetch_s:.1f}s, extract {timing.extract_s:.1f}s, {len(fold.entries)} entries")
        if new and not done:
            continue
        if not fold.releases:
            continue
        outcome.written.append(write_catalog(fold, root))
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
