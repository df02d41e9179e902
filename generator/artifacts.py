"""Release artifacts: the published file (a wheel or an sdist) a record's snippet was checked in.

`errdex verify-sources --release` brings `source.release.artifact` from the package index with pip (exactly that
file: the wheel's own tags are passed to pip), keeps it in a cache by its sha256, refuses a file whose sha256
differs from the record's, and reads the snippet's file from inside it. With `--find-links DIR` (and no index)
the check runs offline from a folder of saved artifacts.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from .model import Release

MAX_MEMBER_BYTES = 8 * 1024 * 1024
# name-version(-build)?-python-abi-platform.whl
_WHEEL = re.compile(r"^(?P<name>[^-]+)-(?P<version>[^-]+)(?:-\d[^-]*)?-(?P<py>[^-]+)-(?P<abi>[^-]+)-(?P<plat>[^-]+)\.whl$")


class ArtifactError(Exception):
    """The artifact could not be brought, or does not hold the file."""


class ArtifactMismatch(ArtifactError):
    """The artifact brought is not the one the record names (another sha256)."""


def default_cache() -> Path:
    """The cache of artifacts and harvested sources, shared by verify-sources and harvest."""
    return Path(os.environ.get("ERRDEX_CACHE") or Path.home() / ".cache" / "errdex")


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def pip_arguments(release: Release) -> list[str]:
    """The `pip download` arguments that bring exactly `release.artifact` (a wheel's tags, or an sdist)."""
    assert release.package and release.artifact
    args = ["--no-deps", "--quiet", "--disable-pip-version-check"]
    wheel = _WHEEL.match(release.artifact)
    if wheel is None:
        args += ["--no-binary", ":all:"]
    else:
        args += ["--only-binary", ":all:"]
        py, abi, plat = wheel["py"], wheel["abi"], wheel["plat"]
        if plat != "any":
            # An abi3 wheel installs on any later CPython: ask as a current one, so that Requires-Python agrees.
            version = "3.12" if abi == "abi3" or not py.startswith("cp") else f"{py[2]}.{py[3:]}"
            args += ["--python-version", version, "--implementation", "cp", "--abi", abi]
            for platform in plat.split("."):
                args += ["--platform", platform]
    return args + [f"{release.package}=={release.version}"]


MAX_DOWNLOAD_BYTES = 4 * 1024 ** 3


def _download(url: str, dest: Path) -> None:
    """`url` (https only) to `dest`, at most MAX_DOWNLOAD_BYTES."""
    import urllib.request

    if not url.startswith("https://"):
        raise ArtifactError(f"{url}: only https addresses are fetched")
    tmp = dest.with_name(dest.name + ".part")
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers={"User-Agent": "errdex"}), timeout=60) as resp, tmp.open("wb") as out:
            total = 0
            while chunk := resp.read(1 << 20):
                total += len(chunk)
                if total > MAX_DOWNLOAD_BYTES:
                    raise ArtifactError(f"{url} is larger than {MAX_DOWNLOAD_BYTES} bytes")
                out.write(chunk)
        tmp.replace(dest)
    except OSError as exc:
        raise ArtifactError(f"cannot fetch {url}: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)


def fetchable(release: Release | None) -> bool:
    """Whether the release names an artifact this module can bring: from the package index, or from its address."""
    return release is not None and bool(release.artifact) and bool(release.package or release.url)


def fetch(release: Release, cache: Path, find_links: list[Path] | None = None) -> Path:
    """The artifact's path in the cache, downloading it first if needed (with pip from the package index, or from
    `release.url`); its sha256 must be the record's."""
    if not fetchable(release):
        raise ArtifactError("source.release names no package or address and artifact to fetch")
    if release.url and not release.sha256:
        raise ArtifactError("source.release.url needs source.release.sha256")
    folder = cache / "artifacts" / (release.sha256 or "unhashed")
    path = folder / release.artifact
    if not path.is_file() and release.url and not release.package:
        folder.mkdir(parents=True, exist_ok=True)
        local = [d / release.artifact for d in find_links or [] if (d / release.artifact).is_file()]
        if local:
            shutil.copyfile(local[0], path)
        elif find_links:
            raise ArtifactError(f"{release.artifact} is in none of the --find-links folders")
        else:
            _download(release.url, path)
    if not path.is_file():
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryDirectory(prefix="errdex-dl-", dir=folder) as tmp:
            cmd = [sys.executable, "-m", "pip", "download", "-d", tmp, *pip_arguments(release)]
            if find_links:
                cmd[4:4] = ["--no-index", *[a for d in find_links for a in ("--find-links", str(d))]]
            done = subprocess.run(cmd, capture_output=True, text=True)
            brought = Path(tmp) / release.artifact
            if not brought.is_file():
                tail = " ".join(line for line in done.stderr.splitlines() if not line.startswith("WARNING: Location"))[-300:]
                got = ", ".join(sorted(p.name for p in Path(tmp).iterdir())) or "nothing"
                raise ArtifactError(f"pip download {release.package}=={release.version} brought {got}, not {release.artifact}. {tail}".strip())
            shutil.move(str(brought), path)
    if release.sha256 and (actual := sha256_file(path)) != release.sha256:
        raise ArtifactMismatch(f"{release.artifact} has sha256 {actual}, not the record's {release.sha256}")
    return path


def members(artifact: Path) -> dict[str, tarfile.TarInfo | zipfile.ZipInfo]:
    """Path inside the artifact -> entry, for every regular file (an sdist's top folder cut)."""
    if artifact.name.endswith((".whl", ".zip")):
        with zipfile.ZipFile(artifact) as archive:
            return {info.filename: info for info in archive.infolist() if not info.is_dir()}
    with tarfile.open(artifact) as archive:
        return {m.name.split("/", 1)[-1]: m for m in archive.getmembers() if m.isfile()}


def read_member(artifact: Path, repo_path: str) -> str:
    """The text of the artifact's file that is `repo_path` of the repository: the same path, or one that ends
    with it or that it ends with (`src/transformers/x.py` is `transformers/x.py` in the wheel; llama.cpp's
    `tools/x.cpp` is `vendor/llama.cpp/tools/x.cpp` in llama-cpp-python's sdist)."""
    entries = members(artifact)
    if repo_path in entries:
        name = repo_path
    else:
        fits = sorted((n for n in entries if n.endswith("/" + repo_path) or repo_path.endswith("/" + n)), key=len, reverse=True)
        if not fits:
            raise ArtifactError(f"{artifact.name} holds no file that is {repo_path}")
        if len(fits) > 1 and len(fits[0]) == len(fits[1]):
            raise ArtifactError(f"{artifact.name} holds several files that could be {repo_path}: {', '.join(fits[:3])}")
        name = fits[0]
    entry = entries[name]
    size = entry.file_size if isinstance(entry, zipfile.ZipInfo) else entry.size
    if size > MAX_MEMBER_BYTES:
        raise ArtifactError(f"{name} in {artifact.name} is larger than {MAX_MEMBER_BYTES // (1024 * 1024)} MiB")
    if isinstance(entry, zipfile.ZipInfo):
        with zipfile.ZipFile(artifact) as archive:
            data = archive.read(entry)
    else:
        with tarfile.open(artifact) as archive:
            data = archive.extractfile(entry.name).read()  # type: ignore[union-attr]
    return data.decode("utf-8", "replace")
