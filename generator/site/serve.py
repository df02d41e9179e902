"""Serve a built site from disk on localhost (a static file server: the site needs nothing else)."""

from __future__ import annotations

import functools
import http.server
from pathlib import Path


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
