"""Build the static site: the one place that knows about mkdocs.

Stages, all inside a temporary folder beside the output so that a failed build leaves the previous site as it
was: hand-written docs + generated pages per language -> two strict mkdocs builds (English at /, Chinese at
/zh/, run in parallel) -> JSON API files -> alias redirects -> Pagefind (one index per language) -> a link
check over the whole output -> the output folder is swapped in.

Moving to another mkdocs.yml-compatible builder means changing `_run_builder` and the config files only:
pages come from `generator.site.render` as plain Markdown with raw HTML.
"""

from __future__ import annotations

import gc
import html
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import yaml
from mkdocs.utils.meta import get_data

from .. import routes
from . import facts, frames, render, searchindex, searchtext
from .feeds import feed_files
from ..match.rules import RULES as MATCH_RULES
from ..labels import CATALOG_LABELS, CODE_LABEL_KEYS, LANGUAGE_NAMES
from ..records.model import Record
from ..routes import LANGS, lang_root
from .check import check_links, check_xml, site_files
from .outdir import swap_in
from ..safefs import Reuse
from ..yamlout import safe_load

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = {"en": ROOT / "mkdocs.yml", "zh": ROOT / "mkdocs.zh.yml"}
DOCS = ROOT / "docs"
OVERRIDES = ROOT / "overrides"


class BuildError(Exception):
    """A stage failed; the message says which and why."""


@dataclass
class Progress:
    quiet: bool
    stream: IO[str] | None = None  # None: the standard error of the moment
    started: float = 0.0

    def __post_init__(self) -> None:
        self.started = time.monotonic()

    def say(self, text: str) -> None:
        if not self.quiet:
            stream = self.stream or sys.stderr
            stream.write(f"[{time.monotonic() - self.started:7.1f}s] {text}\n")
            stream.flush()


def _config(config: Path = CONFIGS["en"]) -> dict:
    return safe_load(config.read_text(encoding="utf-8")) or {}


def site_links(config: Path = CONFIGS["en"]) -> render.SiteLinks:
    """repo_url and edit_uri from mkdocs.yml, for the edit and report links on error pages."""
    data = _config(config)
    return render.SiteLinks(repo_url=data.get("repo_url"), edit_uri=data.get("edit_uri"))


def site_url() -> str:
    """Where the site is published (mkdocs.yml `site_url`), for feeds and the sitemap's absolute URLs."""
    url = str(_config().get("site_url") or "")
    if not url.startswith(("http://", "https://")):
        raise BuildError("mkdocs.yml needs site_url: the address the site is published at (feeds and sitemap use it)")
    return url if url.endswith("/") else url + "/"


def _check_output_dir(out: Path) -> None:
    """Refuse outputs whose replacement would destroy something that is not a previous build."""
    if out == ROOT or out in ROOT.parents or out == Path(out.anchor):
        raise BuildError(f"refusing to replace {out}: it holds the project")
    if out.exists():
        if not out.is_dir():
            raise BuildError(f"{out} exists and is not a folder")
        if any(out.iterdir()) and not (out / "index.html").is_file():
            raise BuildError(f"refusing to replace {out}: it is not empty and holds no built site (no index.html)")


def _write_pages(dest: Path, pages: dict[str, str]) -> None:
    """Write the generated pages beside the hand-written ones, refusing any page that would share a path with
    another (compared case-folded: a case-insensitive file system would merge them) or whose metadata mkdocs
    could not read (mkdocs then renders the metadata as Markdown, silently)."""
    taken = {p.relative_to(dest).as_posix().casefold(): p.relative_to(dest).as_posix() for p in dest.rglob("*") if p.is_file()}
    for rel, text in pages.items():
        key = rel.casefold()
        if key in taken:
            raise BuildError(f"two pages would be written to one path: {taken[key]!r} and {rel!r}")
        taken[key] = rel
        _, meta = get_data(text)
        if not isinstance(meta, dict) or "title" not in meta:
            raise BuildError(f"the generated page {rel} has no metadata that mkdocs can read")
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def _only_in(lang: str) -> list[str]:
    """URLs of hand-written pages that exist in `lang` but not in every other language (the switcher sends
    readers of those to the other language's home page instead of a missing page)."""
    def pages(code: str) -> set[str]:
        return {p.relative_to(DOCS / code).as_posix() for p in (DOCS / code).rglob("*.md")}

    mine = pages(lang)
    others = [pages(other) for other in LANGS if other != lang]
    return sorted(routes.page_url_of(p) for p in mine if not all(p in o for o in others))


def _theme_config(lang: str) -> dict:
    """What the theme overrides and the page JavaScript read from `config.extra.errdex`, besides the strings in
    the mkdocs configs: where each language's root and the site root are from this language's root, the pages
    that exist in one language only, and the routes."""
    return {
        "languages": [{"lang": other, "name": LANGUAGE_NAMES[other], "root": routes.to_lang_root(lang, other)} for other in LANGS],
        "site_root": routes.to_site_root(lang),
        "only_here": _only_in(lang),
        "routes": routes.client_routes(),
        "message_tier": routes.CATALOG_MESSAGE_TIER,  # a catalog entry of this tier has a page of its own
        "segment": searchtext.RULES if lang in searchtext.SEGMENTED else None,
        # the search box asks the matcher only for a line it could recognise, cut-off lines included (match rules)
        "partial_min_chars": MATCH_RULES["partial_min_chars"],
        # the words of a catalog entry's guide on the paste page: the entry view's (labels.CODE_LABEL_KEYS)
        "code_labels": json.dumps({k: CATALOG_LABELS[k][lang] for k in CODE_LABEL_KEYS}, ensure_ascii=False, sort_keys=True),
    }


def _builder_config(work: Path, lang: str, docs_dir: Path, site_dir: Path, counts: dict, url: str, catalog: bool = False) -> Path:
    """A config that inherits the project's mkdocs config and points it at the build folders.

    Paths are absolute: mkdocs resolves relative paths against the inheriting file, which lives in `work`.
    """
    cfg = {
        "INHERIT": str(CONFIGS[lang]),
        "docs_dir": str(docs_dir),
        "site_dir": str(site_dir),
        "theme": {"custom_dir": str(OVERRIDES)},
        "extra": {"errdex_counts": counts, "errdex": _theme_config(lang)},
        "site_url": url + lang_root(lang),
    }
    if catalog:  # the catalog's home in the nav (only then: a nav entry for a missing page fails a strict build)
        cfg["nav"] = frames.nav_with_catalog(_config(CONFIGS[lang]).get("nav") or [], lang)
    path = work / f"mkdocs.{lang}.yml"
    path.write_text(yaml.safe_dump(cfg, allow_unicode=True, sort_keys=True), encoding="utf-8")
    return path


def _start_builder(lang: str, cfg: Path, work: Path, env: dict[str, str]) -> tuple[subprocess.Popen, IO[str]]:
    """Start one strict mkdocs build (it runs beside whatever this process does next)."""
    log = open(work / f"mkdocs.{lang}.log", "w+", encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(cfg)],
        cwd=work, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    return proc, log


def _wait_builders(running: dict[str, tuple[subprocess.Popen, IO[str]]], progress: Progress) -> None:
    """Wait for the mkdocs builds; a failure of any is a BuildError carrying its log."""
    procs = {lang: proc for lang, (proc, _) in running.items()}
    logs = {lang: log for lang, (_, log) in running.items()}
    failed = []
    try:
        last = time.monotonic()
        while any(proc.poll() is None for proc in procs.values()):
            time.sleep(0.2)
            if time.monotonic() - last >= 15:  # a heartbeat: large builds spend minutes here
                last = time.monotonic()
                busy = ", ".join(lang for lang, proc in procs.items() if proc.poll() is None)
                progress.say(f"mkdocs still building ({busy}) ...")
        for lang, proc in procs.items():
            code = proc.wait()
            logs[lang].seek(0)
            text = logs[lang].read()
            if code != 0:
                failed.append(f"mkdocs ({lang}) exited {code}:\n{text[-4000:]}")
            else:
                progress.say(f"mkdocs ({lang}) done")
    finally:
        _stop(running)
    if failed:
        raise BuildError("\n".join(failed))


def _stop(running: dict[str, tuple[subprocess.Popen, IO[str]]]) -> None:
    for proc, log in running.values():
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        log.close()


def _write_feeds(site: Path, records: list[Record], url: str, more: list[str], messages: list[str] = ()) -> None:
    """Atom feeds, one sitemap index for both languages (replacing the builders' per-language sitemaps: the pages',
    then the catalog's message pages, `messages`) and llms.txt."""
    # Every page but the error pages (the sitemap dates those by their record): known from the routes, unrendered.
    pages = [routes.page_url_of(path) for path, page in routes.generated_pages(records).items() if routes.PAGES[page.route].each != "record"]
    pages += [routes.page_url_of(p.relative_to(DOCS / "en").as_posix()) for p in (DOCS / "en").rglob("*.md")] + more
    for lang in LANGS:
        for name in ("sitemap.xml", "sitemap.xml.gz"):  # the builder's own
            (site / lang_root(lang) / name).unlink(missing_ok=True)
    for rel, text in feed_files(records, url, pages, messages).items():
        (site / rel).write_text(text, encoding="utf-8")


_REDIRECT = """<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8"><title>{target}</title>
<meta name="robots" content="noindex"><link rel="canonical" href="{href}">
<meta http-equiv="refresh" content="0; url={href}"></head>
<body><p><a href="{href}">{target}</a></p></body></html>
"""


def _taken(linked: int) -> str:
    return f"; linked {linked:,} files of the same bytes from the last build" if linked else ""


def _write_alias_redirects(site: Path, records: list[Record]) -> int:
    """errors/<alias>/ -> errors/<id>/ in each language, so that legacy ids keep resolving."""
    count = 0
    for src, dst in facts.alias_redirects(records).items():
        for lang in LANGS:
            root = site / lang_root(lang)
            page = root / src / "index.html"
            if page.exists():  # never shadow a real page
                continue
            page.parent.mkdir(parents=True, exist_ok=True)
            href = html.escape(routes.relative(src, dst))
            page.write_text(_REDIRECT.format(lang=lang, href=href, target=html.escape(dst)), encoding="utf-8")
            count += 1
    return count


def build_site(records: list[Record], out: Path, quiet: bool = False, catalog: Path | None = None) -> int:
    """Build the whole site from checked records into `out`; return an exit code.

    `out` is replaced only by a complete build: on any failure it is left as it was and nothing partial remains.
    """
    progress = Progress(quiet)
    out = Path(os.path.abspath(out))
    try:
        _check_output_dir(out)
    except BuildError as exc:
        sys.stderr.write(f"build failed: {exc}\n")
        return 1
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.build-", dir=out.parent))
    try:
        _build(records, work, progress, catalog, out if (out / "index.html").is_file() else None)
        swap_in(work / "site", out, scratch=work)  # the working folder goes with the old site, in the background
    except (BuildError, OSError) as exc:
        sys.stderr.write(f"build failed: {exc}\n{out}/ was left as it was\n")
        return 1
    finally:
        shutil.rmtree(work, ignore_errors=True)
    progress.say(f"built {len(records)} errors in 2 languages into {out}/")
    return 0


def _build(records: list[Record], work: Path, progress: Progress, catalog_dir: Path | None = None,
           previous: Path | None = None) -> None:
    """The site in work/site. `previous`: the site it will replace, whose catalog pages and API files of the same
    bytes are linked, not written again (generator.safefs.Reuse)."""
    from . import catalogapi
    from .catalogbuild import KeptCatalog, fill_pages, open_share
    from ..checks.catalog import CatalogRefused
    from ..api.export import write_api  # written alongside; imported here so that `errdex validate` never needs it

    links = site_links()
    counts = facts.dataset_counts(records)
    env = dict(os.environ)
    # Reproducible output: mkdocs dates the sitemap (and its gzip header) from this, not from the clock.
    env["SOURCE_DATE_EPOCH"] = str(facts.source_date_epoch(records))

    # Each language's mkdocs build starts as soon as its pages are written, so the next language renders (and
    # the API is written) while it runs: the machine's cores work side by side.
    running: dict[str, tuple[subprocess.Popen, IO[str]]] = {}
    sites = {}
    url = site_url()
    base = urllib.parse.urlparse(url).path or "/"
    try:  # checked whole before anything of it is made: a catalog with findings stops the build
        jobs = open_share(catalog_dir, records, base, links.repo_url, LANGS) if catalog_dir is not None else None
    except CatalogRefused as exc:
        raise BuildError(str(exc)) from None
    if jobs is not None:  # its files and pages, made beside what follows (or kept from a build of the same inputs)
        progress.say(f"{'read the kept' if isinstance(jobs, KeptCatalog) else 'read the'} catalog: {jobs.meta['entries']:,} "
                     f"entries, {len(jobs.meta['page_urls']):,} pages a language")
    try:
        for lang in LANGS:
            docs = work / "src" / lang
            shutil.copytree(DOCS / lang, docs)
            try:
                pages = render.render_site_pages(records, lang, links)
            except routes.PageCollision as exc:
                raise BuildError(str(exc)) from None
            if jobs is not None:
                pages.update(jobs.source_pages(lang))
            _write_pages(docs, pages)
            del pages
            sites[lang] = work / f"out-{lang}"
            running[lang] = _start_builder(lang, _builder_config(work, lang, docs, sites[lang], counts, url, jobs is not None), work, env)
            progress.say(f"rendered {len(records)} error pages ({lang}); mkdocs ({lang}) started")
        extra = {}
        if jobs is not None:
            files = jobs.api_files()
            extra = {"extra": files, "extra_paths": catalogapi.openapi_paths(files), "unlisted": catalogapi.UNLISTED}
        reuse = Reuse.within(previous, routes.API_ROOT)
        write_api(records, work / "api", base=base, reuse=reuse, **extra)
        progress.say("wrote the JSON API" + (f" with the catalog's {len(extra['extra']):,} files" if extra else "") + _taken(reuse.linked))
        del extra
        _wait_builders(running, progress)
        if jobs is not None:
            jobs.close()  # every result is in: no worker or thread is left when the languages' pages are written
            try:  # the languages side by side (catalogbuild.fill_pages)
                for lang, n, linked in fill_pages(jobs, sites, url, previous):
                    progress.say(f"wrote {n:,} catalog pages ({lang}){_taken(linked)}")
            except (frames.FrameError, RuntimeError) as exc:
                raise BuildError(f"writing the catalog pages: {exc}") from None
            jobs.keep()
    except BaseException:
        _stop(running)
        raise
    finally:
        if jobs is not None:
            jobs.close()

    site = work / "site"
    os.rename(sites["en"], site)
    for lang in LANGS:
        if lang != "en":
            os.rename(sites[lang], site / lang_root(lang).rstrip("/"))
    api = site / routes.API_ROOT
    if api.exists():  # the hand-written API page: the API files go beside its index.html
        for entry in (work / "api").iterdir():
            os.rename(entry, api / entry.name)
    else:
        os.rename(work / "api", api)
    meta = jobs.meta if jobs is not None else {"page_urls": [], "message_urls": []}
    _write_feeds(site, records, url, [routes.CATALOG_PAGES["catalog"]] * (jobs is not None) + meta["page_urls"], meta["message_urls"])
    progress.say("wrote the Atom feeds, sitemap.xml and llms.txt")
    n = _write_alias_redirects(site, records)
    if n:
        progress.say(f"wrote {n} alias redirects")
    files = site_files(site)  # the site is whole: one walk for the checks and the search index
    bad_xml = check_xml(site, files)
    if bad_xml:
        raise BuildError("XML files that do not parse:\n  " + "\n  ".join(bad_xml))

    gc.freeze()  # what the build holds lives to its end: the collector need not walk it again while the links are read
    try:
        progress.say("indexing with Pagefind, checking internal links meanwhile ...")
        lean = {lang_root(lang) + routes.page_file(url) for lang in LANGS for url in meta["message_urls"]}  # LeanPage: never marked
        pagefind = searchindex.start(site, work, env, files, lean)
        try:
            later: set[str] = set()
            broken = check_links(site, base, later, files)
            progress.say(f"checked the links of {sum(rel.endswith('.html') for rel in files):,} pages")
        finally:
            try:
                searchindex.finish(pagefind, site, work)
            except searchindex.SearchIndexError as exc:
                raise BuildError(str(exc)) from None
    finally:
        gc.unfreeze()  # a caller that lives on (a test session) collects what the build left
    progress.say("wrote the search index")
    broken += sorted(item.split("\0")[0] for item in later if not (site / item.split("\0")[1]).exists())
    if broken:
        shown = "\n  ".join(broken[:50])
        more = f"\n  ... and {len(broken) - 50} more" if len(broken) > 50 else ""
        raise BuildError(f"{len(broken)} broken internal links:\n  {shown}{more}")
