"""A release's published source, into a content-addressed cache outside the repository.

PyPI projects: the package index's Simple API (JSON, PEP 691; $ERRDEX_INDEX_URL or https://pypi.org/simple/)
lists each file with its sha256; the wheel or sdist the project's configuration asks for is chosen from the
file names as pip would choose it (`artifact`; for wheels the tags of CPython `pip_python` on `pip_platforms`,
or without platforms this interpreter's own), downloaded over https into a temporary folder and kept only if
its bytes have the listed sha256. Nothing from it is run, and pip is not run at all: the file is only read as
an archive (regular members, each read bounded). The files the configuration harvests are stored by their
sha256 (so a file unchanged between releases is stored once), within a budget per release (MAX_ARTIFACT_BYTES
of file contents and MAX_MEMBERS entries, checked on what the archive declares before anything is stored, and
again while reading); a manifest records the artifact's name and sha256 and each path's content hash, and the
artifact is deleted.
Git projects: the tree at a tag, read from a local clone or mirror with `git ls-tree` and `git cat-file`, within
the same budget.

Cache layout (default ~/.cache/errdex, or $ERRDEX_CACHE, or --cache):
  blobs/<2 hex>/<sha256>                   file contents
  releases/<project>/<version>.json        {"version", "source", "artifact", "sha256" | "repo", "tag", "commit", "files": {path: sha256}}
  sites/<extractor version>/<lang>/<2 hex>/<sha256>.json   extraction results per file content
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import platform
import re
import subprocess
import tempfile
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.tags import Tag, compatible_tags, cpython_tags, sys_tags
from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

from ..verify.artifacts import MAX_MEMBERS, members
from ..verify.packageindex import ArtifactError, IndexFile, artifact_release, download, index_files
from ..verify.artifacts import default_cache, sha256_file  # noqa: F401  (one cache and one hash for harvest and verify)
from .config import Project

MAX_MEMBER_BYTES = 16 * 1024 * 1024  # a source file larger than this is generated data, not code
# The harvested files of one release, in all: the largest real ones hold 57 MiB (sglang 0.5.23), 51 MiB
# (transformers 5.24.0), 41 MiB (vllm 0.33.0), 24 MiB (llama-cpp-python 0.3.36).
MAX_ARTIFACT_BYTES = 192 * 1024 * 1024


class FetchError(Exception):
    """A release could not be brought into the cache."""


class Cache:
    """The content-addressed store of harvested source files and release manifests."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root)

    def blob_path(self, sha: str) -> Path:
        return self.root / "blobs" / sha[:2] / sha

    def put_blob(self, data: bytes) -> str:
        sha = hashlib.sha256(data).hexdigest()
        path = self.blob_path(sha)
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")  # harvests may share the cache: each its own file
            tmp.write_bytes(data)
            tmp.replace(path)
        return sha

    def get_blob(self, sha: str) -> bytes:
        return self.blob_path(sha).read_bytes()

    def manifest_path(self, project: str, version: str) -> Path:
        return self.root / "releases" / project / f"{version}.json"

    def manifest(self, project: str, version: str, selection: str | None = None) -> dict | None:
        """The release's cached manifest; None when there is none, or (`selection` given) when it was made under
        another selection of files."""
        path = self.manifest_path(project, version)
        if not path.is_file():
            return None
        manifest = json.loads(path.read_text(encoding="utf-8"))
        if selection is not None and manifest.get("selection") != selection:
            return None
        return manifest

    def save_manifest(self, project: str, version: str, manifest: dict) -> None:
        path = self.manifest_path(project, version)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(manifest, sort_keys=True, indent=0), encoding="utf-8")
        tmp.replace(path)


# ---------------------------------------------------------------- which file of a release: as pip would choose

def supported_tags(project: Project) -> list[Tag]:
    """The wheel tags pip accepts, most preferred first, in pip's order (packaging.tags), so that the same file
    is chosen: those of CPython `pip_python` on `pip_platforms`, or without platforms this interpreter's own."""
    if not project.pip_platforms:
        return list(sys_tags())
    major, minor = (int(part) for part in project.pip_python.split(".")[:2])
    interpreter = f"cp{major}{minor}"
    platforms = _platforms(project.pip_platforms)
    tags = [*cpython_tags((major, minor), [interpreter, "abi3", "none"], platforms),
            *compatible_tags((major, minor), interpreter, platforms)]
    return list(dict.fromkeys(tags))


def _platforms(asked: list[str]) -> list[str]:
    """The platforms asked for, widened as pip widens them (a manylinux2014 system takes manylinux2010 and
    manylinux1 wheels too)."""
    out: list[str] = []
    for name in asked:
        prefix, _, arch = name.partition("_")
        wider = [name]
        if prefix == "manylinux2014" and arch in ("i686", "x86_64"):
            wider += [f"manylinux2010_{arch}", f"manylinux1_{arch}"]
        elif prefix == "manylinux2010":
            wider.append(f"manylinux1_{arch}")
        out += [p for p in wider if p not in out]
    return out


def target_python(project: Project) -> str:
    """The Python version a file's Requires-Python is checked against: `pip_python` with platforms, else this one."""
    return project.pip_python if project.pip_platforms else platform.python_version()


def _fits_python(entry: IndexFile, python: str) -> bool:
    if not entry.requires_python:
        return True
    try:
        return SpecifierSet(entry.requires_python).contains(python, prereleases=True)
    except InvalidSpecifier:
        return True  # as pip: an unreadable Requires-Python does not exclude the file


def _candidate(project: Project, entry: IndexFile, ranks: dict[Tag, int]) -> tuple[Version, tuple] | None:
    """(version, sort key: lower is preferred) of a file the project's configuration could take, else None."""
    assert project.package
    if not _fits_python(entry, target_python(project)):
        return None
    if project.artifact == "sdist":
        found = artifact_release(entry.filename)
        if found is None or entry.filename.endswith(".whl") or found[0] != canonicalize_name(project.package):
            return None
        try:
            version = Version(found[1])
        except InvalidVersion:
            return None
        return version, (entry.yanked, not entry.filename.endswith(".tar.gz"), entry.filename)
    try:
        name, version, build, tags = parse_wheel_filename(entry.filename)
    except (InvalidWheelFilename, InvalidVersion):
        return None
    rank = min((ranks[t] for t in tags if t in ranks), default=None)
    if name != canonicalize_name(project.package) or rank is None:
        return None
    # pip: not yanked, then the most preferred tag, then the highest build number; then the name, for one answer
    return version, (entry.yanked, rank, -build[0] if build else 1, entry.filename)


def _candidates(project: Project, files: list[IndexFile]) -> list[tuple[Version, tuple, IndexFile]]:
    ranks = {tag: n for n, tag in enumerate(supported_tags(project))}
    return [(c[0], c[1], f) for f in files if (c := _candidate(project, f, ranks)) is not None]


def choose_file(project: Project, version: str, files: list[IndexFile]) -> IndexFile | None:
    """The one file of `version` that the configuration asks for, among those the index lists."""
    try:
        wanted = Version(version)
    except InvalidVersion:
        return None
    fitting = [(key, f) for v, key, f in _candidates(project, files) if v == wanted]
    return min(fitting, key=lambda pair: pair[0])[1] if fitting else None


def release_versions(project: Project, files: list[IndexFile]) -> list[str]:
    """The final releases (no pre- or dev releases) that have a file the configuration takes and that is not
    yanked, newest first."""
    found = {v for v, key, _ in _candidates(project, files) if not key[0] and not v.is_prerelease}
    return [str(v) for v in sorted(found, reverse=True)]


def index_download(project: Project, version: str, dest: Path) -> Path:
    """The configured file of `project` at `version`, exactly as the index lists it, into `dest`; a file whose
    bytes do not have the listed sha256 is deleted unopened."""
    assert project.package
    try:
        chosen = choose_file(project, version, index_files(project.package))
        if chosen is None:
            where = ", ".join(project.pip_platforms or ["this machine"])
            what = "sdist" if project.artifact == "sdist" else f"wheel for Python {target_python(project)} on {where}"
            raise FetchError(f"the package index lists no {what} of {project.package}=={version}")
        return download(chosen.url, dest / chosen.filename, chosen.sha256, chosen.size)
    except ArtifactError as exc:
        raise FetchError(str(exc)) from exc


# ---------------------------------------------------------------- storing a release within its budget

def _over_budget(name: str, files: int, total: int) -> FetchError:
    return FetchError(f"{name}: its {files} files to harvest hold {total} bytes, over the budget of {MAX_ARTIFACT_BYTES} "
                      "bytes per release; no manifest saved")


def _harvested(project: Project, artifact: Path) -> dict[int, tuple[str, int]]:
    """Entry number -> (path, declared size) of the artifact's files the configuration harvests."""
    wanted: dict[int, tuple[str, int]] = {}
    for n, member in enumerate(members(artifact)):
        path = member.path
        if project.strip:
            if not path.startswith(project.strip):
                continue
            path = path[len(project.strip):]
        if member.size <= MAX_MEMBER_BYTES and project.language_of(path) is not None:
            wanted[n] = (path, member.size)
    return wanted


def _store_members(artifact: Path, wanted: dict[int, tuple[str, int]], cache: Cache) -> dict[str, str]:
    """Store the wanted entries; each read is bounded by its declared size and by what is left of the budget."""
    files: dict[str, str] = {}
    left = MAX_ARTIFACT_BYTES
    with closing(members(artifact)) as entries:
        for n, member in enumerate(entries):
            if n not in wanted:
                continue
            path, size = wanted[n]
            if size > left:
                raise _over_budget(artifact.name, len(wanted), MAX_ARTIFACT_BYTES - left + size)
            data = member.read(size)
            left -= len(data)
            files[path] = cache.put_blob(data)
    return files


def store_artifact(project: Project, version: str, artifact: Path, cache: Cache) -> dict:
    """Store the harvested files of one downloaded artifact; returns (and saves) its manifest. An artifact over
    the budget, or that cannot be read, is a FetchError and leaves no manifest."""
    try:
        wanted = _harvested(project, artifact)  # a first pass on declared sizes: nothing is stored yet
        total = sum(size for _, size in wanted.values())
        if total > MAX_ARTIFACT_BYTES:
            raise _over_budget(artifact.name, len(wanted), total)
        files = _store_members(artifact, wanted, cache)
    except ArtifactError as exc:
        raise FetchError(str(exc)) from exc
    manifest = {"version": version, "source": "pypi", "artifact": artifact.name, "sha256": sha256_file(artifact), "files": files,
                "selection": project.selection()}
    cache.save_manifest(project.slug, version, manifest)
    return manifest


def fetch_pypi(project: Project, version: str, cache: Cache, downloader: Callable | None = None) -> dict:
    """The release's manifest, downloading the artifact first when the cache lacks it (deleted afterwards)."""
    manifest = cache.manifest(project.slug, version, project.selection())
    if manifest is not None:
        return manifest
    cache.root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="errdex-dl-", dir=cache.root) as tmp:
        artifact = (downloader or index_download)(project, version, Path(tmp))
        return store_artifact(project, version, artifact, cache)


def _git(gitdir: Path, *args: str, input: bytes | None = None) -> bytes:
    done = subprocess.run(["git", "-C", str(gitdir), *args], capture_output=True, input=input)
    if done.returncode != 0:
        raise FetchError(f"git {' '.join(args[:3])} in {gitdir}: {done.stderr.decode('utf-8', 'replace').strip()[:300]}")
    return done.stdout


def fetch_git(project: Project, tag: str, gitdir: Path, cache: Cache) -> dict:
    """The manifest of the tree at `tag` in a local clone or mirror; files are read once per blob."""
    manifest = cache.manifest(project.slug, tag, project.selection())
    if manifest is not None:
        return manifest
    if not re.fullmatch(r"[\w.+-]+", tag) or tag.startswith("-"):
        raise FetchError(f"{tag!r} is not a tag name")
    commit = _git(gitdir, "rev-parse", "--verify", f"refs/tags/{tag}^{{commit}}").decode().strip()
    listing = _git(gitdir, "ls-tree", "-r", "-z", "-l", commit)
    rows = [row for row in listing.split(b"\0") if row]
    if len(rows) > MAX_MEMBERS:
        raise FetchError(f"{project.repo} at {tag} has more than {MAX_MEMBERS} entries")
    wanted: list[tuple[str, str]] = []
    total = 0
    for row in rows:
        meta, path = row.decode("utf-8", "replace").split("\t", 1)
        mode, kind, blob, size = meta.split()
        if kind == "blob" and not size.isdigit() and size != "-":  # "BAD": a partial mirror lacks the object
            if project.language_of(path) is not None:
                raise FetchError(f"{project.repo} at {tag}: {path} is not in the clone (a partial mirror?)")
            continue
        if kind != "blob" or mode == "120000" or size == "-" or int(size) > MAX_MEMBER_BYTES:
            continue
        if project.language_of(path) is not None:
            wanted.append((path, blob))
            total += int(size)
    if total > MAX_ARTIFACT_BYTES:
        raise _over_budget(f"{project.repo} at {tag}", len(wanted), total)
    files: dict[str, str] = {}
    if wanted:
        out = _git(gitdir, "cat-file", "--batch", input="".join(f"{blob}\n" for _, blob in wanted).encode())
        stream = io.BytesIO(out)
        for path, _ in wanted:
            header = stream.readline().split()
            size = int(header[2])
            files[path] = cache.put_blob(stream.read(size))
            stream.read(1)  # the newline after each object
    manifest = {"version": tag, "source": "git", "repo": project.repo, "tag": tag, "commit": commit, "files": files,
                "selection": project.selection()}
    cache.save_manifest(project.slug, tag, manifest)
    return manifest


def git_tags(gitdir: Path) -> list[str]:
    """Every tag of a local repository."""
    return [t for t in _git(gitdir, "tag", "--list").decode().split() if t]


def release_info(manifest: dict) -> dict:
    """The releases.json row of a release (no file list)."""
    if manifest["source"] == "git":
        return {"version": manifest["version"], "source": "git", "repo": manifest["repo"], "tag": manifest["tag"], "commit": manifest["commit"]}
    return {"version": manifest["version"], "source": "pypi", "artifact": manifest["artifact"], "sha256": manifest["sha256"]}
