"""Pages written straight to HTML inside the theme: the site builder renders one frame page per depth (a page
whose title, description and body are markers), and every page of that depth is the frame with the markers and
the frame's own address replaced. Links in a built page are relative, so a frame serves only pages at its depth.

Used for the catalog's thousands of project, module and release pages (generator/catalogsite.py); the pages
stay out of the Markdown build, which would spend most of the build's time on them.
"""

from __future__ import annotations

import html
import json
import shutil
from pathlib import Path

from . import routes
from .catalogsite import FRAMES, MARK_BODY, MARK_DESCRIPTION, MARK_TITLE
from .labels import CATALOG_LABELS, catalog_label


class FrameError(Exception):
    """A frame the builder rendered is not as expected (a theme change moved a marker)."""


def nav_with_catalog(nav: list, lang: str) -> list:
    """A config's nav with the catalog's home after the first section ("Browse")."""
    at = next((i + 1 for i, item in enumerate(nav) if isinstance(item, dict) and isinstance(next(iter(item.values())), list)), len(nav))
    return nav[:at] + [{catalog_label("catalog", lang): "catalog/index.md"}] + nav[at:]


def source_pages(view, lang: str) -> dict[str, str]:
    """The catalog's Markdown pages for one language's docs folder: its home, the entry view and the frames."""
    pages = {"catalog/index.md": view.overview_markdown(lang)}
    labels = json.dumps({k: v[lang] for k, v in CATALOG_LABELS.items()}, ensure_ascii=False, sort_keys=True)
    depth = routes.CATALOG_PAGES["catalog_entry"].count("/")
    script = "../" * depth + "assets/javascripts/errdex-catalog.js"
    api = "../" * depth + routes.to_site_root(lang) + routes.api_url("catalog_entry", "{key}", project="{project}")
    issue = routes.issue_form(view.repo_url, "new_error", {}) if view.repo_url else ""
    pages["catalog/entry/index.md"] = (
        f"---\ntitle: {json.dumps(catalog_label('entry', lang), ensure_ascii=False)}\n"
        f"description: {json.dumps(catalog_label('entry_intro', lang), ensure_ascii=False)}\nhide:\n  - toc\n---\n\n"
        f"# {catalog_label('entry', lang)}\n\n"
        f'<div class="errdex-cat-view" data-errdex-lang="{lang}" data-errdex-labels="{html.escape(labels)}" '
        f'data-errdex-api="{html.escape(api)}" data-errdex-issue="{html.escape(issue)}">'
        f'<p>{html.escape(catalog_label("loading", lang))}</p></div>\n'
        f'<noscript><p>{html.escape(catalog_label("entry_intro", lang))}</p></noscript>\n'
        f'<script src="{script}" defer></script>\n'
    )
    for url in FRAMES.values():
        pages[url + "index.md"] = (f"---\ntitle: {MARK_TITLE}\ndescription: {MARK_DESCRIPTION}\nhide:\n  - toc\n---\n\n"
                                   f"# {MARK_TITLE}\n\n{MARK_BODY}\n")
    return pages


def fill_pages(site: Path, pages: dict[str, tuple[str, str, str]]) -> int:
    """Write `pages` (URL relative to the language root `site` -> title, description, body HTML) in their frames,
    then remove the frames. Returns how many pages were written."""
    frames = {}
    for depth, url in FRAMES.items():
        text = (site / url / "index.html").read_text(encoding="utf-8")
        for mark in (MARK_TITLE, MARK_DESCRIPTION):
            if mark not in text:
                raise FrameError(f"the frame {url} has no {mark}")
        body = f"<p>{MARK_BODY}</p>"
        if text.count(body) != 1:
            raise FrameError(f"the frame {url} holds its body marker {text.count(body)} times, not once")
        frames[depth] = (url, text)
    shutil.rmtree(site / "catalog" / FRAMES[2].split("/")[1])
    for url, (title, description, body) in sorted(pages.items()):
        depth = url.count("/")
        if depth not in frames:
            raise FrameError(f"no frame for {url} (depth {depth})")
        frame_url, text = frames[depth]
        head, tail = text.split(f"<p>{MARK_BODY}</p>")
        head, tail = (part.replace(MARK_TITLE, html.escape(title)).replace(MARK_DESCRIPTION, html.escape(description))
                      .replace(frame_url, html.escape(url)) for part in (head, tail))
        page = head + body + tail  # the body last: nothing in it is ever taken for a marker
        target = site / url / "index.html"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(page, encoding="utf-8")
    return len(pages)
