"""Where the server's records come from, always in the JSON API's shape (docs/en/api.md).

Three sources give the same four files, so every tool answers from one shape whatever the source:
  - the records in data/errors, checked and exported in memory with generator.api.export.api_files;
  - a built site's API folder (`--api site/api`);
  - a published site's API (`--api https://errdex.dev/api/`), fetched once per dataset version and cached.
`errors.ndjson` holds every record document (a line is byte for byte the record's `errors/<id>.json`),
`errors.json` the aliases, `match.json` the patterns, and `manifest.json` the dataset version and the sha256
of each file, which is checked before a file is used.
"""

from __future__ import annotations

import functools
import hashlib
import os
import sys
import urllib.error
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import jsonline
from ..routes import API_ROOT, api_path
from ..terminal import shown

MANIFEST, NDJSON, INDEX, MATCH = (api_path(name) for name in ("manifest", "ndjson", "index", "match"))
FILES = (NDJSON, INDEX, MATCH)  # what the server reads besides the manifest
FETCH_TIMEOUT = 30.0
MAX_MANIFEST = 16 << 20
MAX_FILE = 1 << 30


class SourceError(Exception):
    """The records cannot be loaded from the source asked for; the message says why and what to do."""


@dataclass
class ApiData:
    """The API's records, ready for lookups."""

    manifest: dict[str, Any]
    index: dict[str, Any]  # errors.json
    match: dict[str, Any]  # match.json
    documents: dict[str, bytes]  # canonical id -> the bytes of errors/<id>.json
    names: dict[str, str]  # id or alias -> canonical id
    origin: str  # where the records came from, for people
    site_url: str | None = None  # absolute site root for page links, when known

    @property
    def dataset_version(self) -> str:
        return str(self.manifest.get("dataset_version", ""))

    def document(self, canonical: str) -> dict[str, Any]:
        return jsonline.read(self.documents[canonical])

    def page_url(self, path: str) -> str:
        """A site-relative link from the API (`/errors/x/`) as an absolute URL when the site's address is known."""
        if self.site_url:
            return urllib.parse.urljoin(self.site_url, path)
        return path

    def site_page(self, path: str) -> str:
        """A page by its path relative to the site root (routes), as `page_url` gives a record's: an absolute URL
        when the site's address is known, else site-relative (`/catalog/...`)."""
        return urllib.parse.urljoin(self.site_url, path) if self.site_url else "/" + path


def from_files(files: dict[str, bytes], origin: str, site_url: str | None = None, ids: list[str] | None = None) -> ApiData:
    """ApiData from the API's files (path -> bytes); every file is checked against the manifest. `ids`, when given,
    are the documents' record ids in order (a knowledge bundle stores them: otherwise each document is decoded for
    its id, 0.06 s for 486 records); a document is decoded when it is asked for."""
    try:
        manifest = jsonline.read(files[MANIFEST])
    except KeyError:
        raise SourceError(f"{origin}: no {MANIFEST}") from None
    except ValueError as exc:
        raise SourceError(f"{origin}: {MANIFEST} is not JSON: {exc}") from None
    listed = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(listed, dict):
        raise SourceError(f"{origin}: {MANIFEST} lists no files")
    for name in FILES:
        if name not in files:
            raise SourceError(f"{origin}: no {name}")
        expected = listed.get(name, {}).get("sha256") if isinstance(listed.get(name), dict) else None
        if expected != hashlib.sha256(files[name]).hexdigest():
            raise SourceError(f"{origin}: {name} does not match its sha256 in {MANIFEST} (a partial or mixed copy?)")
    try:
        index = jsonline.read(files[INDEX])
        match = jsonline.read(files[MATCH])
        lines = document_lines(files[NDJSON])
        if ids is None:
            ids = [record_id(line) for line in lines]
        elif len(ids) != len(lines) or not all(isinstance(i, str) for i in ids):
            raise SourceError(f"{origin}: {len(ids)} record ids for {len(lines)} documents")
        documents = dict(zip(ids, lines))
    except (ValueError, KeyError, TypeError) as exc:
        raise SourceError(f"{origin}: the API files are malformed: {exc!r}") from None
    names = {cid: cid for cid in documents}
    for entry in index.get("errors", []):
        for alias in entry.get("aliases", []):
            if entry.get("id") in documents:
                names.setdefault(alias, entry["id"])
    return ApiData(manifest, index, match, documents, names, origin, site_url)


def document_lines(ndjson: bytes) -> list[bytes]:
    """The record documents of errors.ndjson, one a line (blank lines left out)."""
    return [line for line in ndjson.splitlines(keepends=True) if line.strip()]


def record_id(line: bytes) -> Any:
    """A record document's id."""
    return jsonline.read(line)["record"]["id"]


def from_records(data: Path, site_url: str | None = None) -> ApiData:
    """Check the records in `data` (data/errors) and export the API in memory."""
    from ..api.export import api_files
    from ..findings import FORMATTERS
    from ..checks.pipeline import check

    if not Path(data).is_dir():
        raise SourceError(f"{data}/ is not a folder of records; pass --data DIR, or --api with a built API folder or URL")
    result = check([Path(data)], Path(data))
    if result.failed:
        sys.stderr.write(FORMATTERS["text"](result.findings, result.file_count))
        raise SourceError(f"the records in {data}/ do not pass validation; fix them, or pass --api")
    return from_files(api_files(result.records), f"the records in {data}/", site_url)


def from_folder(folder: Path, site_url: str | None = None) -> ApiData:
    """A built site's API folder (site/api); the site's own folder works too."""
    folder = Path(folder)
    if not (folder / MANIFEST).is_file() and (folder / API_ROOT / MANIFEST).is_file():
        folder = folder / API_ROOT
    files = {}
    for name in (MANIFEST, *FILES):
        try:
            files[name] = (folder / name).read_bytes()
        except OSError as exc:
            raise SourceError(f"cannot read {folder / name}: {exc.strerror or exc}; --api wants a built API folder (site/api)") from None
    return from_files(files, f"the API folder {folder}/", site_url)


@functools.cache
def _opener() -> Any:
    """An opener that follows redirects to http(s) only (urllib would also follow one to ftp:); made when a URL is
    first fetched (urllib.request and the http and email modules it brings take 17 ms to import)."""
    import urllib.request

    class HttpOnlyRedirects(urllib.request.HTTPRedirectHandler):
        def redirect_request(self, req, fp, code, msg, headers, newurl):  # noqa: ANN001
            if urllib.parse.urlsplit(newurl).scheme not in ("http", "https"):
                raise urllib.error.HTTPError(newurl, code, f"refusing a redirect to {newurl!r}", headers, fp)
            return super().redirect_request(req, fp, code, msg, headers, newurl)

    return urllib.request.build_opener(HttpOnlyRedirects)


def _fetch(url: str, limit: int) -> bytes:
    import urllib.request

    request = urllib.request.Request(url, headers={"User-Agent": "errdex-mcp", "Accept": "application/json"})
    with _opener().open(request, timeout=FETCH_TIMEOUT) as response:
        body = response.read(limit + 1)
    if len(body) > limit:
        raise SourceError(f"{url} is larger than {limit} bytes")
    return body


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "errdex"


def _read_manifest(url: str) -> tuple[str, bytes]:
    """(the API folder's URL, its manifest); a site's own address works too (its API is in api/)."""
    try:
        return url, _fetch(url + MANIFEST, MAX_MANIFEST)
    except urllib.error.HTTPError as exc:
        if exc.code != 404 or url.endswith("/" + API_ROOT):
            raise
        return url + API_ROOT, _fetch(url + API_ROOT + MANIFEST, MAX_MANIFEST)


def from_url(url: str, cache_dir: Path | None = None) -> ApiData:
    """A published API (the folder's URL, such as https://errdex.dev/api/): its manifest is read on every start,
    the other files only when its dataset version is not in the cache yet. Offline, the newest cached copy of
    that URL is used."""
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise SourceError(f"{url!r} is not an http(s) URL")
    if not url.endswith("/"):
        url += "/"
    site_url = urllib.parse.urljoin(url, "/")
    home = Path(cache_dir or default_cache_dir()) / "api" / hashlib.sha256(url.encode("utf-8")).hexdigest()[:16]
    try:
        url, manifest_bytes = _read_manifest(url)
        manifest = jsonline.read(manifest_bytes)
        version = str(manifest["dataset_version"])
        if not version.isalnum():
            raise SourceError(f"{url}{MANIFEST} has a malformed dataset_version")
    except (OSError, ValueError, KeyError, TypeError, urllib.error.URLError) as exc:
        cached = sorted((p for p in home.glob(f"*/{MANIFEST}")), key=lambda p: p.stat().st_mtime) if home.is_dir() else []
        if not cached:
            raise SourceError(f"cannot read {url}{MANIFEST} ({exc}) and nothing from it is cached in {home}") from None
        sys.stderr.write(f"errdex mcp: cannot read {shown(url)}{MANIFEST} ({shown(exc)}); using the cached copy in {shown(cached[-1].parent)}\n")
        return from_folder(cached[-1].parent, site_url)
    folder = home / version
    files = {MANIFEST: manifest_bytes}
    listed = manifest.get("files") if isinstance(manifest.get("files"), dict) else {}
    for name in FILES:
        path = folder / name
        expected = listed.get(name) if isinstance(listed.get(name), dict) else {}
        if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == expected.get("sha256"):
            files[name] = path.read_bytes()
            continue
        size = expected.get("size") if isinstance(expected.get("size"), int) else MAX_FILE
        try:
            files[name] = _fetch(url + name, min(size, MAX_FILE))
        except (OSError, urllib.error.URLError) as exc:
            raise SourceError(f"cannot fetch {url}{name}: {exc}") from None
    data = from_files(files, f"the API at {url}", site_url)  # checks every sha256 before anything is cached
    folder.mkdir(parents=True, exist_ok=True)
    for name in (*FILES, MANIFEST):  # the manifest last: a folder with one is complete
        body = files[name]
        tmp = folder / f".{name}.tmp"
        tmp.write_bytes(body)
        os.replace(tmp, folder / name)
    return data
