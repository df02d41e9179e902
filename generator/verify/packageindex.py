"""The package index: the files a project publishes, as its Simple API (JSON, PEP 691) lists them, and the
download of one of them, kept only when its bytes have the listed sha256. Nothing here runs pip or opens a file.

$ERRDEX_INDEX_URL names another index (a mirror, or a test index on 127.0.0.1); only https addresses are
fetched, and plain http only to this machine when the index itself is set there.
"""

from __future__ import annotations

import hashlib
import http.client
import io
import json
import os
import re
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from packaging.utils import InvalidWheelFilename, canonicalize_name, parse_wheel_filename
from packaging.version import InvalidVersion, Version

INDEX_URL = "https://pypi.org/simple/"
SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"
MAX_INDEX_BYTES = 64 * 1024 ** 2  # one project's page (vllm's lists some thousand files)
MAX_DOWNLOAD_BYTES = 4 * 1024 ** 3
LOOPBACK = ("127.0.0.1", "::1")
SAFE_FILENAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+!-]*")
SDIST_SUFFIXES = (".tar.gz", ".tgz", ".tar.xz", ".tar.bz2", ".tar", ".zip")
_TIMEOUT = 60
_NETWORK = (OSError, http.client.HTTPException)  # a connection lost or cut short while a body is read


class ArtifactError(Exception):
    """The artifact could not be brought, or does not hold the file."""


class ArtifactMismatch(ArtifactError):
    """The artifact brought is not the one the record names (another sha256)."""


class IndexUnreachable(ArtifactError):
    """The package index or the file's host could not be asked (network, server error)."""


# ---------------------------------------------------------------- the index and the network

@dataclass(frozen=True)
class IndexFile:
    """One file a project's Simple API page lists."""

    filename: str
    url: str
    sha256: str
    requires_python: str | None = None
    yanked: bool = False
    size: int | None = None


def index_url() -> str:
    """The Simple API's base: $ERRDEX_INDEX_URL (a mirror, or a local test index) or PyPI's."""
    url = os.environ.get("ERRDEX_INDEX_URL") or INDEX_URL
    check_url(url)
    return url if url.endswith("/") else url + "/"


def _is_loopback_http(url: str) -> bool:
    parts = urllib.parse.urlsplit(url)
    return parts.scheme == "http" and parts.hostname in LOOPBACK


def check_url(url: str) -> None:
    """Only https addresses are fetched; plain http only on this machine, and only when the index itself was
    explicitly set to a loopback http address (a test index)."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme == "https" and parts.hostname:
        return
    if _is_loopback_http(url) and _is_loopback_http(os.environ.get("ERRDEX_INDEX_URL") or ""):
        return
    raise ArtifactError(f"{url}: only https addresses are fetched")


class _CheckedRedirects(urllib.request.HTTPRedirectHandler):
    """A redirect must satisfy the same rule as the address asked (no https -> http downgrade)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001 (urllib's signature)
        check_url(newurl)
        return super().redirect_request(req, fp, code, msg, headers, newurl)


def _open(url: str, accept: str | None = None):  # noqa: ANN202 (an http.client response)
    check_url(url)
    headers = {"User-Agent": "errdex"}
    if accept:
        headers["Accept"] = accept
    opener = urllib.request.build_opener(_CheckedRedirects)
    try:
        return opener.open(urllib.request.Request(url, headers=headers), timeout=_TIMEOUT)
    except urllib.error.HTTPError as exc:
        kind = ArtifactError if exc.code in (404, 410) else IndexUnreachable  # gone, or the server failed
        raise kind(f"{url} answered HTTP {exc.code}") from exc
    except (urllib.error.URLError, OSError) as exc:
        raise IndexUnreachable(f"cannot fetch {url}: {getattr(exc, 'reason', exc)}") from exc


def parse_simple_page(body: bytes, page_url: str) -> list[IndexFile]:
    """The files of a Simple API JSON page (PEP 691), addresses made absolute; an entry without a sha256 or with
    an unsafe file name is left out (it could not be checked, or named, safely)."""
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError) as exc:
        raise ArtifactError(f"{page_url}: not a Simple API JSON page: {exc}") from exc
    meta = doc.get("meta") if isinstance(doc, dict) else None
    version = str(meta.get("api-version", "")) if isinstance(meta, dict) else ""
    if not version.startswith("1.") or not isinstance(doc.get("files"), list):
        raise ArtifactError(f"{page_url}: not a Simple API JSON page (api-version 1.x with a list of files)")
    return [f for f in (_index_file(entry, page_url) for entry in doc["files"]) if f is not None]


def _index_file(entry: object, page_url: str) -> IndexFile | None:
    if not isinstance(entry, dict):
        return None
    name, url, hashes = entry.get("filename"), entry.get("url"), entry.get("hashes")
    sha = hashes.get("sha256") if isinstance(hashes, dict) else None
    if not (isinstance(name, str) and SAFE_FILENAME.fullmatch(name) and isinstance(url, str)
            and isinstance(sha, str) and re.fullmatch(r"[0-9a-f]{64}", sha)):
        return None
    requires = entry.get("requires-python")
    size = entry.get("size")
    return IndexFile(
        filename=name,
        url=urllib.parse.urldefrag(urllib.parse.urljoin(page_url, url)).url,
        sha256=sha,
        requires_python=requires if isinstance(requires, str) else None,
        yanked=bool(entry.get("yanked")),  # false, or true / a reason
        size=size if isinstance(size, int) and not isinstance(size, bool) else None,
    )


def index_files(package: str) -> list[IndexFile]:
    """Every file the package index lists for `package`."""
    if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", package or ""):
        raise ArtifactError(f"{package!r} is not a package name")
    url = f"{index_url()}{canonicalize_name(package)}/"
    with _open(url, SIMPLE_JSON) as response:
        kind = response.headers.get_content_type()
        if kind != SIMPLE_JSON:
            raise ArtifactError(f"{url} answered {kind}, not {SIMPLE_JSON}")
        try:
            body = response.read(MAX_INDEX_BYTES + 1)
        except _NETWORK as exc:
            raise IndexUnreachable(f"cannot fetch {url}: {exc}") from exc
    if len(body) > MAX_INDEX_BYTES:
        raise ArtifactError(f"{url} is larger than {MAX_INDEX_BYTES} bytes")
    return parse_simple_page(body, url)


def download(url: str, dest: Path, sha256: str, size: int | None = None) -> Path:
    """`url` into `dest` (at most MAX_DOWNLOAD_BYTES), kept only when its bytes have `sha256`; the hash is taken
    while the bytes arrive, so nothing reads the file before it is known to be the one listed."""
    if size is not None and size > MAX_DOWNLOAD_BYTES:
        raise ArtifactError(f"{dest.name} is listed at {size} bytes, over the {MAX_DOWNLOAD_BYTES}-byte cap")
    with _open(url) as response:
        try:
            return _save_checked(response, url, dest, sha256)
        except _NETWORK as exc:
            raise IndexUnreachable(f"cannot fetch {url}: {exc}") from exc


def _save_checked(stream: io.RawIOBase | io.BufferedIOBase, origin: str, dest: Path, sha256: str) -> Path:
    """Copy `stream` into `dest` with a size cap, hashing as it goes; a file of another sha256 is deleted."""
    digest = hashlib.sha256()
    total = 0
    try:
        with dest.open("xb") as out:
            while chunk := stream.read(1 << 20):
                total += len(chunk)
                if total > MAX_DOWNLOAD_BYTES:
                    raise ArtifactError(f"{origin} is larger than {MAX_DOWNLOAD_BYTES} bytes")
                digest.update(chunk)
                out.write(chunk)
        if digest.hexdigest() != sha256:
            raise ArtifactMismatch(f"{dest.name} from {origin} has sha256 {digest.hexdigest()}, not {sha256}; refused unopened")
    except BaseException:
        dest.unlink(missing_ok=True)
        raise
    return dest


def copy_checked(source: Path, dest: Path, sha256: str) -> Path:
    try:
        with source.open("rb") as stream:
            return _save_checked(stream, str(source), dest, sha256)
    except OSError as exc:
        raise ArtifactError(f"cannot read {source}: {exc}") from exc


# ---------------------------------------------------------------- file names

def artifact_release(filename: str) -> tuple[str, str] | None:
    """(normalised project name, version) of a wheel or sdist file name, or None when it is neither."""
    if filename.endswith(".whl"):
        try:
            name, version, _, _ = parse_wheel_filename(filename)
        except (InvalidWheelFilename, InvalidVersion):
            return None
        return name, str(version)
    suffix = next((s for s in SDIST_SUFFIXES if filename.endswith(s)), None)
    if suffix is None:
        return None
    name, dash, version = filename[: -len(suffix)].rpartition("-")
    if not dash or not name:
        return None
    return canonicalize_name(name), normal_version(version)


def normal_version(version: str) -> str:
    """A PEP 440 version in its normal form (`1.0.0-rc1` is `1.0.0rc1`); any other text as it is."""
    try:
        return str(Version(version))
    except InvalidVersion:
        return version
