"""The catalog's share of a build, made in worker processes beside the Markdown builds.

The catalog's API files, the browser's match and drift data and the framed pages of each language are pure functions of
the loaded catalog (generator/site/catalogpages.py, generator/api/catalogmatch.py) and take most of a build's CPU time.
Made in the build process, they would run after each other while the machine's other core idles once mkdocs is
done; made in two forked workers (which share the loaded catalog with the build process), they run beside
mkdocs and beside each other. The results are the same bytes either way.
"""

from __future__ import annotations

import multiprocessing
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from .catalogpages import CatalogSite

WORKERS = 2
_VIEW: CatalogSite | None = None  # what the forked workers read: set before the pool starts


def _job(kind: str, arg: object) -> object:
    view = _VIEW
    assert view is not None
    if kind == "api":
        return view.api_files(str(arg))
    if kind == "match":
        from ..api.catalogmatch import catalog_match_files

        return catalog_match_files(Path(str(arg)), view.catalog)
    if kind == "drift":
        from ..api.driftfiles import drift_files

        return drift_files(Path(str(arg)) / "symbols")
    return view.html_pages_in(tuple(arg))  # every language at once: what the languages share is made once


class CatalogJobs:
    """The catalog's files and pages for one build, started at once, collected when needed."""

    def __init__(self, view: CatalogSite, folder: Path, base: str, langs: tuple[str, ...]):
        global _VIEW
        _VIEW = view
        context = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None
        self.pool = ProcessPoolExecutor(max_workers=WORKERS, mp_context=context)
        # The longest first: each worker takes the next job as it finishes one.
        self.match: Future = self.pool.submit(_job, "match", str(folder))
        self.api: Future = self.pool.submit(_job, "api", base)
        self.pages: Future = self.pool.submit(_job, "pages", langs)
        self.drift: Future = self.pool.submit(_job, "drift", str(folder))

    def api_files(self) -> dict[str, bytes]:
        return {**self.api.result(), **self.match.result(), **self.drift.result()}

    def html_pages(self, lang: str) -> dict[str, tuple[str, str, str]]:
        return self.pages.result()[lang]

    def close(self) -> None:
        global _VIEW
        self.pool.shutdown(wait=True, cancel_futures=True)
        _VIEW = None
