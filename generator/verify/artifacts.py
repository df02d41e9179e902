"""Release artifacts: the published file (a wheel or an sdist) a record's snippet was checked in.

Fetching an artifact never runs anything from it, and never runs pip. `errdex verify-sources --release` asks the
package index's Simple API (JSON, PEP 691; $ERRDEX_INDEX_URL or https://pypi.org/simple/) for the files of
`source.release.package`, takes exactly the file named `source.release.artifact`, downloads it over https (size
capped) into a temporary file, and keeps it in the cache by sha256 only when its bytes have the sha256 the index
lists and the record's. With `--find-links DIR` (offline) the file of that exact name is taken from a folder of
saved artifacts, checked against the record's sha256 all the same; an artifact no package index has comes from
`source.release.url`. The file is then only read as an archive: regular members as bytes, each read bounded,
never extracted, no link followed.
"""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import stat
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import NamedTuple

from packaging.utils import canonicalize_name

from ..cachedir import default_cache, sha256_file  # noqa: F401  (the one cache root and file hash, for verify-sources and harvest)
from ..records.model import Release
from .packageindex import (  # noqa: F401  (ArtifactError and IndexUnreachable: the errors callers of fetch catch)
    SDIST_SUFFIXES,
    ArtifactError,
    ArtifactMismatch,
    IndexUnreachable,
    copy_checked,
    artifact_release,
    download,
    index_files,
    normal_version,
)

MAX_MEMBER_BYTES = 8 * 1024 * 1024  # the one file verify-sources reads
MAX_MEMBERS = 50_000  # entries in one archive (the largest harvested artifacts have some 6,000)
MAX_ZIP_DIRECTORY_BYTES = MAX_MEMBERS * 1024  # a zip's central directory, parsed whole when the zip is opened
MAX_UNPACKED_BYTES = 2 * 1024 ** 3  # an sdist's tar stream, decompressed: reaching a member means reading past those before it


# ---------------------------------------------------------------- verify-sources: the artifact a record names

def fetchable(release: Release | None) -> bool:
    """Whether the release names an artifact this module can bring: from the package index, or from its address."""
    return release is not None and bool(release.artifact) and bool(release.package or release.url)


def fetch(release: Release, cache: Path, find_links: list[Path] | None = None) -> Path:
    """The artifact's path in the cache, bringing it first if needed (from the package index, a --find-links
    folder, or `release.url`); a file enters the cache only once its sha256 is checked, and is checked again
    against the record's on every use."""
    if not fetchable(release):
        raise ArtifactError("source.release names no package or address and artifact to fetch")
    if release.url and not release.sha256:
        raise ArtifactError("source.release.url needs source.release.sha256")
    assert release.artifact
    _check_artifact_name(release)
    folder = cache / "artifacts" / (release.sha256 or "unhashed")
    path = folder / release.artifact
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="errdex-dl-", dir=folder) as tmp:
            _bring(release, Path(tmp) / release.artifact, find_links).replace(path)
    if release.sha256 and (actual := sha256_file(path)) != release.sha256:
        raise ArtifactMismatch(f"{release.artifact} has sha256 {actual}, not the record's {release.sha256}")
    return path


def _check_artifact_name(release: Release) -> None:
    """A package's artifact must be a file of that package at that version (its name says so)."""
    if not release.package:
        return
    assert release.artifact
    found = artifact_release(release.artifact)
    if found != (canonicalize_name(release.package), normal_version(release.version)):
        raise ArtifactError(f"{release.artifact} is not a file of {release.package}=={release.version}")


def _bring(release: Release, dest: Path, find_links: list[Path] | None) -> Path:
    assert release.artifact
    if find_links:
        local = [d / release.artifact for d in find_links if (d / release.artifact).is_file()]
        if not local:
            raise ArtifactError(f"{release.artifact} is in none of the --find-links folders")
        if not release.sha256:
            raise ArtifactError(f"{release.artifact}: a saved artifact is checked against source.release.sha256, which the record lacks")
        return copy_checked(local[0], dest, release.sha256)
    if release.package:
        return _from_index(release, dest)
    assert release.url and release.sha256
    return download(release.url, dest, release.sha256)


def _from_index(release: Release, dest: Path) -> Path:
    """Exactly the file the index lists under the record's artifact name, with the index's sha256."""
    assert release.package and release.artifact
    listed = [f for f in index_files(release.package) if f.filename == release.artifact]
    if not listed:
        raise ArtifactError(f"the package index lists no file {release.artifact} for {release.package}=={release.version}")
    entry = listed[0]
    if release.sha256 and entry.sha256 != release.sha256:
        raise ArtifactMismatch(f"the index lists {release.artifact} with sha256 {entry.sha256}, not the record's {release.sha256}")
    return download(entry.url, dest, entry.sha256, entry.size)


# ---------------------------------------------------------------- reading an artifact as an archive

class Member(NamedTuple):
    """A regular file inside an artifact: its path (an sdist's top folder cut), the size the archive declares,
    and `read(limit)`, which returns its bytes and refuses a member that holds more than `limit`."""

    path: str
    size: int
    read: Callable[[int], bytes]


_UNREADABLE = (zipfile.BadZipFile, tarfile.TarError, OSError, EOFError, zlib.error, lzma.LZMAError,
               RuntimeError, NotImplementedError, ValueError)


def members(artifact: Path) -> Iterator[Member]:
    """Every regular file of a wheel, a zip or a tar, in archive order; directories, links and devices are
    skipped. At most MAX_MEMBERS entries (a zip's are counted before any is read, a tar's as they come), and a
    tar's decompressed stream is read no further than MAX_UNPACKED_BYTES. Read each member while iterating."""
    name = artifact.name
    try:
        if name.endswith((".whl", ".zip")):
            yield from _zip_members(artifact, top=not name.endswith(".whl"))
        elif name.endswith(SDIST_SUFFIXES):
            yield from _tar_members(artifact)
        else:
            raise ArtifactError(f"{name}: neither a wheel nor an sdist")
    except _UNREADABLE as exc:
        raise ArtifactError(f"{name} is not a readable archive: {exc}") from exc


def _cut_top(path: str) -> str:
    return path.split("/", 1)[1] if "/" in path else path


def _zip_directory(artifact: Path) -> tuple[int, int]:
    """(entries, bytes) of a zip's central directory as its end record declares them (zip64 too), read before
    the directory is parsed; (0, 0) when there is no end record (opening the zip then fails)."""
    with artifact.open("rb") as stream:
        size = stream.seek(0, io.SEEK_END)
        stream.seek(max(0, size - 22 - 0xFFFF))  # the end record (22 bytes) and at most a 64 KiB comment
        tail = stream.read()
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or len(tail) < at + 22:
            return 0, 0
        entries, length = int.from_bytes(tail[at + 10:at + 12], "little"), int.from_bytes(tail[at + 12:at + 16], "little")
        if at >= 20 and tail[at - 20:at - 16] == b"PK\x06\x07":  # a zip64 locator: its end record holds the counts
            stream.seek(int.from_bytes(tail[at - 12:at - 4], "little"))
            record = stream.read(56)
            if record[:4] == b"PK\x06\x06" and len(record) == 56:
                entries, length = int.from_bytes(record[32:40], "little"), int.from_bytes(record[40:48], "little")
    return entries, length


def _zip_members(artifact: Path, top: bool) -> Iterator[Member]:
    entries, length = _zip_directory(artifact)
    _count(artifact, entries)
    if length > MAX_ZIP_DIRECTORY_BYTES:
        raise ArtifactError(f"{artifact.name} has a central directory of {length} bytes, over {MAX_ZIP_DIRECTORY_BYTES}")
    with zipfile.ZipFile(artifact) as archive:
        infos = archive.infolist()
        _count(artifact, len(infos))
        for info in infos:
            # A unix entry (create_system 3) may carry a file type in its mode: a link, a device, ... is skipped.
            kind = stat.S_IFMT(info.external_attr >> 16) if info.create_system == 3 else 0
            if info.is_dir() or kind not in (0, stat.S_IFREG):
                continue
            path = _cut_top(info.filename) if top else info.filename
            yield Member(path, info.file_size, lambda limit, i=info: _bounded(lambda: archive.open(i), limit, artifact, i.filename))


def _tar_members(artifact: Path) -> Iterator[Member]:
    # Streamed (mode "r|"): one pass, no seeking, every decompressed byte counted.
    with artifact.open("rb") as raw, _decompressed(raw, artifact.name) as plain:
        counted = _CappedReader(plain, MAX_UNPACKED_BYTES, artifact.name)
        with tarfile.open(fileobj=counted, mode="r|") as archive:
            for seen, member in enumerate(archive, 1):
                _count(artifact, seen)
                if member.isfile():  # regular files only: no symbolic or hard links, devices or folders
                    yield Member(_cut_top(member.name), member.size,
                                 lambda limit, m=member: _bounded(lambda: archive.extractfile(m), limit, artifact, m.name))


def _decompressed(raw: io.BufferedIOBase, name: str) -> io.BufferedIOBase:
    if name.endswith((".tar.gz", ".tgz")):
        return gzip.GzipFile(fileobj=raw)
    if name.endswith(".tar.xz"):
        return lzma.LZMAFile(raw)
    if name.endswith(".tar.bz2"):
        return bz2.BZ2File(raw)
    return raw  # a plain .tar


class _CappedReader(io.RawIOBase):
    """A stream that refuses to give more than `cap` bytes in all."""

    def __init__(self, inner: io.BufferedIOBase, cap: int, name: str) -> None:
        self.inner, self.cap, self.name, self.total = inner, cap, name, 0

    def readable(self) -> bool:
        return True

    def read(self, size: int = -1) -> bytes:
        data = self.inner.read(size if size >= 0 else self.cap + 1 - self.total)
        self.total += len(data)
        if self.total > self.cap:
            raise ArtifactError(f"{self.name} unpacks to more than {self.cap} bytes")
        return data


def _count(artifact: Path, entries: int) -> None:
    if entries > MAX_MEMBERS:
        raise ArtifactError(f"{artifact.name} has more than {MAX_MEMBERS} members")


def _bounded(open_member: Callable, limit: int, artifact: Path, name: str) -> bytes:
    """The member's bytes, at most `limit` of them read (a declared size can lie)."""
    try:
        with open_member() as stream:
            data = stream.read(limit + 1)
    except _UNREADABLE as exc:
        raise ArtifactError(f"{name} in {artifact.name} cannot be read: {exc}") from exc
    if len(data) > limit:
        raise ArtifactError(f"{name} in {artifact.name} holds more than {limit} bytes")
    return data


# Folders a package's build moves: a repository path under the key is under the value in the artifact (Triton's
# wheel installs each backend's `third_party/<name>/backend/` as `triton/backends/<name>/`).
BUILD_MOVES = {
    "third_party/nvidia/backend/": "triton/backends/nvidia/",
    "third_party/amd/backend/": "triton/backends/amd/",
}


def read_member(artifact: Path, repo_path: str) -> str:
    """The text of the artifact's file that is `repo_path` of the repository: the same path, or one that ends
    with it or that it ends with (`src/transformers/x.py` is `transformers/x.py` in the wheel; llama.cpp's
    `tools/x.cpp` is `vendor/llama.cpp/tools/x.cpp` in llama-cpp-python's sdist), or the path a build moves it
    to (BUILD_MOVES)."""
    entries = {m.path: n for n, m in enumerate(members(artifact))}  # a repeated path: the last one, as an unpacker would
    moved = next((to + repo_path[len(frm):] for frm, to in BUILD_MOVES.items() if repo_path.startswith(frm)), None)
    if repo_path in entries:
        name = repo_path
    elif moved is not None and moved in entries:
        name = moved
    else:
        fits = sorted((n for n in entries if n.endswith("/" + repo_path) or repo_path.endswith("/" + n)), key=len, reverse=True)
        if not fits:
            raise ArtifactError(f"{artifact.name} holds no file that is {repo_path}")
        if len(fits) > 1 and len(fits[0]) == len(fits[1]):
            raise ArtifactError(f"{artifact.name} holds several files that could be {repo_path}: {', '.join(fits[:3])}")
        name = fits[0]
    with closing(members(artifact)) as again:  # a tar is a stream: read the member while it is the current one
        member = next((m for n, m in enumerate(again) if n == entries[name]), None)
        if member is None:
            raise ArtifactError(f"{artifact.name} changed while it was read")
        if member.size > MAX_MEMBER_BYTES:
            raise ArtifactError(f"{name} in {artifact.name} is larger than {MAX_MEMBER_BYTES // (1024 * 1024)} MiB")
        return member.read(MAX_MEMBER_BYTES).decode("utf-8", "replace")
