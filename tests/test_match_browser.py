"""The "Paste your error" page in headless Chromium, over the fixture site served from a real localhost server."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

TRACEBACK = """\
INFO 01-02 03:04:05 server.py:10] serving on 0.0.0.0:8000
Traceback (most recent call last):
  File "/srv/servekit/engine.py", line 210, in step
    blocks = self.cache.allocate(n)
  File "/srv/servekit/cache.py", line 88, in allocate
    raise CacheOOMError(f"Cannot allocate {n} KV cache blocks. out of GPU memory")
servekit.CacheOOMError: Cannot allocate 512 KV cache blocks. out of GPU memory
INFO 01-02 03:04:07 server.py:12] Request req-42 timed out after 30 seconds
"""
READY = "document.querySelector('[data-errdex-matcher]').dataset.state === 'ready'"


def _paste(page, text: str) -> None:
    page.wait_for_function(READY, timeout=15000)
    page.fill("[data-errdex-matcher] textarea", text)
    page.wait_for_function(
        "(n) => { const r = document.querySelector('[data-errdex-matcher]'); return r.dataset.state === 'done' && r.dataset.input === String(n); }",
        arg=len(text), timeout=15000)


@pytest.mark.parametrize("path, lang_root", [("match/", ""), ("zh/match/", "zh/")])
def test_pasting_a_traceback_shows_the_record_highlighted(page, base_url, path, lang_root):
    page.goto(base_url + path)
    _paste(page, TRACEBACK)
    results = page.query_selector_all("[data-errdex-result]")
    assert [r.get_attribute("data-id") for r in results] == ["demo/kv-cache-out-of-memory", "demo/request-timeout"]
    first = results[0]
    # The answer card: the fix (by counted reports) and its count show at once, in the page's language
    fix = first.query_selector("[data-errdex-fix]")
    assert fix.is_visible()
    assert fix.query_selector(".errdex-card__fixtext").inner_text() == (
        "降低 max_model_len，让每个序列需要的块更少" if lang_root else "Lower max_model_len so that each sequence needs fewer blocks")
    assert fix.query_selector(".errdex-card__count").inner_text() == ("1 份报告中有 1 份有效" if lang_root else "worked in 1 of 1 report")
    assert "demo · servekit.CacheOOMError" in first.query_selector(".errdex-card__facts").inner_text()
    # where it is in the paste and why, folded under the card until asked for
    assert not first.query_selector("mark").is_visible()
    first.query_selector("summary").click()
    assert first.query_selector("mark").inner_text() == "Cannot allocate 512 KV cache blocks. out of GPU memory"
    assert first.query_selector("pre").inner_text() == "servekit.CacheOOMError: Cannot allocate 512 KV cache blocks. out of GPU memory"
    assert [c.inner_text() for c in first.query_selector_all(".errdex-matcher__values code")] == ["512"]
    link = first.query_selector("a")
    assert link.get_attribute("href") == f"{base_url}{lang_root}errors/demo/kv-cache-out-of-memory/"
    assert "CacheOOMError" in first.inner_text()  # the reason it ranks first: its exception class is on the line
    second = results[1]
    second.query_selector("summary").click()
    assert [c.inner_text() for c in second.query_selector_all(".errdex-matcher__values code")] == ["req-42", "30"]
    link.click()
    page.wait_for_url(f"{base_url}{lang_root}errors/demo/kv-cache-out-of-memory/")
    assert page.problems == []


def test_nothing_known_says_so_and_the_page_stays_responsive_on_a_huge_paste(page, base_url):
    page.goto(base_url + "match/")
    _paste(page, "all quiet\n")
    assert page.query_selector_all("[data-errdex-result]") == []
    assert "No known error" in page.inner_text("[data-errdex-matcher-status]")
    huge = ("INFO nothing to see here " * 40 + "\n") * 4000 + "Request r-1 timed out after 5 seconds\n"  # ~4 MB
    page.wait_for_function(READY + " || document.querySelector('[data-errdex-matcher]').dataset.state === 'done'")
    page.evaluate("""(text) => { const area = document.querySelector('[data-errdex-matcher] textarea');
        area.value = text; area.dispatchEvent(new Event('input', {bubbles: true})); }""", huge)
    # The main thread answers while the worker matches.
    assert page.evaluate("() => { const t = performance.now(); return performance.now() - t; }") < 50
    page.wait_for_function(
        "(n) => document.querySelector('[data-errdex-matcher]').dataset.input === String(n)", arg=len(huge), timeout=15000)
    assert [r.get_attribute("data-id") for r in page.query_selector_all("[data-errdex-result]")] == ["demo/request-timeout"]
    assert "line 4001" in page.inner_text("[data-errdex-result]")
    assert page.problems == []


def test_the_matcher_is_linked_from_the_home_page_and_the_header(page, base_url):
    for home, target in (("", "match/"), ("zh/", "zh/match/")):
        page.goto(base_url + home)
        hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.href)")
        assert hrefs.count(base_url + target) >= 2, hrefs  # a header tab and the home page's text


# -- a pattern that backtracks for ever in JavaScript ------------------------------------------------------------

SLOW_ID = "demo/slow-in-javascript"
SLOW_TRACEBACK = """\
Traceback (most recent call last):
  File "/usr/local/lib/python3.11/site-packages/servekit/engine_core_scheduler_loop_worker.py", line 210, in step
    blocks = self.cache.allocate(n)
servekit.CacheOOMError: Cannot allocate 512 KV cache blocks. out of GPU memory
"""


@pytest.fixture(scope="module")
def slow_site_url(built_site, tmp_path_factory):
    """The fixture site plus, in its match.json, a pattern `validate` refuses (so it is written in directly): its
    literal is on every traceback line, and its repeated alternation backtracks exponentially in JavaScript."""
    import json
    import shutil

    from conftest import serving

    root = tmp_path_factory.mktemp("slow") / "site"
    shutil.copytree(built_site, root)
    index = root / "api" / "match.json"
    doc = json.loads(index.read_text(encoding="utf-8"))
    doc["patterns"].insert(0, {
        "id": SLOW_ID, "regex": r'File "((?:\w|[^"])*)"!', "message": 'File "{}"!', "title": "slow", "repo": "demo/demo",
        "html": f"/errors/{SLOW_ID}/", "js_source": r'File "((?:\w|[^"])*)"!', "js_flags": "u", "literals": ['File "'],
        "specificity": 8, "anchored": False,
    })
    index.write_text(json.dumps(doc), encoding="utf-8")
    with serving(root) as url:
        yield url


def test_a_pattern_that_hangs_is_skipped_named_and_match_json_is_fetched_once(browser, slow_site_url):
    context = browser.new_context()
    page = context.new_page()
    fetched = []
    errors = []
    page.on("request", lambda r: r.url.endswith("/api/match.json") and fetched.append(r.url))
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(slow_site_url + "match/")
        page.wait_for_function(READY, timeout=15000)
        page.fill("[data-errdex-matcher] textarea", SLOW_TRACEBACK)
        # The worker hangs in the slow pattern, is stopped after its hard limit, and a new one finishes without it.
        page.wait_for_function(
            "(n) => { const r = document.querySelector('[data-errdex-matcher]'); return r.dataset.state === 'done' && r.dataset.input === String(n); }",
            arg=len(SLOW_TRACEBACK), timeout=30000)
        ids = [r.get_attribute("data-id") for r in page.query_selector_all("[data-errdex-result]")]
        assert ids == ["demo/kv-cache-out-of-memory"]
        assert page.query_selector("[data-errdex-result] mark").text_content() == "Cannot allocate 512 KV cache blocks. out of GPU memory"
        notice = page.inner_text("[data-errdex-matcher-notice]")
        assert SLOW_ID in notice and "too long" in notice
        # Another paste runs without the slow pattern at once, still from the one fetch.
        page.fill("[data-errdex-matcher] textarea", SLOW_TRACEBACK + "again\n")
        page.wait_for_function(
            "(n) => { const r = document.querySelector('[data-errdex-matcher]'); return r.dataset.state === 'done' && r.dataset.input === String(n); }",
            arg=len(SLOW_TRACEBACK) + 6, timeout=3000)
        assert len(fetched) == 1, fetched
        assert errors == []
    finally:
        context.close()


CUT_OFF = "RuntimeError: Cannot allocate 512 KV cache blocks: out of GPU mem"


@pytest.mark.parametrize("lang_root", ["", "zh/"])
@pytest.mark.parametrize("width, height", [(1280, 800), (390, 844)])
def test_the_first_cards_fix_is_on_the_first_screen_and_nothing_overflows(page, base_url, lang_root, width, height):
    page.set_viewport_size({"width": width, "height": height})
    page.goto(base_url + lang_root + "match/")
    _paste(page, TRACEBACK)
    fix = page.query_selector("[data-errdex-result] [data-errdex-fix]")
    if width >= 1280:  # on a desktop screen the box comes first and the first answer's fix shows without scrolling
        assert fix.bounding_box()["y"] + fix.bounding_box()["height"] <= height
    assert page.evaluate("document.documentElement.scrollWidth") <= width  # no sideways scrolling, even on a phone
    for card in page.query_selector_all(".errdex-card"):
        box = card.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= width
    assert page.problems == []


@pytest.mark.parametrize("lang_root", ["", "zh/"])
def test_a_cut_off_line_is_a_partial_match_labelled_as_one(page, base_url, lang_root):
    page.goto(base_url + lang_root + "match/")
    _paste(page, CUT_OFF)
    results = page.query_selector_all("[data-errdex-result]")
    assert [r.get_attribute("data-id") for r in results] == ["demo/kv-cache-out-of-memory"]
    assert results[0].query_selector("[data-errdex-partial]").inner_text() == (
        "部分匹配：你的这一行在这条消息中途就结束了" if lang_root else "partial match: your line stops inside this message")
    assert results[0].query_selector("[data-errdex-fix]").is_visible()
    # not offered as a new error: the page knows it
    assert page.query_selector("[data-errdex-issue]") is None
    assert page.problems == []
