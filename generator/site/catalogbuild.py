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

The whole share (the API files, the match and drift data, the framed and lean pages of each language, the Markdown
pages the theme renders and the pages' addresses) is kept too, as one file (`site/catalog-<hash>.bundle`), under the
hash of this code, of the catalog's files, of what its pages say of the records (generator.site.facts.RecordFacts),
of the site's base path and repository and of the languages. A build of the same catalog for the same records reads
it back instead of loading, checking and rendering the catalog: a kept share was made from a catalog that passed
every check, and the same code judges the same bytes the same way. It is read whole and every section checked
before anything of it is used: a damaged or foreign file is made again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from typing import Any

from ..bundle import Bundle, BundleError, _compact, encode, hash_files
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


def read_kept(path: Path, digest: str) -> dict[str, bytes] | None:
    """The sections of a kept file made under `digest`, every one checked against its sha256; None when there is
    none, or it is damaged or foreign (then it is made again)."""
    if not path.is_file():
        return None
    try:
        found = Bundle(path)
        if found.data_hash == digest:
            return {name: found.section(name) for name in sorted(found.header["sections"])}
    except (BundleError, OSError, ValueError, KeyError):
        pass
    return None


def kept(kind: str, inputs: list[Path], make: Callable[[], dict[str, bytes]]) -> dict[str, bytes]:
    """`make()`'s files, read from the cache when the same code made them from the same `inputs` (each file's name
    and bytes); made, and kept, otherwise. ERRDEX_NO_CACHE=1 always makes them."""
    if os.environ.get("ERRDEX_NO_CACHE") == "1":
        return make()
    h = hashlib.sha256(f"errdex site {kind}\n{code_version()}\n".encode())
    hash_files(h, ((path.name, path) for path in inputs))
    digest = h.hexdigest()
    path = default_cache() / "site" / f"{kind}-{digest}.bundle"
    found = read_kept(path, digest)
    if found is not None:
        return found
    files = make()
    try:
        write_kept(path, encode(files, {"kind": kind, "files": len(files)}, digest), path.parent.glob(f"{kind}-*.bundle"), KEEP)
    except OSError:
        pass  # a cache that cannot be written costs time, never an answer
    return files


class CatalogJobs:
    """The catalog's files and pages for one build, started at once, collected when needed."""

    def __init__(self, view: CatalogSite, folder: Path, base: str, langs: tuple[str, ...], key: str | None = None):
        global _VIEW
        _VIEW = view
        self.view, self.langs, self.key = view, langs, key
        self._sources: dict[str, dict[str, str]] = {}
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

    def source_pages(self, lang: str) -> dict[str, str]:
        """The catalog's Markdown pages for `lang`'s docs folder (frames.source_pages)."""
        if lang not in self._sources:
            from .frames import source_pages

            self._sources[lang] = source_pages(self.view, lang)
        return self._sources[lang]

    @functools.cached_property
    def meta(self) -> dict[str, Any]:
        from .catalogmessages import message_urls

        return {"entries": sum(len(p.entries) for p in self.view.catalog.projects.values()),
                "page_urls": self.view.page_urls(), "message_urls": message_urls(self.view)}

    def keep(self) -> None:
        """Keep the whole share in the cache (when made under a key), for the next build of the same inputs."""
        if self.key is None:
            return
        sections = {f"api/{name}": body for name, body in self.api_files().items()}
        sections["meta"] = _compact(self.meta)
        for lang in self.langs:
            sections[f"pages/{lang}"] = _compact(self.html_pages(lang))
            sections[f"messages/{lang}"] = _compact(self.message_pages(lang))
            sections[f"sources/{lang}"] = _compact(self.source_pages(lang))
        path = default_cache() / "site" / f"catalog-{self.key}.bundle"
        try:
            write_kept(path, encode(sections, {"kind": "catalog"}, self.key), path.parent.glob("catalog-*.bundle"), KEEP)
        except OSError:
            pass  # a cache that cannot be written costs time, never an answer

    def close(self) -> None:
        global _VIEW
        self.pool.shutdown(wait=True, cancel_futures=True)
        self.meta  # noqa: B018  (made while the catalog is at hand: the build reads it after closing)
        _VIEW = self.view = None


class KeptCatalog:
    """The catalog's share of a build read back from the cache (`CatalogJobs.keep`): the same files and pages."""

    def __init__(self, sections: dict[str, bytes]):
        self.sections = sections
        self.meta = json.loads(sections["meta"])

    def api_files(self) -> dict[str, bytes]:
        return {name[4:]: body for name, body in self.sections.items() if name.startswith("api/")}

    def html_pages(self, lang: str) -> dict[str, tuple[str, str, str]]:
        return {url: tuple(page) for url, page in json.loads(self.sections[f"pages/{lang}"]).items()}

    def message_pages(self, lang: str) -> dict[str, tuple[str, str, str]]:
        return {url: tuple(page) for url, page in json.loads(self.sections[f"messages/{lang}"]).items()}

    def source_pages(self, lang: str) -> dict[str, str]:
        return json.loads(self.sections[f"sources/{lang}"])

    def keep(self) -> None:
        pass  # read from the cache: kept already

    def close(self) -> None:
        pass  # no worker to stop: what was read stays for the pages written after


def catalog_key(folder: Path, records: list, base: str, repo_url: str | None, langs: tuple[str, ...]) -> str:
    """The hash the catalog's share of a build is kept under: this code, the catalog's files (the project files,
    releases, projects, links and the symbol index), what the pages say of the records, the base path, the
    repository and the languages."""
    from .facts import record_facts

    h = hashlib.sha256(f"errdex site catalog\n{code_version()}\n{base}\n{repo_url}\n{','.join(langs)}\n".encode())
    facts = {rid: {"title": f.title, "message": f.message} for rid, f in sorted(record_facts(records).items())}
    h.update(_compact(facts))
    # every entry of the folder and of symbols/ by name and kind (the checks refuse a link or a stray folder), and
    # the bytes of each regular file
    for sub in (folder, folder / "symbols"):
        for p in sorted(sub.iterdir()) if sub.is_dir() and not sub.is_symlink() else ():
            kind = "link" if p.is_symlink() else "file" if p.is_file() else "dir" if p.is_dir() else "other"
            name = p.relative_to(folder).as_posix()
            h.update(f"{kind} {name}\n".encode("utf-8", "surrogateescape"))
            if kind == "file":
                hash_files(h, [(name, p)])
    return h.hexdigest()


def open_share(folder: Path, records: list, base: str, repo_url: str | None, langs: tuple[str, ...]) -> Any:
    """The catalog's share of this build: kept from an earlier build of the same inputs (KeptCatalog), else its
    jobs started on the loaded, checked catalog (CatalogJobs), or None when the folder holds no catalog to show.
    Raises checks.catalog.CatalogRefused for a catalog with findings."""
    key = None
    if os.environ.get("ERRDEX_NO_CACHE") != "1" and folder.is_dir():
        try:
            key = catalog_key(folder, records, base, repo_url, langs)
        except OSError:  # a file that cannot be read: the checks say which
            key = None
    if key is not None:
        found = read_kept(default_cache() / "site" / f"catalog-{key}.bundle", key)
        if found is not None:
            try:
                return KeptCatalog(found)
            except (ValueError, KeyError):
                pass  # made again below
    view = CatalogSite.load(folder, records, repo_url)
    return None if view is None else CatalogJobs(view, folder, base, langs, key)


def fill_pages(jobs: Any, sites: dict[str, Path], site_url: str, previous: Path | None) -> list[tuple[str, int, int]]:
    """Each language's catalog pages written into its site (`sites[lang]`, frames.fill_pages; pages of the same bytes
    linked from `previous`, the site this build replaces): the languages after the first in a forked process
    meanwhile (generator.forked), since writing them is most of a warm build's work once mkdocs is done. Returns
    (language, pages, of them linked); raises frames.FrameError, or RuntimeError for a second process that failed."""
    from .. import forked
    from ..routes import LANGS, lang_root
    from ..safefs import Reuse
    from . import frames

    def fill(lang: str) -> tuple[str, str, int, int]:
        reuse = Reuse.within(previous, lang_root(lang))
        try:
            n = frames.fill_pages(sites[lang], jobs.html_pages(lang), jobs.message_pages(lang), lang, site_url, reuse)
        except frames.FrameError as exc:  # as a value: it crosses from the second process whole
            return lang, str(exc), 0, 0
        return lang, "", n, reuse.linked

    first, rest = LANGS[0], LANGS[1:]
    others = forked.start(lambda: [fill(lang) for lang in rest]) if rest and forked.available() else lambda: [fill(lang) for lang in rest]
    try:
        done = [fill(first)]
    except BaseException:
        try:
            others()  # the second process's pages are in the build's folder: it is done before that goes
        except RuntimeError:
            pass
        raise
    done += others()
    for _lang, problem, _n, _linked in done:
        if problem:
            raise frames.FrameError(problem)
    return [(lang, n, linked) for lang, _problem, n, linked in done]
