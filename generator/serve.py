"""Serve a built site from disk on localhost (a static file server: the site needs nothing else)."""

from __future__ import annotations

import functools
import http.server
from pathlib import Path


class _Handler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {
        **http.server.SimpleHTTPRequestHandler.extensions_map,
        ".json": "application/json",
        ".ndjson": "application/x-ndjson",
        ".js": "text/javascript",
        ".pf_meta": "application/octet-stream",
        ".pf_fragment": "application/octet-stream",
        ".pf_index": "application/octet-stream",
    }


def serve(root: Path, host: str = "127.0.0.1", port: int = 8000) -> None:
    """Serve `root` until interrupted."""
    handler = functools.partial(_Handler, directory=str(root))
    with http.server.ThreadingHTTPServer((host, port), handler) as server:
        print(f"serving {root}/ at http://{host}:{port}/ (Ctrl-C to stop)")
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
