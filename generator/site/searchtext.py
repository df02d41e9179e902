"""How the search index reads languages written without spaces (Chinese). The one home of the rule.

Pagefind segments Chinese with a dictionary when it indexes, and the browser segments a query with ICU when it
searches; the two disagree (显存 is one word to one of them and two to the other), so pages that contain a query
are missed and pages that contain none of its words are found. errdex makes both sides agree by making every Han
character a word of its own:

- the index is built from a shadow copy of the pages (`write_shadow`) in which every Han character of the text
  stands between spaces (`spaced`); the pages readers get are unchanged;
- the page's search script (assets/javascripts/errdex-search.js) spaces the query in the same way and asks for it
  as an exact phrase, so 显存 finds exactly the pages in which 显 is followed by 存; when the phrase finds nothing
  it asks for the words, any order. Excerpts come back spaced; the script removes a space between two CJK
  characters (Han or CJK punctuation).

The character classes are data (`RULES`), sent to the script in the page (`data-segment` on the search box);
tests/fixtures/search-conformance.json holds texts with the spacing both must give.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

from .check import site_files

# Code point ranges, inclusive. han: the CJK Unified Ideographs (with extensions A to F) and the compatibility
# ideographs; punct: CJK symbols and punctuation, and the full- and half-width forms.
RULES: dict[str, list[list[int]]] = {
    "han": [[0x3400, 0x4DBF], [0x4E00, 0x9FFF], [0xF900, 0xFAFF], [0x20000, 0x2FA1F]],
    "punct": [[0x3000, 0x303F], [0xFF00, 0xFFEF]],
}
SEGMENTED = ("zh",)  # the languages whose pages are indexed with every Han character as a word


def _class(ranges: list[list[int]]) -> str:
    return "[" + "".join(f"\\U{lo:08x}-\\U{hi:08x}" for lo, hi in ranges) + "]"


_HAN = re.compile(_class(RULES["han"]))
_SPACE = re.compile(r"\s+")
_TEXT = re.compile(r">([^<]*" + _class(RULES["han"]) + r"[^<]*)<")  # text between tags that holds a Han character


def spaced(text: str) -> str:
    """`text` with every Han character a word: a space on each side, runs of white space as one space."""
    return _SPACE.sub(" ", _HAN.sub(lambda m: f" {m.group(0)} ", text)).strip()


def spaced_html(page: str, done: dict[str, str] | None = None) -> str:
    """An HTML page with the text between its tags spaced (attribute values and markup are left as they are).
    `done`: the texts spaced so far, shared by the pages of one shadow (a catalog page repeats its labels
    thousands of times, and every page of a language its theme's words): each text is spaced once."""
    done = {} if done is None else done

    def space(m: re.Match[str]) -> str:
        text = m.group(1)
        out = done.get(text)
        if out is None:
            out = done[text] = f"> {spaced(text)} <"
        return out

    return _TEXT.sub(space, page)


BODY_MARK = b"data-pagefind-body"


def html_pages(site: Path, files: list[str] | None = None, unmarked: set[str] | frozenset[str] = frozenset()) -> list[tuple[str, bool]]:
    """Every HTML page of `site` (its path relative to the site's root) and whether it marks what to index, in
    order of path: one read of the site, whatever number of shadows are written from it. `files`: every file of
    the site by its relative path (generator.site.check.site_files), else the site is walked here; `unmarked`:
    pages the builder wrote without the mark (the catalog's lean pages), not read."""
    root = os.fspath(site)
    pages = []
    for rel in (site_files(site) if files is None else files):
        if rel.endswith(".html"):
            if rel in unmarked:
                pages.append((rel, False))
                continue
            with open(os.path.join(root, rel), "rb") as handle:
                pages.append((rel, BODY_MARK in handle.read()))
    return sorted(pages)


def write_shadow(site: Path, shadow: Path, roots: list[str], select: Callable[[str], bool] | None = None,
                 pages: list[tuple[str, bool]] | None = None) -> int:
    """Mirror the HTML pages of `site` into `shadow` for the indexer: pages under one of `roots` (language roots,
    e.g. "zh/") spaced, every other page linked (or copied) unchanged. Returns how many pages were spaced.

    When some page marks what to index (`data-pagefind-body`), the indexer reads only such pages, so only they
    are mirrored: the thousands of catalog release pages are never parsed for nothing. `select` (a page's path
    relative to the site root -> bool) mirrors some pages only: one language's, for one indexer run. `pages`:
    `html_pages(site)`, when the caller has read them for several shadows."""
    pages = [page for page in (html_pages(site) if pages is None else pages) if select is None or select(page[0])]
    marked = [rel for rel, mark in pages if mark]
    count = 0
    done: dict[str, str] = {}
    for rel in marked or [rel for rel, _mark in pages]:
        src, dst = site / rel, shadow / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        if any(rel.startswith(root) for root in roots if root):
            dst.write_text(spaced_html(src.read_text(encoding="utf-8"), done), encoding="utf-8")
            count += 1
        else:
            try:
                os.link(src, dst)
            except OSError:
                shutil.copyfile(src, dst)
    return count
