"""A release's published source, into a content-addressed cache outside the repository.

PyPI projects: `pip download --no-deps` of one wheel or sdist into a temporary folder; the files the project's
configuration harvests are stored by their sha256 (so a file unchanged between releases is stored once), a
manifest records the artifact's name and sha256 and each path's content hash, and the artifact is deleted.
Git projects: the tree at a tag, read from a local clone or mirror with `git ls-tree` and `git cat-file`.

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
import re
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from collections.abc import Callable, Iterator
from pathlib import Path

from ..artifacts import default_cache, sha256_file  # noqa: F401  (one cache and one hash for harvest and verify)
from .config import Project

MAX_MEMBER_BYTES = 16 * 1024 * 1024  # a source file larger than this is generated data, not code


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

    def manifest(self, project: str, version: str) -> dict | None:
        path = self.manifest_path(project, version)
        if not path.is_file():
            return None
        return json.loads(path.read_text(encoding="utf-8"))

    def save_manifest(self, project: str, version: str, manifest: dict) -> None:
        path = self.manifest_path(project, version)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(manifest, sort_keys=True, indent=0), encoding="utf-8")
        tmp.replace(path)


def pip_download(project: Project, version: str, dest: Path) -> Path:
    """Download one artifact of `project` at `version` with pip; returns its path."""
    cmd = [sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--disable-pip-version-check", "-d", str(dest)]
    if project.artifact == "sdist":
        cmd += ["--no-binary", ":all:"]
    elif not project.pip_platforms:  # pure-Python wheels: this interpreter's tags are enough
        cmd += ["--only-binary", ":all:"]
    else:
        cmd += ["--only-binary", ":all:", "--python-version", project.pip_python, "--implementation", "cp"]
        for platform in project.pip_platforms:
            cmd += ["--platform", platform]
        py = project.pip_python.replace(".", "")
        for abi in (f"cp{py}", "abi3", "none"):
            cmd += ["--abi", abi]
    cmd.append(f"{project.package}=={version}")
    done = subprocess.run(cmd, capture_output=True, text=True)
    files = sorted(p for p in dest.iterdir() if p.is_file())
    if done.returncode != 0 or not files:
        tail = "\n".join(line for line in done.stderr.splitlines() if not line.startswith("WARNING: Location"))[-600:]
        raise FetchError(f"pip download {project.package}=={version} failed: {tail.strip()}")
    return files[0]


def _members(artifact: Path) -> Iterator[tuple[str, Callable[[], bytes], int]]:
    """(path, reader, size) for every regular file in a wheel (zip) or sdist (tar); an sdist's top folder is cut."""
    name = artifact.name
    if name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(artifact) as archive:
            for info in archive.infolist():
                if not info.is_dir():
                    yield info.filename, (lambda i=info: archive.read(i)), info.file_size
    elif name.endswith((".tar.gz", ".tgz", ".tar")):
        with tarfile.open(artifact) as archive:
            for member in archive:
                if member.isfile():
                    path = member.name.split("/", 1)[1] if "/" in member.name else member.name
                    yield path, (lambda m=member: archive.extractfile(m).read()), member.size
    else:
        raise FetchError(f"{name}: neither a wheel nor an sdist")


def store_artifact(project: Project, version: str, artifact: Path, cache: Cache) -> dict:
    """Store the harvested files of one downloaded artifact; returns (and saves) its manifest."""
    files: dict[str, str] = {}
    for path, read, size in _members(artifact):
        if project.strip:
            if not path.startswith(project.strip):
                continue
            path = path[len(project.strip):]
        if size > MAX_MEMBER_BYTES or project.language_of(path) is None:
            continue
        files[path] = cache.put_blob(read())
    manifest = {"version": version, "source": "pypi", "artifact": artifact.name, "sha256": sha256_file(artifact), "files": files}
    cache.save_manifest(project.slug, version, manifest)
    return manifest


def fetch_pypi(project: Project, version: str, cache: Cache, downloader: Callable | None = None) -> dict:
    """The release's manifest, downloading the artifact first when the cache lacks it (deleted afterwards)."""
    manifest = cache.manifest(project.slug, version)
    if manifest is not None:
        return manifest
    cache.root.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="errdex-dl-", dir=cache.root) as tmp:
        artifact = (downloader or pip_download)(project, version, Path(tmp))
        return store_artifact(project, version, artifact, cache)


def _git(gitdir: Path, *args: str, input: bytes | None = None) -> bytes:
    done = subprocess.run(["git", "-C", str(gitdir), *args], capture_output=True, input=input)
    if done.returncode != 0:
        raise FetchError(f"git {' '.join(args[:3])} in {gitdir}: {done.stderr.decode('utf-8', 'replace').strip()[:300]}")
    return done.stdout


def fetch_git(project: Project, tag: str, gitdir: Path, cache: Cache) -> dict:
    """The manifest of the tree at `tag` in a local clone or mirror; files are read once per blob."""
    manifest = cache.manifest(project.slug, tag)
    if manifest is not None:
        return manifest
    if not re.fullmatch(r"[\w.+-]+", tag) or tag.startswith("-"):
        raise FetchError(f"{tag!r} is not a tag name")
    commit = _git(gitdir, "rev-parse", "--verify", f"refs/tags/{tag}^{{commit}}").decode().strip()
    listing = _git(gitdir, "ls-tree", "-r", "-z", "-l", commit)
    wanted: list[tuple[str, str]] = []
    for row in listing.split(b"\0"):
        if not row:
            continue
        meta, path = row.decode("utf-8", "replace").split("\t", 1)
        mode, kind, blob, size = meta.split()
        if kind != "blob" or mode == "120000" or size == "-" or int(size) > MAX_MEMBER_BYTES:
            continue
        if project.language_of(path) is not None:
            wanted.append((path, blob))
    files: dict[str, str] = {}
    if wanted:
        out = _git(gitdir, "cat-file", "--batch", input="".join(f"{blob}\n" for _, blob in wanted).encode())
        stream = io.BytesIO(out)
        for path, _ in wanted:
            header = stream.readline().split()
            size = int(header[2])
            files[path] = cache.put_blob(stream.read(size))
            stream.read(1)  # the newline after each object
    manifest = {"version": tag, "source": "git", "repo": project.repo, "tag": tag, "commit": commit, "files": files}
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
