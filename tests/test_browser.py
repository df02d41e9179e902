"""The built fixture site in headless Chromium, served from a real localhost HTTP server."""

from __future__ import annotations

import pytest

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
