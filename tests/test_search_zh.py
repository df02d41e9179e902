"""Chinese search: the index and the page's script space Han characters by one rule (generator/site/searchtext.py,
tests/fixtures/search-conformance.json), and a query finds every page that contains it."""

from __future__ import annotations

import html.parser
import json
import re
from pathlib import Path

import pytest

from generator.site.searchtext import RULES, html_pages, spaced, spaced_html, write_shadow

FIXTURE = json.loads((Path(__file__).parent / "fixtures" / "search-conformance.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("text,want", FIXTURE["spaced"])
def test_spaced_follows_the_fixture(text, want):
    assert spaced(text) == want


def test_spaced_html_touches_text_only():
    page = '<html lang="zh"><h1 title="显存">显存不足</h1><a href="/zh/显存/">KV缓存</a><p>English</p></html>'
    assert spaced_html(page) == '<html lang="zh"><h1 title="显存"> 显 存 不 足 </h1><a href="/zh/显存/"> KV 缓 存 </a><p>English</p></html>'


def test_the_shadow_spaces_only_the_segmented_language(tmp_path):
    site, shadow = tmp_path / "site", tmp_path / "shadow"
    (site / "zh" / "a").mkdir(parents=True)
    (site / "b").mkdir()
    (site / "zh" / "a" / "index.html").write_text("<p>显存</p>", encoding="utf-8")
    (site / "b" / "index.html").write_text("<p>显存 in English page</p>", encoding="utf-8")
    (site / "b" / "style.css").write_text("p{}", encoding="utf-8")
    assert write_shadow(site, shadow, ["zh/"]) == 1
    assert (shadow / "zh" / "a" / "index.html").read_text(encoding="utf-8") == "<p> 显 存 </p>"
    assert (shadow / "b" / "index.html").read_text(encoding="utf-8") == "<p>显存 in English page</p>"
    assert not (shadow / "b" / "style.css").exists()
    assert (site / "zh" / "a" / "index.html").read_text(encoding="utf-8") == "<p>显存</p>"  # readers' pages unchanged


def test_only_marked_pages_are_mirrored_and_pages_known_unmarked_are_not_read(tmp_path):
    site = tmp_path / "site"
    (site / "m").mkdir(parents=True)
    (site / "a.html").write_text('<main data-pagefind-body>A</main>', encoding="utf-8")
    (site / "m" / "b.html").write_text('<p>data-pagefind-body, as text</p>', encoding="utf-8")  # the bytes, not the attribute
    (site / "c.html").write_text("<p>C</p>", encoding="utf-8")
    assert html_pages(site) == [("a.html", True), ("c.html", False), ("m/b.html", True)]
    assert html_pages(site, unmarked={"m/b.html"}) == [("a.html", True), ("c.html", False), ("m/b.html", False)]
    (site / "m" / "b.html").unlink()  # not read: a page the builder wrote unmarked needs no look
    assert html_pages(site, ["a.html", "c.html", "m/b.html"], {"m/b.html"}) == [("a.html", True), ("c.html", False), ("m/b.html", False)]
    shadow = tmp_path / "shadow"
    write_shadow(site, shadow, [], pages=html_pages(site, ["a.html", "c.html", "m/b.html"], {"m/b.html"}))
    assert sorted(p.name for p in shadow.rglob("*.html")) == ["a.html"]


# ------------------------------------------------------------------------------------- in the browser

@pytest.mark.browser
def test_the_page_script_follows_the_fixture(page, base_url):
    page.goto(base_url + "zh/", wait_until="networkidle")
    assert json.loads(page.get_attribute("[data-errdex-search]", "data-segment")) == RULES
    got = page.evaluate("""f => ({
        spaced: f.spaced.map(c => window.errdexSearchText.spaced(c[0])),
        queries: f.queries.map(c => window.errdexSearchText.queries(c[0])),
        unspaced: f.unspaced.map(c => window.errdexSearchText.unspaced(c[0])),
    })""", FIXTURE)
    assert got == {key: [c[1] for c in FIXTURE[key]] for key in ("spaced", "queries", "unspaced")}
    page.goto(base_url, wait_until="networkidle")  # English pages: no segmentation
    assert page.get_attribute("[data-errdex-search]", "data-segment") is None
    assert page.evaluate("window.errdexSearchText.queries('显存')") == ["显存"]


class _Indexed(html.parser.HTMLParser):
    """The text Pagefind indexes on a page: inside data-pagefind-body, outside data-pagefind-ignore."""

    VOID = {"br", "img", "input", "meta", "link", "hr", "wbr", "source", "col", "area", "base", "embed", "track"}

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[tuple[bool, bool]] = []  # (in body, ignored) per open element
        self.parts: list[str] = []

    def handle_starttag(self, tag, attrs):
        names = {k for k, _ in attrs}
        body, ignored = self.stack[-1] if self.stack else (False, False)
        state = (body or "data-pagefind-body" in names, ignored or "data-pagefind-ignore" in names)
        if tag not in self.VOID:
            self.stack.append(state)

    def handle_endtag(self, tag):
        if tag not in self.VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] == (True, False):
            self.parts.append(data)


def _indexed_text(path: Path) -> str:
    parser = _Indexed()
    parser.feed(path.read_text(encoding="utf-8"))
    return re.sub(r"\s+", "", "".join(parser.parts)).lower()


QUERIES = ["显存", "显存不足", "张量并行", "KV 缓存", "上下文", "量化", "驱动", "分词器", "聊天模板", "内存不足", "共享库",
           "超时", "编译", "注意力"]


@pytest.mark.browser
def test_every_chinese_query_finds_every_page_that_contains_it(browser, real_site, real_url):
    pages = {"/" + p.parent.relative_to(real_site).as_posix() + "/": _indexed_text(p)
             for p in (real_site / "zh" / "errors").rglob("index.html")}
    context = browser.new_context()
    pg = context.new_page()
    pg.goto(real_url + "zh/", wait_until="networkidle")
    found = pg.evaluate("""async qs => {
        const root = document.querySelector('[data-errdex-search]');
        const pf = await import(new URL(root.getAttribute('data-pagefind-src'), document.baseURI).href);
        await pf.options({ baseUrl: new URL(root.getAttribute('data-site-root'), document.baseURI).pathname });
        const out = {};
        for (const q of qs) {
            let urls = [];
            for (const form of window.errdexSearchText.queries(q)) {
                const res = await pf.search(form);
                urls = await Promise.all(res.results.map(r => r.data().then(d => d.url)));
                if (urls.length) break;
            }
            out[q] = urls;
        }
        return out;
    }""", QUERIES)
    for query in QUERIES:
        needle = re.sub(r"\s+", "", query).lower()
        want = {url for url, text in pages.items() if needle in text}
        got = {u for u in found[query] if u.startswith("/zh/errors/")}
        assert want, f"no record contains {query}: choose another query"
        assert want <= got, f"{query}: missed {sorted(want - got)}"
        assert got <= want, f"{query}: found pages that do not contain it: {sorted(got - want)}"
    # What a reader sees: the count in the search box is the same.
    pg.keyboard.press("/")
    pg.keyboard.type("张量并行")
    pg.wait_for_selector(".md-search-result__item", timeout=15000)
    assert pg.locator(".md-search-result__meta").inner_text() == f"找到 {len(found['张量并行'])} 个错误"
    titles = pg.locator(".md-search-result__article h1").all_inner_texts()
    import yaml

    chinese = {yaml.safe_load(f.read_text(encoding="utf-8")).get("title_zh") for f in (Path(__file__).parent.parent / "data" / "errors").rglob("*.yaml")}
    assert titles and all(t in chinese and not re.search("[\u4e00-\u9fff] [\u4e00-\u9fff]", t) for t in titles)  # the records' own titles
    context.close()
