"""The catalog's pages as HTML: the one way catalog text reaches a page, and the frames the pages are written in.

Catalog text is upstream text. Every catalog value (a project, a release, a path, a template, anything in its
files) reaches a page only through `esc`, and a URL or a file name only through `segment`; Markdown never reads
any of it: the catalog's home is a Markdown page whose content is one raw HTML block built here.

Pages written straight to HTML inside the theme: the site builder renders one frame page per depth (a page
whose title, description and body are markers), and every page of that depth is the frame with the markers and
the frame's own address replaced. Links in a built page are relative, so a frame serves only pages at its depth.
Used for the catalog's thousands of project, module and release pages (generator/site/catalogpages.py); the pages
stay out of the Markdown build, which would spend most of the build's time on them.
"""

from __future__ import annotations

import functools
import hashlib
import html
import json
import os
import posixpath
import re
import shutil
from pathlib import Path

from .. import chars, routes
from ..labels import CATALOG_LABELS, LANGUAGE_NAMES, catalog_label
from .markup import front_matter_value
from ..safefs import Reuse

FRAME = "_frame"  # never a project slug (those start with a letter or digit)
# One frame per folder depth of the catalog's pages (a page's links are relative to its folder): 2 for a project's
# page, 3 for the entries' own (lean) pages, 4 for module and release pages.
FRAMED = ("catalog_project", "catalog_module", "catalog_release", "catalog_message")
FRAMES = {depth: "catalog/" + "/".join([FRAME] * (depth - 1)) + "/"
          for depth in sorted({routes.CATALOG_PAGES[name].count("/") for name in FRAMED})}
LEAN_DEPTH = routes.CATALOG_PAGES["catalog_message"].count("/")  # the frame the lean pages are made from
MARK_TITLE, MARK_DESCRIPTION, MARK_BODY = "ERRDEXFRAMETITLE", "ERRDEXFRAMEDESCRIPTION", "ERRDEXFRAMEBODY"
_KEPT = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]*")  # every valid slug, release and entry hash: a segment as it is
MAX_SEGMENT = 200
_LAYOUT_SPACE = re.compile(r"\n[ \t\r\n]*")  # a line break and the indentation and blank lines after it
_VERBATIM = re.compile(r"<(?:pre|textarea)\b", re.I)  # where white space is content (never in a frame: squashed only then)
_PAGE_URL = re.compile(r"(?:[A-Za-z0-9_][A-Za-z0-9._-]*/)+(?:[A-Za-z0-9_][A-Za-z0-9._-]*\.html)?")  # what a catalog page's address may be


class FrameError(Exception):
    """A frame the builder rendered is not as expected (a theme change moved a marker), or a page's address is
    not one the catalog's URLs make."""


def esc(value: object) -> str:
    """Catalog text as HTML text or a quoted attribute value: the one way a catalog value reaches a page. Escaped
    (quotes too), unsafe characters replaced (generator/chars.py), line breaks as character references, so that no
    value can end a raw HTML block of a Markdown page or begin a line that Markdown reads."""
    return html.escape(chars.scrub(str(value)), quote=True).replace("\n", "&#10;")


def segment(value: str) -> str:
    """A catalog value as one URL path segment and file name: as it is when it is letters, digits, '.' and '-'
    from a letter or digit on (every valid slug, release and entry hash), else 'x_' and the routes' injective
    escape (no kept segment holds '_', so none collides with an escaped one; '/' and '..' never survive)."""
    return _bounded(value if _KEPT.fullmatch(value) else "x_" + routes._path_segment(value))


@functools.lru_cache(maxsize=None)  # a few hundred modules a catalog, each asked for by every entry in it
def module_key(module: str) -> str:
    """A module as one path segment: its folders joined by '.', each made safe ('_' escapes)."""
    if module == "(top level)":
        return "_top"
    key = ".".join(routes._path_segment(part) for part in module.split("/"))
    return _bounded(key if key.strip(".") else f"_dots{len(key)}")  # only empty folder names give dots alone


def _bounded(name: str) -> str:
    """A segment a file system takes: past MAX_SEGMENT characters (no valid catalog value comes near), its start
    and a digest of the whole."""
    if len(name) <= MAX_SEGMENT:
        return name
    return f"{name[:MAX_SEGMENT - 20]}-{hashlib.sha256(name.encode('utf-8', 'surrogatepass')).hexdigest()[:16]}"


def project_url(slug: str, lang: str | None = None) -> str:
    return routes.catalog_page_url("catalog_project", segment(slug), lang=lang)


@functools.lru_cache(maxsize=None)
def module_url(slug: str, module: str, lang: str | None = None) -> str:
    return routes.catalog_page_url("catalog_module", segment(slug), module_key(module), lang=lang)


def release_url(slug: str, release: str, lang: str | None = None) -> str:
    return routes.catalog_page_url("catalog_release", segment(slug), segment(release), lang=lang)


def message_url(slug: str, key: str, lang: str | None = None) -> str:
    """A user-facing entry's own page: `key` is the hash part of its id."""
    return routes.catalog_page_url("catalog_message", segment(slug), segment(key), lang=lang)


def nav_with_catalog(nav: list, lang: str) -> list:
    """A config's nav with the catalog's home after the first section ("Browse")."""
    at = next((i + 1 for i, item in enumerate(nav) if isinstance(item, dict) and isinstance(next(iter(item.values())), list)), len(nav))
    return nav[:at] + [{catalog_label("catalog", lang): "catalog/index.md"}] + nav[at:]


def overview_page(view, lang: str) -> str:
    """The catalog's home: per project its releases and counts, as one raw HTML block of escaped text."""
    L = lambda k, **v: catalog_label(k, lang, **v)  # noqa: E731
    projects = sorted(view.catalog.projects.items())
    intro = L("catalog_intro", n=str(len(projects)), releases=str(sum(len(p.releases) for _, p in projects)))
    head = "".join(f"<th>{esc(L(key))}</th>" for key in ("project", "harvested", "messages", "user_facing", "with_guide"))
    rows = []
    for slug, p in projects:
        url = routes.relative(routes.CATALOG_PAGES["catalog"], project_url(slug))
        user, guided = view.counts(p.entries)
        cells = [f'<a href="{esc(url)}">{esc(slug)}</a>', f"{len(p.releases)} ({esc(p.releases[0])} – {esc(p.releases[-1])})",
                 f"{len(p.entries):,}", f"{user:,}", str(guided)]
        rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    return (f"---\ntitle: {front_matter_value(L('catalog'))}\ndescription: {front_matter_value(intro)}\n---\n\n"
            f"# {L('catalog')}\n\n<p>{esc(intro)}</p>\n\n"
            f"<table><thead><tr>{head}</tr></thead><tbody>\n" + "\n".join(rows) + "\n</tbody></table>\n")


def source_pages(view, lang: str) -> dict[str, str]:
    """The catalog's Markdown pages for one language's docs folder: its home, the entry view and the frames."""
    pages = {"catalog/index.md": overview_page(view, lang)}
    labels = json.dumps({k: v[lang] for k, v in CATALOG_LABELS.items()}, ensure_ascii=False, sort_keys=True)
    depth = routes.CATALOG_PAGES["catalog_entry"].count("/")
    scripts = "../" * depth + "assets/javascripts/"  # errdex-catalog-entry.js (shared with the paste page) first
    api = "../" * depth + routes.to_site_root(lang) + routes.api_url("catalog_entries", "{key}", project="{project}")
    issue = routes.issue_form(view.repo_url, "new_error", {}) if view.repo_url else ""
    pages["catalog/entry/index.md"] = (
        f"---\ntitle: {json.dumps(catalog_label('entry', lang), ensure_ascii=False)}\n"
        f"description: {json.dumps(catalog_label('entry_intro', lang), ensure_ascii=False)}\nhide:\n  - toc\n---\n\n"
        f"# {catalog_label('entry', lang)}\n\n"
        f'<div class="errdex-cat-view" data-errdex-lang="{lang}" data-errdex-labels="{esc(labels)}" '
        f'data-errdex-api="{esc(api)}" data-errdex-issue="{esc(issue)}">'
        f'<p>{esc(catalog_label("loading", lang))}</p></div>\n'
        f'<noscript><p>{esc(catalog_label("entry_intro", lang))}</p></noscript>\n'
        f'<script src="{scripts}errdex-catalog-entry.js" defer></script>\n'
        f'<script src="{scripts}errdex-catalog.js" defer></script>\n'
    )
    for url in FRAMES.values():
        pages[url + "index.md"] = (f"---\ntitle: {MARK_TITLE}\ndescription: {MARK_DESCRIPTION}\nhide:\n  - toc\n---\n\n"
                                   f"# {MARK_TITLE}\n\n{MARK_BODY}\n")
    return pages


def fill_pages(site: Path, pages: dict[str, tuple[str, str, str]], lean: dict[str, tuple[str, str, str]] | None = None,
               lang: str = "en", site_url: str = "", reuse: Reuse | None = None) -> int:
    """Write `pages` (URL relative to the language root `site` -> title, description, body HTML) in their frames,
    and `lean` (the same, the body holding its own heading) as lean pages (`LeanPage`, made from the frame of their
    depth), then remove the frames. Returns how many pages were written. `reuse`: the same language root of the
    build this one replaces, whose pages of the same bytes are linked rather than written (generator.safefs.Reuse)."""
    reuse = reuse or Reuse(None)
    frames = {}
    for depth, url in FRAMES.items():
        text = (site / url / "index.html").read_text(encoding="utf-8")
        for mark in (MARK_TITLE, MARK_DESCRIPTION):
            if mark not in text:
                raise FrameError(f"the frame {url} has no {mark}")
        body = f"<p>{MARK_BODY}</p>"
        if text.count(body) != 1:
            raise FrameError(f"the frame {url} holds its body marker {text.count(body)} times, not once")
        if not _VERBATIM.search(text):  # the theme's indentation and blank lines: some 4 KB of every page
            text = _LAYOUT_SPACE.sub("\n", text)
        frames[depth] = (url, text)
    shutil.rmtree(site / "catalog" / FRAME)
    leaner = LeanPage(*frames[LEAN_DEPTH], lang, site_url) if lean else None
    if leaner is not None and lang == routes.LANGS[0]:  # the site root's assets are the first language's
        (site / LEAN_CSS).write_text(leaner.stylesheet(), encoding="utf-8")
    made: set[str] = set()  # the folders made so far (thousands of pages share one)
    root = os.fspath(site)

    def write(url: str, page: str) -> None:  # a page at its address, once the address is known to be one
        _check_url(url)
        rel = routes.page_file(url)
        target = os.path.join(root, rel)
        folder = os.path.dirname(target)
        if folder not in made:
            os.makedirs(folder, exist_ok=True)
            made.add(folder)
        reuse.write(target, rel, page.encode("utf-8"))

    for url, (title, description, body) in sorted((lean or {}).items()):
        if url.count("/") != leaner.depth:
            raise FrameError(f"no lean frame for {url} (depth {url.count('/')})")
        write(url, leaner.page(url, title, description, body))
    for url, (title, description, body) in sorted(pages.items()):
        depth = url.count("/")
        if depth not in frames:
            raise FrameError(f"no frame for {url} (depth {depth})")
        frame_url, text = frames[depth]
        head, tail = text.split(f"<p>{MARK_BODY}</p>")
        head, tail = (part.replace(MARK_TITLE, esc(title)).replace(MARK_DESCRIPTION, esc(description))
                      .replace(frame_url, esc(url)) for part in (head, tail))
        write(url, head + body + tail)  # the body last: nothing in it is ever taken for a marker
    return len(pages) + len(lean or {})


def _check_url(url: str) -> None:
    if not _PAGE_URL.fullmatch(url) or "/../" in f"/{url}" or "/./" in f"/{url}":
        raise FrameError(f"{url!r} is not a catalog page's address: it would be written outside its folder")


_HEAD_LINK = re.compile(r'<link rel="(?:icon|stylesheet)" href="[^"<>]*">')
_BODY = re.compile(r"<body [^<>]*>")
LEAN_CSS = "assets/stylesheets/errdex-lean.css"  # relative to the site root
_SITE_NAME = re.compile(r'<meta property="og:site_name" content="([^"<>]*)">')
_TAB = re.compile(r'<a href="([^"<>]*)" class="md-tabs__link">\s*([^<>]*?)\s*</a>')


class LeanPage:
    """A page of tens of thousands (each user-facing catalog entry's, in each language): the theme's stylesheets and
    header bar, with the home, the paste page and the catalog as the theme's tabs name them (taken from a frame
    the theme rendered at the same depth), around the content; none of the frame's navigation tree, search
    dialog, repository widget or scripts (some 17 KB a page: 1.3 GB for all of them, over what the site is
    published in). The page names its address in every language (alternate), and links to itself in the other
    language."""

    def __init__(self, frame_url: str, text: str, lang: str, site_url: str):
        head = text.split("</head>", 1)[0]
        up = "../" * frame_url.count("/")
        wanted = [up.rstrip("/"), up + routes.page_url("match"), routes.relative(frame_url, routes.CATALOG_PAGES["catalog"])]
        tabs = dict((href, name) for href, name in _TAB.findall(text))
        found = {"links": _HEAD_LINK.findall(head), "body": _BODY.search(text), "tabs": all(href in tabs for href in wanted),
                 "title": re.search(f"<title>{MARK_TITLE}([^<>]*)</title>", head), "site name": _SITE_NAME.search(head)}
        missing = [name for name, value in found.items() if not value]
        if missing:
            raise FrameError(f"the frame {frame_url} has no {', '.join(missing)} for the lean pages")
        self.depth = frame_url.count("/")
        self.lang, self.site_url = lang, site_url
        icon = [link for link in found["links"] if 'rel="icon"' in link]
        # one stylesheet that imports the theme's (LEAN_CSS, written beside them from `stylesheet()`)
        self.sheets = [re.search(r'href="([^"]*)"', link).group(1) for link in found["links"] if 'rel="stylesheet"' in link]
        self.root = up + routes.to_site_root(lang)  # the site root, from a page at this depth
        self.head = "\n".join(icon + [f'<link rel="stylesheet" href="{self.root}{LEAN_CSS}">'])
        self.body = found["body"].group(0)
        home, *rest = wanted
        self.suffix = found["title"].group(1)  # the theme's " - <site name>", as escaped in the frame
        self.nav = f'<a class="md-header__title" href="{home}/">{found["site name"].group(1)}</a>' + "".join(f'<a href="{href}">{tabs[href]}</a>' for href in rest)

    def stylesheet(self) -> str:
        """LEAN_CSS: the frame's stylesheets, imported in order (their addresses relative to the file's folder)."""
        here, root = posixpath.dirname(LEAN_CSS), self.root
        if not self.sheets or not all(href.startswith(root) for href in self.sheets):
            raise FrameError(f"the frame's stylesheets are not under the site root: {self.sheets}")
        return "".join(f'@import "{posixpath.relpath(href[len(root):], here)}";\n' for href in self.sheets)

    def page(self, url: str, title: str, description: str, body: str) -> str:
        lang, up = self.lang, "../" * self.depth
        alternates = "".join(f'<link rel="alternate" hreflang="{code}" href="{esc(self.site_url + routes.lang_root(code) + url)}">\n' for code in routes.LANGS)
        other = next((code for code in routes.LANGS if code != lang), lang)
        switch = (f'<a class="errdex-lang" href="{esc(up + routes.to_lang_root(lang, other) + url)}" hreflang="{other}" '
                  f'lang="{other}">{esc(LANGUAGE_NAMES[other])}</a>')
        return (f'<!doctype html>\n<html lang="{lang}">\n<head>\n<meta charset="utf-8">\n'
                '<meta name="viewport" content="width=device-width,initial-scale=1">\n'
                f"<title>{esc(title)}{self.suffix}</title>\n<meta name=\"description\" content=\"{esc(description)}\">\n"
                f'{alternates}{self.head}\n</head>\n'
                f'{self.body}\n<header class="md-header"><nav class="md-header__inner md-grid errdex-lean">{self.nav}{switch}</nav></header>\n'
                f'<div class="md-container"><main class="md-main"><div class="md-main__inner md-grid"><div class="md-content">'
                f'<article class="md-content__inner md-typeset">\n{body}\n</article></div></div></main></div>\n</body>\n</html>\n')
