"""The catalog's share of a build, made in worker processes beside the Markdown builds.

The catalog's API files, the browser's match and drift data and the framed pages of each language are pure functions of
the loaded catalog (generator/site/catalogpages.py, generator/api/catalogmatch.py) and take most of a build's CPU time.
Made in the build process, they would run after each other while the machine's other core idles once mkdocs is
done; made in two forked workers (which share the loaded catalog with the build process), they run beside
mkdocs and beside each other. The results are the same bytes either way.

The browser's match data and drift data depend on the catalog's files alone (not on the records or the site's
address): they are kept in the cache (`site/<kind>-<hash>.bundle`, in the knowledge bundle's format, each file a
section with its sha256), under the hash of this code and of every file they are made from, and read back by the next
build of the same catalog: a contributor who changes records rebuilds without remaking them. A kept file whose hash
is not the data's, or that does not read back, is made again.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path

from ..bundle import Bundle, BundleError, encode, hash_files
from ..cachedir import code_version, default_cache, write_kept
from .catalogpages import CatalogSite

WORKERS = 2
KEEP = 2  # kept outputs of each kind (two catalogs: switching between two branches remakes nothing)
_VIEW: CatalogSite | None = None  # what the forked workers read: set before the pool starts


def _job(kind: str, arg: object) -> object:
    view = _VIEW
    assert view is not None
    if kind == "api":
        return view.api_files(str(arg))
    if kind == "match":
        from ..api.catalogmatch import catalog_match_files

        folder = Path(str(arg))
        return kept("match", sorted(p for p in folder.iterdir() if p.is_file()), lambda: catalog_match_files(folder, view.catalog))
    if kind == "drift":
        from ..api.driftfiles import drift_files

        folder = Path(str(arg)) / "symbols"
        return kept("drift", sorted(folder.glob("*.jsonl")), lambda: drift_files(folder))
    if kind == "messages":
        from .catalogmessages import message_pages

        return message_pages(view, tuple(arg))
    return view.html_pages_in(tuple(arg))  # every language at once: what the languages share is made once


def kept(kind: str, inputs: list[Path], make: Callable[[], dict[str, bytes]]) -> dict[str, bytes]:
    """`make()`'s files, read from the cache when the same code made them from the same `inputs` (each file's name
    and bytes); made, and kept, otherwise. ERRDEX_NO_CACHE=1 always makes them."""
    if os.environ.get("ERRDEX_NO_CACHE") == "1":
        return make()
    h = hashlib.sha256(f"errdex site {kind}\n{code_version()}\n".encode())
    hash_files(h, ((path.name, path) for path in inputs))
    digest = h.hexdigest()
    path = default_cache() / "site" / f"{kind}-{digest}.bundle"
    if path.is_file():
        try:
            found = Bundle(path)
            if found.data_hash == digest:
                return {name: found.section(name) for name in sorted(found.header["sections"])}
        except (BundleError, OSError):
            pass  # made again below
    files = make()
    try:
        write_kept(path, encode(files, {"kind": kind, "files": len(files)}, digest), path.parent.glob(f"{kind}-*.bundle"), KEEP)
    except OSError:
        pass  # a cache that cannot be written costs time, never an answer
    return files


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
        self.messages: Future = self.pool.submit(_job, "messages", langs)
        self.drift: Future = self.pool.submit(_job, "drift", str(folder))

    def api_files(self) -> dict[str, bytes]:
        return {**self.api.result(), **self.match.result(), **self.drift.result()}

    def html_pages(self, lang: str) -> dict[str, tuple[str, str, str]]:
        return self.pages.result()[lang]

    def message_pages(self, lang: str) -> dict[str, tuple[str, str, str]]:
        """Each user-facing entry's own page in `lang` (written as lean pages, frames.LeanPage)."""
        return self.messages.result()[lang]

    def close(self) -> None:
        global _VIEW
        self.pool.shutdown(wait=True, cancel_futures=True)
        _VIEW = None
