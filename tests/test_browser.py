"""The built fixture site in headless Chromium, served from a real localhost HTTP server."""

from __future__ import annotations

import pytest

from generator import routes

pytestmark = pytest.mark.browser

FULL = "errors/demo/kv-cache-out-of-memory/"


@pytest.mark.parametrize("path", [FULL, "zh/" + FULL, "", "zh/", "browse/tags/"])
def test_pages_render_without_console_errors(page, base_url, path):
    page.goto(base_url + path, wait_until="networkidle")
    assert page.locator("article.md-content__inner h1").count() == 1
    assert page.problems == []


def test_error_page_sections_visible(page, base_url):
    page.goto(base_url + FULL, wait_until="networkidle")
    assert page.locator("h1").first.inner_text().startswith('What causes "Cannot allocate {} KV cache blocks')
    assert page.locator(".errdex-snippet .hll").inner_text().strip().startswith("raise CacheOOMError")
    # Counted from six linked reports: a sentence, the interval, the bar, and each report's link.
    assert page.locator(".errdex-dead-ends .errdex-tally__sentence").inner_text() == "Failed in 5 of 6 reports"
    assert page.locator(".errdex-dead-ends .errdex-report a").count() == 6
    width = page.locator(".errdex-dead-ends .errdex-rate__bar").evaluate("e => e.getBoundingClientRect().width / e.parentElement.getBoundingClientRect().width")
    assert abs(width - 5 / 6) < 0.02
    # One report: a count and its link, no bar.
    assert page.locator(".errdex-solutions .errdex-tally__sentence").inner_text() == "Worked in 1 of 1 report"
    assert page.locator(".errdex-solutions .errdex-rate").count() == 0
    assert page.problems == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_html_lang(page, base_url, lang):
    page.goto(base_url + ("zh/" if lang == "zh" else "") + FULL)
    assert page.evaluate("document.documentElement.lang") == lang


def test_language_switch_lands_on_the_same_error(page, base_url):
    page.goto(base_url + FULL, wait_until="networkidle")
    page.hover(".md-select")
    page.click("a[data-errdex-lang=zh]")
    page.wait_for_load_state("networkidle")
    assert page.url == base_url + "zh/" + FULL
    assert page.evaluate("document.documentElement.lang") == "zh"
    assert "是什么原因造成的" in page.locator("article.md-content__inner h1").inner_text()
    page.hover(".md-select")
    page.click("a[data-errdex-lang=en]")
    page.wait_for_load_state("networkidle")
    assert page.url == base_url + FULL
    assert page.problems == []


def _search(page, query: str) -> list[str]:
    page.keyboard.press("/")
    page.keyboard.type(query)
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    return [a.get_attribute("href") for a in page.query_selector_all(".md-search-result__link")]


def test_english_search(page, base_url):
    page.goto(base_url + "errors/demo/request-timeout/", wait_until="networkidle")
    hrefs = _search(page, "allocate KV cache")
    assert hrefs[0] == "/" + FULL
    assert all(not h.startswith("/zh/") for h in hrefs)
    first = page.locator(".md-search-result__item").first
    assert "Cannot allocate" in first.locator("h1").inner_text()
    assert first.locator("p").inner_text().strip() != ""
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url(base_url + FULL)
    assert page.problems == []


@pytest.mark.parametrize("query", ["显存不足", "分配"])
def test_chinese_search(page, base_url, query):
    page.goto(base_url + "zh/", wait_until="networkidle")
    hrefs = _search(page, query)
    assert "/zh/" + FULL in hrefs
    assert all(h.startswith("/zh/") for h in hrefs)
    assert page.problems == []


def test_a_page_whose_title_holds_the_chinese_query_comes_first(page, base_url):
    page.goto(base_url + "zh/", wait_until="networkidle")
    # the rule, on results in the order Pagefind could give them (a page repeating the words above the one named for them)
    order = page.evaluate("""() => window.errdexSearchText.titleFirst([
        {url: "body", meta: {title: "在 servekit 中 ，“ out of GPU memory ” 是 什 么 原 因 造 成 的 ？"}},
        {url: "spaced", meta: {title: "servekit： 显 存 不 足 时 请 求 一 直 排 队"}},
        {url: "none", meta: {}},
        {url: "plain", meta: {title: "显存不足"}}], "显存不足").map(d => d.url)""")
    assert order == ["spaced", "plain", "body", "none"]
    # and in the search box: the record whose title holds the query, before the one whose body holds it
    hrefs = _search(page, "显存不足")
    assert hrefs[:2] == ["/zh/errors/demo/request-timeout/", "/zh/" + FULL]
    assert page.problems == []


def test_home_search_box(page, base_url):
    page.goto(base_url + "?q=timed+out", wait_until="networkidle")
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    assert page.locator(".md-search-result__link").first.get_attribute("href") == "/errors/demo/request-timeout/"


def test_hostile_record_runs_nothing(page, base_url):
    page.goto(base_url + "errors/demo/hostile-text/", wait_until="networkidle")
    hrefs = _search(page, "alert")
    assert "/errors/demo/hostile-text/" in hrefs
    assert page.evaluate("document.querySelectorAll('article script, article img, .md-search-result script, .md-search-result img').length") == 0
    assert "<script>alert(1)</script>" in page.locator("article.md-content__inner h1").inner_text()
    assert page.problems == []


PASTED = "[rank0]: servekit.CacheOOMError: Cannot allocate 4096 KV cache blocks: out of GPU memory"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_pasted_error_in_the_home_box_reaches_its_record(page, base_url, lang):
    prefix = "zh/" if lang == "zh" else ""
    page.goto(base_url + prefix, wait_until="networkidle")
    page.fill(".errdex-home-search textarea", PASTED)
    page.press(".errdex-home-search textarea", "Enter")
    first = page.locator(".md-search-result__item").first
    first.wait_for(timeout=15000)
    assert first.get_attribute("data-errdex-matched") == "demo/kv-cache-out-of-memory"
    title = first.locator("h1").inner_text()
    assert ("是什么原因造成的" in title) if lang == "zh" else title.startswith("What causes")
    # its answer card's fix first, with its count of reports, in the page's language
    assert first.locator("p").inner_text() == ("修复方法（1 份报告中有 1 份有效）：降低 max_model_len，让每个序列需要的块更少" if lang == "zh"
                                               else "Fix (worked in 1 of 1 report): Lower max_model_len so that each sequence needs fewer blocks")
    # The record is not listed twice, and a whole log can go to the paste page with the text.
    hrefs = [a.get_attribute("href") for a in page.locator(".md-search-result__link").all()]
    assert sum(h.rstrip("/").endswith("errors/demo/kv-cache-out-of-memory") for h in hrefs) == 1
    page.locator(".errdex-search-paste a").click()
    page.wait_for_selector("[data-errdex-matcher][data-state=done]", timeout=15000)
    assert page.locator("textarea").input_value() == PASTED
    assert page.locator("[data-errdex-result]").first.get_attribute("data-id") == "demo/kv-cache-out-of-memory"
    assert page.problems == []


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_home_box_keeps_a_tracebacks_lines_and_sends_it_to_the_paste_page(page, base_url, lang):
    prefix = "zh/" if lang == "zh" else ""
    page.goto(base_url + prefix, wait_until="networkidle")
    traceback = "Traceback (most recent call last):\n  File \"/app/engine.py\", line 88, in step\n" + PASTED
    box = page.locator(".errdex-home-search textarea")
    box.focus()
    page.keyboard.insert_text(traceback)  # as a paste: the newlines stay
    assert box.input_value() == traceback
    page.keyboard.press("Enter")
    page.wait_for_url(lambda url: "/match/?paste=" in url, timeout=15000)
    page.wait_for_selector("[data-errdex-matcher][data-state=done]", timeout=15000)
    assert page.locator("[data-errdex-matcher] textarea").input_value() == traceback
    assert page.locator("[data-errdex-result]").first.get_attribute("data-id") == "demo/kv-cache-out-of-memory"
    assert page.problems == []


def test_tabbing_out_of_the_header_search_closes_it(page, base_url):
    page.goto(base_url + "browse/tags/", wait_until="networkidle")
    page.keyboard.press("/")
    page.keyboard.insert_text("cache")
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    assert page.evaluate("document.getElementById('__search').checked")
    for _ in range(40):  # past the box and its results, out of the search
        page.keyboard.press("Tab")
        if not page.evaluate("document.querySelector('[data-errdex-search]').contains(document.activeElement)"):
            break
    assert not page.evaluate("document.getElementById('__search').checked")  # no overlay left over the page
    assert page.problems == []


def test_a_pasted_error_in_the_header_search_reaches_its_record(page, base_url):
    page.goto(base_url + "browse/tags/", wait_until="networkidle")
    page.keyboard.press("/")
    page.keyboard.insert_text(PASTED)
    page.wait_for_selector("[data-errdex-matched]", timeout=15000)
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_url(base_url + FULL)
    assert page.problems == []


def test_words_typed_into_the_search_do_not_load_the_match_data(page, base_url):
    fetched: list[str] = []
    page.on("requestfinished", lambda r: fetched.append(r.url))
    page.goto(base_url + "browse/tags/", wait_until="networkidle")
    page.keyboard.press("/")
    page.keyboard.type("GPU out of memory")  # words to look up in the page index: too short for the matcher
    page.wait_for_selector(".md-search-result__item", timeout=15000)
    page.wait_for_load_state("networkidle")
    assert not any(u.endswith("/api/match.json") for u in fetched)
    page.fill("[data-errdex-search-input]", PASTED)  # a pasted error line: the matcher is asked too
    page.wait_for_selector("[data-errdex-matched]", timeout=15000)
    assert sum(u.endswith("/api/match.json") for u in fetched) == 1
    assert page.problems == []


def test_an_unrecognised_error_offers_the_paste_page_and_a_prefilled_proposal(page, base_url):
    page.goto(base_url, wait_until="networkidle")
    page.keyboard.press("/")
    page.keyboard.insert_text("qqzx zzvw error")
    page.wait_for_selector(".errdex-search-propose", timeout=15000)
    assert page.locator("[data-errdex-matched]").count() == 0
    href = page.locator(".errdex-search-propose a").get_attribute("href")
    assert href.startswith("https://github.com/errdex/errdex/issues/new?template=new-error.yml&")
    assert "message=qqzx+zzvw+error" in href
    assert page.locator(".errdex-search-paste a").get_attribute("href").endswith("/match/?paste=qqzx+zzvw+error")
    assert page.problems == []


def test_the_chinese_paste_page_shows_chinese_titles(page, base_url):
    page.goto(base_url + "zh/match/", wait_until="networkidle")
    page.wait_for_selector("[data-errdex-matcher][data-state=ready]", timeout=15000)
    page.fill("textarea", PASTED)
    page.wait_for_selector("[data-errdex-matcher][data-state=done]", timeout=15000)
    title = page.locator("[data-errdex-result] .errdex-card__title a").first.inner_text()
    assert title.startswith("在 example-org/servekit 中") and "是什么原因造成的" in title
    assert page.problems == []


@pytest.fixture(scope="module")
def served_by_errdex(built_site):
    """The fixture site served by `errdex serve`'s own handler (which answers missing addresses with 404.html)."""
    import functools
    import http.server
    import threading

    from generator.site.serve import _Handler

    handler = functools.partial(_Handler, directory=str(built_site))
    _Handler.log_message = lambda *a: None
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_port}/"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_404_page_offers_search_paste_and_working_language_links(browser, served_by_errdex, lang):
    context = browser.new_context()
    page = context.new_page()
    prefix = "zh/" if lang == "zh" else ""
    response = page.goto(served_by_errdex + prefix + "errors/no/such-record/", wait_until="networkidle")
    assert response.status == 404
    assert page.locator("h1").first.inner_text() == ("页面不存在" if lang == "zh" else "Page not found")
    assert page.locator(".errdex-home-search textarea").count() == 1
    for link, want in (("paste", prefix + "match/"), ("home", prefix)):
        href = page.locator(f"[data-errdex-notfound={link}]").get_attribute("href")
        assert page.evaluate("h => new URL(h, location.href).href", href) == served_by_errdex + want
    for other, want in (("en", ""), ("zh", "zh/")):
        href = page.locator(f"a[data-errdex-lang={other}]").get_attribute("href")
        target = page.evaluate("h => new URL(h, location.href).href", href)
        assert target == served_by_errdex + want, (other, href)
        assert page.request.get(target).status == 200
    # The search box on the 404 page searches.
    page.fill(".errdex-home-search textarea", PASTED)
    page.press(".errdex-home-search textarea", "Enter")
    page.wait_for_selector("[data-errdex-matched]", timeout=15000)
    context.close()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_address_a_page_had_before_goes_on_to_the_page(browser, served_by_errdex, built_site, lang):
    """routes.MOVED_PAGES: a catalog message's page was a folder of its own; its old address, with its query and
    section, goes on to the page (the 404 page's script); an old-shaped address of no page ends on the 404 page,
    and one whose part is not a path segment stays where it is."""
    prefix = routes.lang_root(lang)
    key = next((built_site / prefix / "catalog" / "demo" / "messages").glob("*.html")).stem
    old = routes.MOVED_PAGES["catalog_message"].format(project="demo", key=key)
    page = browser.new_page()
    page.goto(served_by_errdex + prefix + old + "?from=feed#sites")
    page.wait_for_url("**/*.html*")
    assert page.url == served_by_errdex + prefix + routes.catalog_page_url("catalog_message", "demo", key) + "?from=feed#sites"
    assert page.inner_text("h1") and page.locator("a.errdex-lang").count() == 1  # the entry's lean page
    page.goto(served_by_errdex + prefix + old.replace(key, "0000000000000000"))  # the shape of one, but no page:
    page.wait_for_url("**/0000000000000000.html")  # the new address, once (it has not the old shape), and the 404 page
    page.wait_for_load_state("networkidle")
    assert page.locator("[data-errdex-moved]").count() == 1
    response = page.goto(served_by_errdex + prefix + "catalog/demo/messages/a%2Fb/", wait_until="networkidle")
    assert response.status == 404 and page.url.endswith("/a%2Fb/")  # not a segment: never a way out of the site
    page.close()


@pytest.mark.parametrize("path", ["", "zh/", FULL, "zh/" + FULL, "match/", "zh/match/", "browse/tags/", "404.html"])
def test_nothing_overflows_a_phone_screen(browser, base_url, path):
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=1, is_mobile=True)
    page = context.new_page()
    page.goto(base_url + path, wait_until="networkidle")
    wide = page.evaluate("""() => {
        const out = [];
        for (const el of document.querySelectorAll('body *')) {
            const r = el.getBoundingClientRect();
            if (!r.width || getComputedStyle(el).visibility === 'hidden') continue;
            let clipped = false;  // inside a scrolling box (code blocks): scrolls, does not overflow the page
            for (let p = el.parentElement; p; p = p.parentElement) {
                const s = getComputedStyle(p);
                if (['auto', 'scroll', 'hidden'].includes(s.overflowX)) { clipped = true; break; }
            }
            if (!clipped && (r.right > window.innerWidth + 1 || r.left < -1)) out.push(el.tagName + '.' + el.className + ' ' + Math.round(r.left) + '..' + Math.round(r.right));
        }
        return {wide: out.slice(0, 10), scroll: document.documentElement.scrollWidth};
    }""")
    assert wide["scroll"] <= 390 and wide["wide"] == [], wide
    context.close()


def test_the_palette_is_kept_across_languages(page, base_url):
    page.goto(base_url + FULL, wait_until="networkidle")
    before = page.evaluate("document.body.getAttribute('data-md-color-scheme')")
    page.locator("form[data-md-component=palette] label:visible").first.click()
    after = page.evaluate("document.body.getAttribute('data-md-color-scheme')")
    assert after != before
    page.goto(base_url + "zh/" + FULL, wait_until="networkidle")
    assert page.evaluate("document.body.getAttribute('data-md-color-scheme')") == after


def test_the_language_switch_keeps_the_section(page, base_url):
    page.goto(base_url + FULL + "#solutions", wait_until="networkidle")
    page.hover(".md-select")
    page.click("a[data-errdex-lang=zh]")
    page.wait_for_load_state("networkidle")
    assert page.url == base_url + "zh/" + FULL + "#solutions"


def test_link_previews(page, base_url):
    page.goto(base_url + "zh/" + FULL, wait_until="networkidle")
    meta = page.evaluate("Object.fromEntries([...document.querySelectorAll('meta[property^=og], meta[name^=twitter]')].map(m => [m.getAttribute('property') || m.getAttribute('name'), m.content]))")
    assert meta["og:title"] == page.locator("h1").first.inner_text()
    assert meta["og:locale"] == "zh_CN" and meta["og:type"] == "article" and meta["twitter:card"] == "summary"
    assert meta["og:url"].endswith("/zh/" + FULL) and meta["og:description"]


PAGES = ["", "match/", "errors/demo/kv-cache-out-of-memory/", "browse/tags/", "browse/projects/", "catalog/", "catalog/demo/",
         "api/", "mcp/", "about/"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_no_kind_of_page_scrolls_sideways_on_a_phone(browser, base_url, lang):
    """Every kind of page at 390 px wide: home, paste, an error page, browse, the catalog's home and a project, the
    API, MCP and about pages; and the search dropdown open over one."""
    context = browser.new_context(viewport={"width": 390, "height": 844})
    page = context.new_page()
    prefix = "zh/" if lang == "zh" else ""
    wide = {}
    for path in PAGES:
        page.goto(base_url + prefix + path, wait_until="networkidle")
        width = page.evaluate("document.documentElement.scrollWidth")
        if width > 390:
            wide[path] = width
    page.goto(base_url + prefix + "browse/tags/", wait_until="networkidle")
    page.keyboard.press("/")
    page.keyboard.insert_text(PASTED)
    page.wait_for_selector("[data-errdex-matched]", timeout=15000)
    if page.evaluate("document.documentElement.scrollWidth") > 390:
        wide["search"] = page.evaluate("document.documentElement.scrollWidth")
    assert wide == {}
    context.close()
