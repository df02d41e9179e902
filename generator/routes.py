"""Every address errdex publishes, from one table: page paths and URLs per language, API files, feeds.

Nothing else spells a route. Code asks by name (`page_url("error", record_id, lang="zh")`,
`api_url("record", record_id, base)`), the way Django code asks its URLconf; templates get URLs from the page
contexts; the page JavaScript gets them from data the build writes (`client_routes`).

A page is a source path inside a language's docs folder (`errors/<id>/index.md`); its URL, relative to the
language root, follows from it (`errors/<id>/`). Each language's root lies under the site root (English at
`/`, Chinese at `/zh/`); the API and the site-wide feeds are shared by both languages and live at the site
root. Generated pages name their template and the grouping of records they are made of, so the set of pages
a dataset gives is known without rendering any (`generated_pages`).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .records import DATA_ROOT
from .records.vocabulary import SEVERITIES

if TYPE_CHECKING:
    from .records.model import Record

LANGS = ("en", "zh")
API_ROOT = "api/"


def lang_root(lang: str) -> str:
    """A language's root relative to the site root."""
    return "" if lang == "en" else f"{lang}/"


def to_site_root(lang: str) -> str:
    """From a language's root back to the site root."""
    return "../" * lang_root(lang).count("/")


def to_lang_root(from_lang: str, lang: str) -> str:
    """From one language's root to another's."""
    return "" if from_lang == lang else to_site_root(from_lang) + lang_root(lang)


def _path_segment(text: str) -> str:
    """A repository name as a safe path segment: letters, digits and '-' stay; any other character, '_' (the
    escape character itself) included, becomes `_<hex>_`. No two names share a segment ('llama.cpp' is
    'llama_2e_cpp', 'llama-2e-cpp' stays as it is), and '.' and '..' never reach a path."""
    return re.sub(r"[^A-Za-z0-9-]", lambda m: f"_{ord(m.group()):x}_", text)


def _repo_path(repo: str) -> str:
    owner, name = repo.split("/", 1)
    return f"{_path_segment(owner)}/{_path_segment(name)}"


# ---------------------------------------------------------------- the table


@dataclass(frozen=True)
class Grouping:
    """A way to group records: one generated page per key (a record's id, its project, one of its tags...)."""

    keys: Callable[[Record], Iterable[str]]
    segment: Callable[[str], str] = str  # the key as it appears in a path
    order: tuple[str, ...] | None = None  # a fixed order of keys; otherwise sorted case-insensitively
    labelled: bool = False  # keys are enum values, shown by their value label (labels.VALUE_LABELS)

    def sort(self, keys: Iterable[str]) -> list[str]:
        keys = list(keys)
        if self.order is not None:
            return [k for k in self.order if k in keys]
        return sorted(keys, key=str.lower)


GROUPS: dict[str, Grouping] = {
    "record": Grouping(lambda r: [r.id]),
    "project": Grouping(lambda r: [r.repo], segment=_repo_path),
    "category": Grouping(lambda r: [r.category]),
    "tag": Grouping(lambda r: r.tags),
    "severity": Grouping(lambda r: [r.error.severity], order=SEVERITIES, labelled=True),
}


@dataclass(frozen=True)
class Page:
    """A kind of page. `path` is the source path in a language's docs folder; `{key}` stands for the page's key.

    Generated pages name their `template`, and either `each` (one page per key of that grouping, listing the
    records with that key) or `lists` (one page linking every page of the route named there). `title` is the
    label (labels.LABELS) of the page's title, `{name}` being the key's label; `up` the page one level up."""

    path: str
    template: str | None = None
    each: str | None = None
    lists: str | None = None
    title: str | None = None
    up: str | None = None


PAGES: dict[str, Page] = {
    # hand-written (docs/<lang>/)
    "home": Page("index.md"),
    "about": Page("about.md"),
    "api_docs": Page("api.md"),
    "mcp_docs": Page("mcp.md"),
    "match": Page("match.md"),
    # generated
    "error": Page("errors/{key}/index.md", "error_page.md.j2", each="record"),
    "projects": Page("browse/projects.md", "browse_index.md.j2", lists="project", title="by_project"),
    "project": Page("browse/project/{key}/index.md", "browse_list.md.j2", each="project", title="in_project", up="projects"),
    "categories": Page("browse/categories.md", "browse_index.md.j2", lists="category", title="by_category"),
    "category": Page("browse/category/{key}/index.md", "browse_list.md.j2", each="category", title="in_category", up="categories"),
    "tags": Page("browse/tags.md", "browse_index.md.j2", lists="tag", title="by_tag"),
    "tag": Page("browse/tag/{key}/index.md", "browse_list.md.j2", each="tag", title="with_tag", up="tags"),
    "severities": Page("browse/severities.md", "browse_index.md.j2", lists="severity", title="by_severity"),
    "severity": Page("browse/severity/{key}/index.md", "browse_list.md.j2", each="severity", title="with_severity", up="severities"),
}

# The JSON API, relative to API_ROOT (one copy for both languages). A path ending in `.gz` is stored
# gzip-compressed (api.export.encode_file): the browser's match and drift shards, a quarter of their size, since
# the site is published where storage is bounded (1 GB on GitHub Pages); the pages inflate them as they read them.
API: dict[str, str] = {
    "record": "errors/{key}.json",
    "index": "errors.json",
    "match": "match.json",
    "stats": "stats.json",
    "schema": "schema.json",
    "ndjson": "errors.ndjson",
    "openapi": "openapi.json",
    "manifest": "manifest.json",
    # the message catalog (data/catalog): {key} is a project slug, the first two hex digits of an entry's hash
    # (its entries file: one line per entry), a release
    "catalog_index": "catalog/index.json",
    "catalog_project": "catalog/{project}/index.json",
    "catalog_entries": "catalog/{project}/entries/{key}.ndjson",
    "catalog_changes": "catalog/{project}/changes/{key}.json",
    # the browser's catalog match data: the literal index read first, then only the shards a paste needs
    "catalog_match_index": "catalog/match/index.json",
    "catalog_match_shard": "catalog/match/{key}.json.gz",
    # the browser's drift data (generator/api/driftfiles.py): what answers need, the symbol indexes filed by name
    # ({key}: a shard's number), and each project's registries ({key}: a registry's name)
    "drift_index": "drift/index.json",
    "drift_shard": "drift/{key}.json.gz",
    "drift_registry": "drift/{project}/{key}.json.gz",
}

# The catalog's pages, relative to a language root (generator/site/catalogpages.py writes them): {project} is a
# project slug, {key} a module (its folder, '/' written '.'), a release or an entry's hash. Every user-facing
# entry has a page of its own (`catalog_message`: a lean page, not the theme's 17 KB frame, so that 38,000 of them
# in two languages fit the 1 GB the site is published in; a file of its project's messages/ folder, not a folder
# of its own: a folder each doubled the files a build creates and walks); one page renders any other entry from
# the API (`catalog_entry?id=<project>/<hash>`, read from its entries file).
CATALOG_PAGES: dict[str, str] = {
    "catalog": "catalog/",
    "catalog_project": "catalog/{project}/",
    "catalog_module": "catalog/{project}/modules/{key}/",
    "catalog_release": "catalog/{project}/releases/{key}/",
    "catalog_message": "catalog/{project}/messages/{key}.html",  # the entries of tier CATALOG_MESSAGE_TIER
    "catalog_entry": "catalog/entry/",
}

CATALOG_MESSAGE_TIER = "user"  # the entries with a page of their own (catalog_message): the user-facing ones

# Addresses pages had before, relative to a language root: a visit to one goes on to the page's address now (the
# 404 page's script, assets/javascripts/errdex-page.js), so that links and search results made before still lead
# to the page. Each {name} is one path segment, the same in both.
MOVED_PAGES: dict[str, str] = {"catalog_message": "catalog/{project}/messages/{key}/"}

# Files beside the pages, relative to a language root ("feed") or to the site root.
# sitemap.xml is a sitemap index: the pages' sitemap, then the catalog entries' pages in files of at most 50,000.
FEEDS: dict[str, str] = {"feed": "feed.xml", "sitemap": "sitemap.xml", "sitemap_pages": "sitemap-pages.xml",
                         "sitemap_messages": "sitemap-messages-{key}.xml", "llms": "llms.txt"}

# The search index Pagefind writes (one per language, in one folder at the site root) and its entry script.
SEARCH_ROOT = "pagefind/"
SEARCH_SCRIPT = SEARCH_ROOT + "pagefind.js"

# A record's file, relative to the project's root (the loader's data root).
RECORD_FILE = f"{DATA_ROOT.as_posix()}/{{key}}.yaml"


# ---------------------------------------------------------------- asking the table


def page_path(name: str, key: str | None = None) -> str:
    """The source path of a page inside a language's docs folder."""
    page = PAGES[name]
    if key is None:
        return page.path
    group = GROUPS[page.each] if page.each else None
    return page.path.format(key=group.segment(key) if group else key)


def page_url_of(src_path: str) -> str:
    """URL (relative to the language root) of a `.../index.md` or `name.md` source path."""
    if src_path.endswith("/index.md"):
        return src_path[: -len("index.md")]
    if src_path == "index.md":
        return ""
    return src_path[: -len(".md")] + "/"


def page_url(name: str, key: str | None = None, lang: str | None = None) -> str:
    """A page's URL: relative to the language root, or to the site root when `lang` is given."""
    url = page_url_of(page_path(name, key))
    return url if lang is None else lang_root(lang) + url


def api_path(name: str, key: str | None = None, project: str | None = None) -> str:
    """An API file's path relative to API_ROOT."""
    path = API[name] if key is None else API[name].replace("{key}", key)
    return path if project is None else path.replace("{project}", project)


def catalog_page_url(name: str, project: str | None = None, key: str | None = None, lang: str | None = None) -> str:
    """A catalog page's URL: relative to the language root, or to the site root when `lang` is given."""
    url = CATALOG_PAGES[name]
    if project is not None:
        url = url.replace("{project}", project)
    if key is not None:
        url = url.replace("{key}", key)
    return url if lang is None else lang_root(lang) + url


def api_url(name: str, key: str | None = None, base: str = "", project: str | None = None) -> str:
    """An API file's URL: relative to the site root, or under `base` (`/`, `/errdex/`...) when given."""
    return base + API_ROOT + api_path(name, key, project)


def feed_path(name: str, lang: str = "en") -> str:
    """A feed file's path relative to the site root (the Atom feed is per language, the others site-wide)."""
    return (lang_root(lang) if name == "feed" else "") + FEEDS[name]


def record_file(record_id: str) -> str:
    """The record's YAML file relative to the project's root."""
    return RECORD_FILE.format(key=record_id)


def page_file(url: str) -> str:
    """The file that serves a page's URL (relative to the site or a language root): a folder's index.html, or
    the file the URL names."""
    return url + "index.html" if url.endswith("/") or not url else url


def relative(from_url: str, to_url: str) -> str:
    """Relative link between two site-root-relative URLs (folders end with '/'; any other URL names a file, and
    links from it start in its folder)."""
    start = (from_url if from_url.endswith("/") else posixpath.dirname(from_url)).rstrip("/") or "."
    target = to_url.rstrip("/") or "."
    rel = posixpath.relpath(target, start or ".")
    if to_url.endswith("/") and not rel.endswith("/"):
        rel += "/"
    return rel


# The project's issue forms (.github/ISSUE_TEMPLATE/), opened prefilled from the pages: `?template=<file>` plus
# one query parameter per field id.
ISSUE_FORMS: dict[str, str] = {"correction": "correction.yml", "new_error": "new-error.yml", "fix_report": "fix-report.yml"}


def issue_form(repo_url: str, form: str, fields: dict[str, str]) -> str:
    """The address that opens issue form `form` of `repo_url` with `fields` filled in."""
    from urllib.parse import urlencode

    return f"{repo_url.rstrip('/')}/issues/new?" + urlencode({"template": ISSUE_FORMS[form], **fields})


def client_routes() -> dict[str, str]:
    """Routes for the theme and the page JavaScript (handed over as `config.extra.errdex.routes`): `{id}` is a
    record id; page routes are relative to a language root, the others to the site root; `issue_new_error` is
    relative to the repository's address."""
    return {
        "paste_page": page_url("match"),
        "issue_new_error": "issues/new?template=" + ISSUE_FORMS["new_error"],
        "error_page": page_url("error", "{id}"),
        "api_record": api_url("record", "{id}"),
        "api_match": api_url("match"),
        "api_catalog_match_index": api_url("catalog_match_index"),
        "api_catalog_match_shard": api_url("catalog_match_shard", "{key}"),
        "api_catalog_entries": api_url("catalog_entries", "{key}", project="{project}"),
        "api_drift_index": api_url("drift_index"),
        "api_drift_shard": api_url("drift_shard", "{key}"),
        "api_drift_registry": api_url("drift_registry", "{key}", project="{project}"),
        "catalog_entry_page": catalog_page_url("catalog_entry"),
        "catalog_message_page": catalog_page_url("catalog_message"),
        "catalog_project_page": catalog_page_url("catalog_project", "{project}"),
        "search": SEARCH_SCRIPT,
        "moved": [[old, CATALOG_PAGES[name]] for name, old in sorted(MOVED_PAGES.items())],
        "lang_roots": [lang_root(lang) for lang in LANGS],
    }


class Links:
    """Site-relative URLs of a record's pages and file, under the site's base path (as the API publishes them)."""

    def __init__(self, base: str = "/"):
        if not re.fullmatch(r"/(?:[A-Za-z0-9._~-]+/)*", base) or ".." in base.split("/"):
            raise ValueError(f"base {base!r} must be an absolute URL path that starts and ends with '/'")
        self.base = base

    def html(self, record_id: str) -> str:
        return self.base + page_url("error", record_id, lang="en")

    def html_zh(self, record_id: str) -> str:
        return self.base + page_url("error", record_id, lang="zh")

    def json(self, record_id: str) -> str:
        return api_url("record", record_id, self.base)

    def pages(self, record_id: str) -> dict[str, str]:
        return {"html": self.html(record_id), "html_zh": self.html_zh(record_id), "json": self.json(record_id)}


# ---------------------------------------------------------------- the pages a dataset gives


class PageCollision(ValueError):
    """Two generated pages would have one path."""


@dataclass(frozen=True)
class GeneratedPage:
    """One generated page: its route, its key (None for a single page) and the records it is about."""

    route: str
    key: str | None
    records: tuple[Record, ...]

    @property
    def path(self) -> str:
        return page_path(self.route, self.key)


def grouped(records: Iterable[Record], grouping: str) -> dict[str, list[Record]]:
    """Key -> the records with that key, keys in the grouping's order."""
    group = GROUPS[grouping]
    out: dict[str, list[Record]] = {}
    for r in records:
        for key in group.keys(r):
            out.setdefault(key, []).append(r)
    return {key: out[key] for key in group.sort(out)}


def generated_pages(records: list[Record]) -> dict[str, GeneratedPage]:
    """Source path -> page, for every generated page of one language (the same in each language).

    Known without rendering anything. Raises PageCollision when two pages would share a path."""
    pages: dict[str, GeneratedPage] = {}
    for name, page in PAGES.items():
        if page.template is None:
            continue
        if page.each:
            found = [GeneratedPage(name, key, tuple(rs)) for key, rs in grouped(records, page.each).items()]
        else:
            found = [GeneratedPage(name, None, tuple(records))]
        for p in found:
            other = pages.get(p.path)
            if other is not None:
                raise PageCollision(f"the {other.route} page {other.key!r} and the {p.route} page {p.key!r} share the path {p.path}")
            pages[p.path] = p
    return pages
