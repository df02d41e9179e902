"""Checks over a built site: every XML file parses, and every internal link points at a file of the site."""

from __future__ import annotations

import html
import os
import posixpath
import re
from pathlib import Path
from xml.etree import ElementTree

from ..routes import SEARCH_ROOT


def site_files(site: Path) -> list[str]:
    """Every file of `site`, by its path relative to the site's root ('/' between folders), in order: one walk,
    which the checks and the search index share."""
    root = os.fspath(site)
    out = []
    for folder, _dirs, names in os.walk(root):
        rel = folder[len(root):].lstrip(os.sep).replace(os.sep, "/")
        rel = rel + "/" if rel else ""
        out += [rel + name for name in names]
    return sorted(out)


def check_xml(site: Path, files: list[str] | None = None) -> list[str]:
    """Every XML file under `site` that does not parse: 'path: reason' lines (empty when all are well formed).
    `files`: site_files(site), when the caller has walked it."""
    bad = []
    for rel in (site_files(site) if files is None else files):
        if rel.endswith(".xml"):
            try:
                ElementTree.fromstring((site / rel).read_bytes())
            except ElementTree.ParseError as exc:
                bad.append(f"{rel}: {exc}")
    return bad


_LINK = re.compile(rb"""\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')""")  # over a page's bytes: no page is decoded whole
_SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")


_UPS = re.compile(r"(?:\.\./)*")


def _from(parts: list[str], here: str, path: str) -> tuple[str, str]:
    """A link as (folder, path), joined the target: its leading '../' taken off against `here` (split into `parts`:
    the 80,000 catalog pages' links up to the site's assets and pages are one key each, not one a page); an
    absolute link from the site's root."""
    if path[0] == "/":
        return ("", path.lstrip("/"))
    ups = _UPS.match(path).end() // 3
    if not ups:
        return (here, path)
    if ups > len(parts):
        return (here, path)  # outside the site: judged as written
    return ("/".join(parts[:len(parts) - ups]), path[3 * ups:])


def check_links(site: Path, base: str = "/", later: set[str] | None = None, listed: list[str] | None = None) -> list[str]:
    """Internal links in every HTML file that point at nothing: 'page -> target' lines (empty when all resolve).

    `base` is the path the site is published under (from site_url): absolute links start with it. With `later`
    (a set to fill), links into pagefind/ are not judged but collected, for a check once Pagefind has written.
    `listed`: site_files(site), when the caller has walked it."""
    listed = site_files(site) if listed is None else listed
    files = set(listed)
    pages = [rel for rel in listed if rel.endswith(".html") and not rel.startswith(SEARCH_ROOT)]
    root = os.fspath(site)
    broken = []
    seen: set[tuple[str, str]] = set()
    said: set[tuple[str, bytes]] = set()  # (folder, link as written): the thousands of pages of one folder share most
    for page in pages:
        with open(os.path.join(root, page), "rb") as handle:
            data = handle.read()
        here = posixpath.dirname(page)
        parts = here.split("/") if here else []
        for quoted in dict.fromkeys(a or b for a, b in _LINK.findall(data)):  # each link of a page once, in order
            if (here, quoted) in said:
                continue
            said.add((here, quoted))
            url = quoted.decode("utf-8", "replace")
            if not url or url[0] == "#" or url.startswith("//") or _SCHEME.match(url):
                continue
            path = (html.unescape(url) if "&" in url else url).split("#", 1)[0].split("?", 1)[0]
            if path.startswith(base) and base != "/":
                path = "/" + path[len(base):]
            if not path:
                continue
            key = _from(parts, here, path)  # the same target from pages of one folder's subtree is judged once
            if key in seen:
                continue
            seen.add(key)
            target = posixpath.normpath(posixpath.join(*key))
            if later is not None and target.startswith(SEARCH_ROOT):
                later.add(f"{page} -> {url}\0{target}")
                continue
            if target == ".." or target.startswith("../"):
                broken.append(f"{page} -> {url} (outside the site)")
            elif target not in files and (target.rstrip("/") + "/index.html").lstrip("/") not in files and not (target == "." and "index.html" in files):
                broken.append(f"{page} -> {url}")
    return broken
