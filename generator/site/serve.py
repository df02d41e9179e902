"""Serve a built site from disk on localhost (a static file server: the site needs nothing else).

Text files go gzip-compressed to a client that accepts it, as a real host sends them (the paste page's index and
search's files are JSON and scripts); a folder with no index.html is the site's 404 page, never a listing."""

from __future__ import annotations

import functools
import gzip
import http.server
import io
import os
import threading
from pathlib import Path

COMPRESSED = (".html", ".css", ".js", ".json", ".ndjson", ".xml", ".svg", ".txt", ".map")


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Static files; an address with nothing behind it gets the site's own 404 page (the Chinese one under zh/),
    with status 404."""

    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".json": "application/json",
        ".ndjson": "application/x-ndjson",
        ".js": "text/javascript",
        ".pf_meta": "application/octet-stream",
        ".pf_fragment": "application/octet-stream",
        ".pf_index": "application/octet-stream",
    }


    _gzipped: dict[tuple[str, int, int], bytes] = {}  # (path, size, mtime) -> the compressed bytes
    _lock = threading.Lock()

    def send_head(self):  # noqa: ANN201 - the base class's contract: a file object or None
        path = self.translate_path(self.path)
        if os.path.isdir(path) and self.path.split("?", 1)[0].endswith("/"):
            path = os.path.join(path, "index.html")  # a page's folder: its index (else the 404 page, see below)
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not accepts or not path.endswith(COMPRESSED) or not os.path.isfile(path):
            return super().send_head()
        stat = os.stat(path)
        key = (path, stat.st_size, stat.st_mtime_ns)
        with self._lock:
            body = self._gzipped.get(key)
        if body is None:
            with open(path, "rb") as handle:
                body = gzip.compress(handle.read(), 6, mtime=0)
            with self._lock:
                if len(self._gzipped) > 2048:
                    self._gzipped.clear()
                self._gzipped[key] = body
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(path))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Vary", "Accept-Encoding")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Last-Modified", self.date_time_string(int(stat.st_mtime)))
        self.end_headers()
        return io.BytesIO(body)

    def list_directory(self, path):  # noqa: ANN001, ANN201 - a folder without index.html: the site's 404 page
        self.send_error(404, "Not Found")
        return None

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        if code != 404 or self.command not in ("GET", "HEAD"):
            super().send_error(code, message, explain)
            return
        root = Path(self.directory)
        lang_page = root / "zh" / "404.html"
        page = lang_page if self.path.startswith("/zh/") and lang_page.is_file() else root / "404.html"
        if not page.is_file():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404, message)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command == "GET":
            self.wfile.write(body)


def serve(root: Path, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve `root` until interrupted."""
    handler = functools.partial(_Handler, directory=str(root))
    with http.server.ThreadingHTTPServer((host, port), handler) as server:
        print(f"serving {root}/ at http://{host}:{port}/ (Ctrl-C to stop)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
