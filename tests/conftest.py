"""Shared fixtures: the fixture dataset's site, built once per test session."""

from __future__ import annotations

import atexit
import contextlib
import functools
import http.server
import os
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

# Every test session starts with an empty cache of its own (findings, fetched files): no result of an earlier run,
# or of the developer's own commands, is read back.
os.environ["ERRDEX_CACHE"] = tempfile.mkdtemp(prefix="errdex-test-cache-")
atexit.register(shutil.rmtree, os.environ["ERRDEX_CACHE"], True)

DATASET = Path(__file__).parent / "fixtures" / "dataset"
REPO = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def built_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Build tests/fixtures/dataset with `errdex build` once; returns the output folder (the site root)."""
    from generator.cli import main

    out = tmp_path_factory.mktemp("site") / "site"
    code = main(["build", "--out", str(out), "--data", str(DATASET), "--quiet"])
    assert code == 0, "the fixture site failed to build"
    return out


@pytest.fixture(scope="session")
def real_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The repository's own records (data/errors) built once; returns the site root."""
    from generator.cli import main

    out = tmp_path_factory.mktemp("real") / "site"
    code = main(["build", "--out", str(out), "--data", str(REPO / "data" / "errors"), "--quiet"])
    assert code == 0, "the repository's data failed to build"
    return out


@pytest.fixture(scope="module")
def real_url(real_site: Path) -> Iterator[str]:
    """The repository's site served by a real HTTP server on localhost."""
    with serving(real_site) as url:
        yield url


# Tests of the repository's full data (data/errors, data/catalog): its checks, its built site, its download
# budgets. `make test` leaves them out to stay quick; `make test-data` runs them, and CI runs both.
DATA_FIXTURES = {"real_site", "real_url"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test that reads the repository's built site is a data test, whether or not it says so."""
    for item in items:
        if DATA_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.data)


@pytest.fixture(scope="session")
def bless() -> bool:
    """ERRDEX_BLESS=1 rewrites golden snapshots instead of comparing against them."""
    return os.environ.get("ERRDEX_BLESS") == "1"


# ---------------------------------------------------------------- the built site in headless Chromium

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


@contextlib.contextmanager
def serving(directory: Path) -> Iterator[str]:
    """`directory` served by a real HTTP server on localhost; yields its base URL."""
    handler = functools.partial(_Quiet, directory=str(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def base_url(built_site: Path) -> Iterator[str]:
    """The fixture site served by a real HTTP server on localhost."""
    with serving(built_site) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium, headless, driven by Playwright."""
    if not os.access(CHROMIUM, os.X_OK):
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, base_url):
    """A fresh page that records console errors, page errors, dialogs and requests to other hosts."""
    context = browser.new_context()
    pg = context.new_page()
    pg.problems = []
    pg.on("console", lambda m: m.type == "error" and pg.problems.append(f"console: {m.text}"))
    pg.on("pageerror", lambda e: pg.problems.append(f"pageerror: {e}"))
    pg.on("dialog", lambda d: (pg.problems.append(f"dialog: {d.message}"), d.dismiss()))
    pg.on("request", lambda r: r.url.startswith(base_url) or r.url.startswith("data:") or pg.problems.append(f"external request: {r.url}"))
    yield pg
    context.close()
