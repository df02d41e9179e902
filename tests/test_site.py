"""The built fixture site (tests/fixtures/dataset): what only a build shows (the theme around the pages, links
that resolve, redirects, the search index, feeds, reproducibility, the atomic swap). The pages' content is
tests/test_render.py's."""

from __future__ import annotations

import re
import shutil
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest
import yaml

from generator.site import build as site_mod
from generator.cli import main
from generator.checks.pipeline import check

DATASET = Path(__file__).parent / "fixtures" / "dataset"
FULL = "demo/kv-cache-out-of-memory"


class _Text(HTMLParser):
    """Text of the page's <article>, and every element's tag and attributes inside it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.parts: list[str] = []
        self.tags: list[tuple[str, dict]] = []

    def handle_starttag(self, tag, attrs):
        if tag == "article" or self.depth:
            self.depth += 1 if tag not in ("br", "img", "input", "meta", "link", "hr") else 0
            self.tags.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        if self.depth and tag not in ("br", "img", "input", "meta", "link", "hr"):
            self.depth -= 1

    def handle_data(self, data):
        if self.depth:
            self.parts.append(data)


def page(site: Path, record_id: str, lang: str = "en") -> tuple[str, str, list[tuple[str, dict]]]:
    """(raw html, article text, article elements) of an error page."""
    root = site / ("zh" if lang == "zh" else "")
    raw = (root / "errors" / record_id / "index.html").read_text(encoding="utf-8")
    parser = _Text()
    parser.feed(raw)
    return raw, "".join(parser.parts), parser.tags


def section(raw: str, name: str) -> str:
    m = re.search(rf'<div class="errdex-section errdex-{name}"[^>]*>(.*?)(?=<h2 |</article>)', raw, re.S)
    assert m, f"section {name} missing"
    return m.group(1)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_html_lang_and_language_switch(built_site, lang):
    raw, _, _ = page(built_site, FULL, lang)
    assert f'<html lang="{lang}"' in raw
    other = "zh" if lang == "en" else "en"
    href = re.search(rf'href="([^"]+)"[^>]*data-errdex-lang="{other}"', raw).group(1)
    target = (built_site / ("zh" if lang == "zh" else "") / "errors" / FULL / href / "index.html").resolve()
    expected = (built_site / ("zh" if other == "zh" else "") / "errors" / FULL / "index.html").resolve()
    assert target == expected


def test_title(built_site):
    """The theme prints the front-matter title in the head: escaped once, never as markup."""
    raw, text, _ = page(built_site, FULL)
    assert '<title>What causes &#34;Cannot allocate {} KV cache blocks: out of GPU memory&#34; in example-org/servekit? - errdex</title>' in raw
    raw, text, _ = page(built_site, FULL, "zh")
    assert "在 example-org/servekit 中，“Cannot allocate {} KV cache blocks: out of GPU memory” 是什么原因造成的？" in text


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_json_link_reaches_the_api_file(built_site, lang):
    raw, _, _ = page(built_site, FULL, lang)
    links = section(raw, "links")
    json_href = re.search(r'class="errdex-json" href="([^"]+)"', links).group(1)
    root = built_site / ("zh" if lang == "zh" else "")
    assert (root / "errors" / FULL / json_href).resolve() == (built_site / "api/errors" / f"{FULL}.json").resolve()
    assert (built_site / "api/errors" / f"{FULL}.json").is_file()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_related_links_reach_the_pages(built_site, lang):
    raw, _, _ = page(built_site, FULL, lang)
    for href in re.findall(r'href="([^"]+)"', section(raw, "related")):
        assert (built_site / ("zh" if lang == "zh" else "") / "errors" / FULL / href / "index.html").resolve().is_file()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_hostile_record_shows_literally(built_site, lang):
    raw, text, tags = page(built_site, "demo/hostile-text", lang)
    # No element the record asked for: no script or img in the article, no event handlers, no javascript: links.
    assert not [t for t, _ in tags if t in ("script", "img", "iframe", "b")]
    assert not [a for _, attrs in tags for a in attrs if a.startswith("on")]
    assert "javascript:" not in "".join(str(attrs.get("href")) for _, attrs in tags)
    for literal in ["<script>alert(1)</script>", "{{ 7*7 }}", "{% raw %}", "{str(e)}"]:
        assert literal in text
    assert "49" not in text
    if lang == "en":
        for literal in ["# not a heading", "```", "| a | b |", "<img src=x onerror=alert(2)>", '{% include "mkdocs.yml" %}',
                        "{{ cycler.__init__.__globals__.os.getcwd() }}", '--8<-- "/etc/passwd"', "</title><script>alert(3)</script>",
                        '{% raw %}{{ lipsum.__globals__["os"].environ }}{% endraw %}', 'f"{{escaped}}"', "*not emphasis*"]:
            assert literal in text
    # Outside the article too: the head and header print the title, escaped.
    assert "<script>alert" not in raw
    assert str(built_site) not in raw and "root:" not in raw


def test_hostile_record_is_data_in_search_results(built_site):
    """The record text reaches the index as text; the search UI builds results with textContent."""
    js = (built_site / "assets/javascripts/errdex-search.js").read_text(encoding="utf-8")
    assert "innerHTML" not in js and "textContent" in js


def test_browse_pages(built_site):
    """Each generated browse page is built in both languages (their content: tests/test_render.py)."""
    for lang, root in (("en", built_site), ("zh", built_site / "zh")):
        for index in ("projects", "categories", "tags", "severities"):
            assert (root / "browse" / index / "index.html").is_file()
        listing = (root / "browse/project/example-org/servekit/index.html").read_text(encoding="utf-8")
        assert listing.count('class="errdex-entry"') == 4


def test_home_pages_have_counts_and_search_box(built_site):
    en = (built_site / "index.html").read_text(encoding="utf-8")
    assert re.search(r"<strong>4</strong> errors", en) and "data-errdex-search-form" in en
    assert "errdex_counts" not in en
    zh = (built_site / "zh/index.html").read_text(encoding="utf-8")
    assert re.search(r"<strong>4</strong> 个错误", zh) and '<html lang="zh"' in zh


def test_error_pages_stay_out_of_nav(built_site):
    home = (built_site / "index.html").read_text(encoding="utf-8")
    assert "errors/demo/kv-cache-out-of-memory/" not in home


def test_material_search_is_off_and_pagefind_per_language(built_site):
    assert not (built_site / "search" / "search_index.json").exists()
    entry = (built_site / "pagefind" / "pagefind-entry.json").read_text(encoding="utf-8")
    assert '"en"' in entry and '"zh"' in entry


def test_alias_redirect(built_site):
    text = (built_site / "errors/demo-legacy-kv-oom/index.html").read_text(encoding="utf-8")
    assert 'url=../demo/kv-cache-out-of-memory/' in text


def test_no_broken_links_and_no_external_assets(built_site):
    assert site_mod.check_links(built_site) == []
    for html in built_site.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        assert "fonts.googleapis" not in text and "fonts.gstatic" not in text
        # Nothing is loaded from another host (a canonical or alternate link names a page's address; it loads nothing).
        assert not re.search(r'<(?:script|link)(?![^>]*rel="(?:canonical|alternate)")[^>]+(?:src|href)="(?:https?:)?//', text), html


def test_sitemap_date_comes_from_the_data(built_site):
    sitemap = (built_site / "sitemap-pages.xml").read_text(encoding="utf-8")
    dates = set(re.findall(r"<lastmod>([^<]+)</lastmod>", sitemap))
    records = check([DATASET], DATASET).records
    assert dates == {r.provenance.last_updated for r in records}  # error pages by their record, others by the newest


def _tree(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def test_two_builds_are_identical(built_site, tmp_path):
    out = tmp_path / "again"
    assert main(["build", "--out", str(out), "--data", str(DATASET), "--quiet"]) == 0
    first, second = _tree(built_site), _tree(out)
    assert sorted(first) == sorted(second)
    different = [name for name in first if first[name] != second[name]]
    assert different == []


def _previous_site(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    out = tmp_path / "site"
    out.mkdir()
    (out / "index.html").write_text("previous build", encoding="utf-8")
    (out / "errors").mkdir()
    (out / "errors" / "old.html").write_text("old page", encoding="utf-8")
    return out, _tree(out)


def _leftovers(parent: Path) -> list[str]:
    return [p.name for p in parent.iterdir() if p.name.startswith(".site.")]


def _settled(parent: Path) -> list[str]:
    """What is left beside the site once the detached removal of the old one (and the build's folder) is done:
    waited for at most a minute."""
    import time

    for _ in range(600):
        if not _leftovers(parent):
            break
        time.sleep(0.1)
    return _leftovers(parent)


def test_failed_checks_leave_previous_output(tmp_path, capsys):
    out, before = _previous_site(tmp_path)
    data = tmp_path / "data"
    shutil.copytree(DATASET, data)
    path = data / "demo" / "request-timeout.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("severity: error", "severity: fatal"), encoding="utf-8")
    assert main(["build", "--out", str(out), "--data", str(data), "--quiet"]) == 1
    assert _tree(out) == before and _leftovers(tmp_path) == []
    assert "left as it was" in capsys.readouterr().err


def test_failed_late_stage_leaves_previous_output(tmp_path, monkeypatch, capsys):
    out, before = _previous_site(tmp_path)
    monkeypatch.setattr(site_mod, "check_links", lambda site, base="/", later=None, listed=None: ["index.html -> nowhere/"])
    assert main(["build", "--out", str(out), "--data", str(DATASET), "--quiet"]) == 1
    assert _tree(out) == before and _leftovers(tmp_path) == []
    err = capsys.readouterr().err
    assert "1 broken internal links" in err and "left as it was" in err


def test_failed_mkdocs_leaves_previous_output(tmp_path, monkeypatch, capsys):
    out, before = _previous_site(tmp_path)
    docs = tmp_path / "docs"
    shutil.copytree(site_mod.DOCS, docs)
    (docs / "en" / "about.md").write_text("[broken](missing.md)\n", encoding="utf-8")  # strict mode refuses it
    monkeypatch.setattr(site_mod, "DOCS", docs)
    assert main(["build", "--out", str(out), "--data", str(DATASET), "--quiet"]) == 1
    assert _tree(out) == before and _leftovers(tmp_path) == []
    assert "mkdocs (en) exited" in capsys.readouterr().err


def test_refuses_to_replace_a_folder_that_is_not_a_site(tmp_path):
    out = tmp_path / "precious"
    out.mkdir()
    (out / "notes.txt").write_text("keep me", encoding="utf-8")
    assert main(["build", "--out", str(out), "--data", str(DATASET), "--quiet"]) == 1
    assert (out / "notes.txt").read_text(encoding="utf-8") == "keep me"


def test_successful_build_replaces_previous_output(tmp_path):
    out, _ = _previous_site(tmp_path)
    assert main(["build", "--out", str(out), "--data", str(DATASET), "--quiet"]) == 0
    assert not (out / "errors" / "old.html").exists() and (out / "errors" / FULL / "index.html").is_file()
    assert _settled(tmp_path) == []  # the old site and the build's folder, removed in the background


def test_macros_are_opt_in_and_strict():
    config = yaml.safe_load((site_mod.ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    macros = next(p["macros"] for p in config["plugins"] if isinstance(p, dict) and "macros" in p)
    assert macros["render_by_default"] is False and macros["on_error_fail"] is True
    assert "search" not in [p if isinstance(p, str) else next(iter(p)) for p in config["plugins"]]
    assert config["theme"]["font"] is False


def test_match_pages_carry_the_matcher_with_its_routes_and_words(built_site):
    """The matcher comes from one partial (overrides/partials/errdex-match.html): the routes the build wrote,
    each language's words from its mkdocs config, and only prose in the pages' Markdown."""
    from generator import routes

    words = {lang: yaml.safe_load(path.read_text(encoding="utf-8"))["extra"]["errdex"]["matcher"] for lang, path in site_mod.CONFIGS.items()}
    for lang, page, site_root in (("en", built_site / "match/index.html", "../"), ("zh", built_site / "zh/match/index.html", "../../")):
        raw = page.read_text(encoding="utf-8")
        tag = re.search(r"<div [^>]*data-errdex-matcher[^>]*>", raw).group(0)
        attrs = dict(re.findall(r'([a-z-]+)="([^"]*)"', tag))
        assert attrs["data-site-root"] == site_root and attrs["data-page-root"] == "../"
        assert attrs["data-route-match"] == routes.client_routes()["api_match"]
        assert attrs["data-route-error-page"] == routes.client_routes()["error_page"]
        msgs = {k.removeprefix("data-msg-"): unescape(v) for k, v in attrs.items() if k.startswith("data-msg-")}
        assert msgs == words[lang]["messages"], lang
        assert f'aria-label="{words[lang]["label"]}"' in raw and raw.count("data-errdex-matcher ") == 1
        source = (site_mod.DOCS / lang / "match.md").read_text(encoding="utf-8")
        assert "data-errdex-matcher" not in source and "<script" not in source


def test_the_link_check_judges_each_link_from_where_it_is(tmp_path):
    """Links up ('../'), down, absolute and outside the site, from pages at several depths: each broken one named
    (once per target, whichever page of a folder's subtree links it first), none that resolves."""
    from generator.site.check import check_links

    pages = {
        "index.html": '<a href="a/">a</a> <a href="gone/">x</a> <a href="../up/">x</a>',
        "a/index.html": '<a href="../">home</a> <a href="b/c/">c</a> <img src="../assets/x.png">',
        "a/b/c/index.html": '<a href="../../../a/">a</a> <a href="../../../nothing/">x</a> <a href="/a/b/c/">c</a> <a href="../../../../../out/">x</a>',
        "a/b/d/index.html": '<a href="../../../nothing/">x</a> <a href="../c/">c</a> <a href="#top">t</a> <a href="https://example.org/">e</a>',
    }
    for rel, text in pages.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(f"<!doctype html><body> {text}</body>", encoding="utf-8")
    (tmp_path / "assets").mkdir()
    (tmp_path / "assets" / "x.png").write_bytes(b"png")
    assert check_links(tmp_path) == [
        "a/b/c/index.html -> ../../../nothing/",
        "a/b/c/index.html -> ../../../../../out/ (outside the site)",
        "index.html -> gone/",
        "index.html -> ../up/ (outside the site)",
    ]


def test_the_previous_site_is_removed_after_the_new_one_is_in_place(tmp_path):
    """A build replaces the previous site at once and removes the old tree in a detached process (nothing of it is
    left, nothing else beside the site is touched); a tree an earlier, stopped build left is removed with it."""

    out, _ = _previous_site(tmp_path)
    stale = tmp_path / ".site.old-999999999"  # no such process: left by a build that was stopped
    (stale / "deep").mkdir(parents=True)
    (stale / "deep" / "index.html").write_text("stale", encoding="utf-8")
    (tmp_path / "keep.txt").write_text("not the build's", encoding="utf-8")
    assert main(["build", "--out", str(out), "--data", str(DATASET), "--quiet"]) == 0
    assert "previous build" not in (out / "index.html").read_text(encoding="utf-8") and not (out / "errors" / "old.html").exists()
    _settled(tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["keep.txt", "site"]


def test_the_build_folder_goes_with_the_old_site(tmp_path):
    """swap_in hands the build's working folder to the removal in the background: at its return the folder is no
    longer where the build made it, the new site is in place, and soon nothing else is left; with no previous site
    the folder is removed all the same."""
    from generator.site.outdir import swap_in

    for previous in (True, False):
        parent = tmp_path / str(previous)
        out, scratch = parent / "site", parent / ".site.build-x"
        (scratch / "site" / "deep").mkdir(parents=True)
        (scratch / "site" / "index.html").write_text("new", encoding="utf-8")
        (scratch / "src" / "deep").mkdir(parents=True)
        (scratch / "src" / "deep" / "page.md").write_text("source", encoding="utf-8")
        if previous:
            out.mkdir()
            (out / "index.html").write_text("old", encoding="utf-8")
        swap_in(scratch / "site", out, scratch=scratch)
        assert not scratch.exists() and (out / "index.html").read_text(encoding="utf-8") == "new"
        _settled(parent)
        assert sorted(p.name for p in parent.iterdir()) == ["site"]
        assert sorted(p.name for p in out.rglob("*")) == ["deep", "index.html"]
