"""`errdex match --catalog` on real error logs and tracebacks that users posted in public GitHub issues, one per
stack (tests/fixtures/tracebacks: the posted lines, quoted as posted; cases.json: the thread, what the user said they
ran, and what errdex must answer), over the repository's own records and catalog (data/errors, data/catalog).

The catalog is loaded once for the module: `generator.cli.main` runs as `errdex match` does, with the loader
memoised, so each case costs a match and not a load."""

from __future__ import annotations

import contextlib
import functools
import io
import json
from pathlib import Path
from typing import Any

import pytest

from generator.cli import main

pytestmark = pytest.mark.data  # the repository's own records and catalog

HERE = Path(__file__).parent / "fixtures" / "tracebacks"
REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "data" / "errors"
CASES = json.loads((HERE / "cases.json").read_text(encoding="utf-8"))
STACKS = ["vllm", "sglang", "transformers", "tgi", "llama.cpp"]


@pytest.fixture(scope="module")
def run():
    """`errdex match FILE --catalog --format json [ARGS...]` -> (exit status, parsed output), the knowledge (records
    and catalog) loaded once for the whole module, and every answer cached by its arguments."""
    import generator.mcp.main as mcp_main

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(mcp_main, "load_knowledge", functools.lru_cache(maxsize=None)(mcp_main.load_knowledge))
        answers: dict[tuple[str, ...], tuple[int, dict[str, Any]]] = {}

        def _run(file: str, *args: str) -> tuple[int, dict[str, Any]]:
            key = (file, *args)
            if key not in answers:
                out, err = io.StringIO(), io.StringIO()
                with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                    code = main(["match", str(HERE / file), "--catalog", "--data", str(DATA), "--format", "json", *args])
                assert err.getvalue() == "", err.getvalue()
                answers[key] = (code, json.loads(out.getvalue()))
            return answers[key]

        yield _run


def _case(stack: str) -> dict[str, Any]:
    return next(c for c in CASES if c["stack"] == stack)


def _entry(body: dict[str, Any], entry_id: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the result that carries the catalog entry, the entry's summary): a catalog result with that id, or a record
    result that has it among its `catalog` entries."""
    for result in body["results"]:
        if result["type"] == "catalog" and result["id"] == entry_id:
            return result, result["catalog"]
        for summary in result.get("catalog", []) if result["type"] == "record" else []:
            if summary.get("id") == entry_id:
                return result, summary
    raise AssertionError(f"{entry_id} is not among the results: {[r['id'] for r in body['results']]}")


def test_the_cases_cover_the_five_stacks_with_their_files():
    assert sorted(c["stack"] for c in CASES) == sorted(STACKS)
    for case in CASES:
        assert list(case) == sorted(case)  # sorted keys, as the fixture's format says
        text = (HERE / case["file"]).read_text(encoding="utf-8")
        assert 0 < len(text.splitlines()) <= 150
        assert case["url"].startswith("https://github.com/") and "/issues/" in case["url"]


@pytest.mark.parametrize("stack", STACKS)
def test_the_catalog_entry_of_the_posted_error_is_found_with_its_site_and_releases(run, stack):
    case = _case(stack)
    code, body = run(case["file"])
    assert code == 0
    result, summary = _entry(body, case["entry"])
    site = summary["sites"][0]  # the site at the traceback's own frame, when it has one at a raise site
    assert f"{site['path']}:{site['line']}" == case["site"]
    assert summary["releases"] == case["releases"]
    assert summary["project"] == ("llama.cpp" if stack == "llama.cpp" else stack)
    assert result["score"] > 0 and result["why"]


@pytest.mark.parametrize("stack", STACKS)
def test_the_frames_give_the_releases_the_traceback_fits(run, stack):
    case = _case(stack)
    _, body = run(case["file"])
    fits = {f["project"]: f for f in body["traceback"]}
    if case["fits"] is None:  # a Rust or C++ log, or frames at no catalog raise site: nothing narrowed
        assert stack not in fits
        return
    fit = fits[stack]
    assert fit["releases"] == case["fits"]
    assert any(case["entry"] in frame["entries"] for frame in fit["frames"])
    assert all(frame["site"].split(":", 1)[0] == case["site"].split(":", 1)[0] for frame in fit["frames"])


def _score(body: dict[str, Any], entry_id: str) -> tuple[int, list[str]]:
    result, _ = _entry(body, entry_id)
    return result["score"], result["why"]


def test_a_release_without_the_message_drops_the_score_by_30(run):
    case = _case("transformers")  # raised by 4.44.0 to 4.44.2 only: 4.40.0 spelled it otherwise
    plain, _ = _score(run(case["file"])[1], case["entry"])
    code, body = run(case["file"], "--version", "transformers==4.40.0")
    assert code == 0
    score, why = _score(body, case["entry"])
    assert score == plain - 30
    assert any(w.startswith("-30: transformers 4.40.0 does not have this message (added in 4.44.0") for w in why), why


def test_a_release_with_the_message_raises_the_score_by_10(run):
    case = _case("transformers")
    plain, _ = _score(run(case["file"])[1], case["entry"])
    code, body = run(case["file"], "--version", "transformers==4.44.1")
    assert code == 0
    score, why = _score(body, case["entry"])
    assert score == plain + 10
    assert "+10: transformers 4.44.1 has this message" in why


def test_the_users_own_release_is_not_said_to_lack_the_message(run):
    case = _case("sglang")  # the user ran 0.4.3.post2; one wording the record's text holds covers 0.1.18-0.5.2
    _, body = run(case["file"], "--version", "sglang==0.4.3.post2")
    result, _ = _entry(body, case["entry"])
    assert "+10: sglang 0.4.3.post2 has this message" in result["why"]
    assert result["catalog"][0]["id"] == case["entry"]  # the wording that release raises comes first


# ---------------------------------------------------------------- the same pastes on the paste page, in Chromium

def _ranges(releases: list[list[str]], lang: str) -> str:
    to = " to " if lang == "en" else " 至 "
    return ", ".join(a if a == b else f"{a}{to}{b}" for a, b in releases)


def _paste(page, url: str, text: str) -> str:
    """Open the paste page at `url`, paste `text`, and return what the matcher shows once it is done."""
    page.goto(url)
    page.wait_for_function("document.querySelector('[data-errdex-matcher]').dataset.state === 'ready'", timeout=30000)
    page.fill("[data-errdex-matcher] textarea", text)
    page.wait_for_function(
        "(n) => { const r = document.querySelector('[data-errdex-matcher]'); return r.dataset.state === 'done' && r.dataset.input === String(n); }",
        arg=len(text), timeout=30000)
    page.evaluate("document.querySelectorAll('[data-errdex-matcher] details').forEach((d) => { d.open = true; })")  # as a reader unfolds each card
    return page.locator("[data-errdex-matcher]").inner_text()


@pytest.mark.browser
@pytest.mark.parametrize("stack", STACKS)
def test_the_paste_page_gives_the_raise_site_and_the_releases(browser, real_url, stack):
    case = _case(stack)
    text = (HERE / case["file"]).read_text(encoding="utf-8")
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        shown = _paste(page, real_url + "match/", text)
        path, line = case["site"].rsplit(":", 1)
        assert f"{path}:{line}" in shown, shown[:2000]
        assert _ranges(case["releases"], "en") in shown
        if case["fits"]:
            fit = page.locator("[data-errdex-matcher-fit]").inner_text()
            assert _ranges(case["fits"], "en") in fit and path in fit
        assert errors == []
    finally:
        page.close()


@pytest.mark.browser
def test_the_version_box_changes_the_answer_on_a_real_entry(browser, real_url):
    case = _case("transformers")  # raised by 4.44.0 to 4.44.2 only
    text = (HERE / case["file"]).read_text(encoding="utf-8")
    page = browser.new_page()
    try:
        scores = {}
        for version in ("transformers==4.44.1", "transformers==4.40.0"):
            scores[version] = _paste(page, real_url + "match/?version=" + version, text)
        assert "4.44.1" in scores["transformers==4.44.1"] and "+10" in scores["transformers==4.44.1"]
        assert "−30" in scores["transformers==4.40.0"] or "-30" in scores["transformers==4.40.0"]
    finally:
        page.close()
