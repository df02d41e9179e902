"""`errdex serve`: text files gzip-compressed for a client that accepts it (the same bytes once decompressed), a
folder without index.html answered with the site's 404 page (never a listing), other files as they are."""

from __future__ import annotations

import functools
import gzip
import http.server
import threading
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from generator.site.serve import _Handler


@pytest.fixture
def site(tmp_path: Path):
    (tmp_path / "index.html").write_text("<h1>home</h1>" * 50, encoding="utf-8")
    (tmp_path / "404.html").write_text("<h1>not here</h1>", encoding="utf-8")
    (tmp_path / "api").mkdir()
    (tmp_path / "api" / "match.json").write_text('{"patterns": []}' * 40, encoding="utf-8")
    (tmp_path / "api" / "m0.json.gz").write_bytes(gzip.compress(b'{"a": 1}' * 40, mtime=0))
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "logo.png").write_bytes(b"\x89PNG" + bytes(200))
    (tmp_path / "errors" / "x").mkdir(parents=True)
    (tmp_path / "errors" / "x" / "index.html").write_text("<p>page</p>" * 30, encoding="utf-8")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Handler, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield tmp_path, f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def _get(url: str, gzip_ok: bool = True):
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"} if gzip_ok else {})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_text_goes_compressed_to_a_client_that_accepts_it(site):
    root, base = site
    for path, file in (("/", "index.html"), ("/api/match.json", "api/match.json"), ("/errors/x/", "errors/x/index.html")):
        status, headers, body = _get(base + path)
        assert status == 200 and headers["Content-Encoding"] == "gzip" and headers["Vary"] == "Accept-Encoding"
        assert gzip.decompress(body) == (root / file).read_bytes() and len(body) < len((root / file).read_bytes())
    status, headers, body = _get(base + "/api/match.json", gzip_ok=False)
    assert status == 200 and "Content-Encoding" not in headers and body == (root / "api" / "match.json").read_bytes()
    status, headers, body = _get(base + "/assets/logo.png")  # already compressed formats go as they are
    assert status == 200 and "Content-Encoding" not in headers and body == (root / "assets" / "logo.png").read_bytes()


def test_a_file_stored_gzipped_goes_as_it_is_and_says_so(site):
    """A `.json.gz` file (the browser's shards) is the gzip stream itself: never compressed again, never labelled
    JSON (a client reading the label would parse gzip bytes)."""
    root, base = site
    for gzip_ok in (True, False):
        status, headers, body = _get(base + "/api/m0.json.gz", gzip_ok=gzip_ok)
        named = {k.lower(): v for k, v in headers.items()}
        assert status == 200 and "content-encoding" not in named and named["content-type"] == "application/gzip"
        assert body == (root / "api" / "m0.json.gz").read_bytes()


def test_a_folder_without_an_index_is_the_404_page_not_a_listing(site):
    _, base = site
    for path in ("/api/", "/assets/", "/errors/"):
        status, _, body = _get(base + path, gzip_ok=False)
        assert status == 404 and body == b"<h1>not here</h1>", path
