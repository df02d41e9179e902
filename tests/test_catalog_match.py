"""The paste page's catalog matching (generator/api/catalogmatch.py, errdex-match-catalog.js): one conformance fixture,
tests/fixtures/catalog-match-conformance.json, of pasted texts over a catalog of real vLLM entries and the demo
catalog, with what `errdex match --catalog` finds (generator/mcp/matching.match_items, records first in the
knowledge, the release asked for, and generator/cli/matchcatalog.traceback_fit). The site's worker, in Chromium, must
find the same over the index and shards catalog_match_files writes for that catalog.

`ERRDEX_BLESS=1 .venv/bin/pytest tests/test_catalog_match.py -m "not browser"` rewrites the expectations from
the Python engine after an intended change."""

from __future__ import annotations

import gzip
import io
import json
import re
import shutil
from pathlib import Path

import pytest

from generator.api.catalogmatch import FILTER_FALSE, PROBE_CHARS, catalog_match_files, filter_holds, inner_tokens, key_token, probe, token_filter
from generator.catalog.query import traceback_fit
from generator.api.export import decode_file
from generator.routes import api_path, client_routes

FIXTURE = Path(__file__).parent / "fixtures" / "catalog-match-conformance.json"
DATASET = Path(__file__).parent / "fixtures" / "dataset"
REPO = Path(__file__).resolve().parents[1]


def _fixture() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def write_catalog(fixture: dict, folder: Path) -> Path:
    """The fixture's catalog as the harvest lays it out: <project>.jsonl, releases.json, links.json."""
    folder.mkdir(parents=True, exist_ok=True)
    c = fixture["catalog"]
    for slug, entries in c["entries"].items():
        lines = [json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False) for e in entries]
        (folder / f"{slug}.jsonl").write_text("".join(line + "\n" for line in sorted(lines)), encoding="utf-8")
    (folder / "releases.json").write_text(json.dumps(c["releases"]), encoding="utf-8")
    (folder / "links.json").write_text(json.dumps(c["links"]), encoding="utf-8")
    return folder


def project_item(item: dict) -> dict:
    """What both engines must agree on for one result."""
    out = {k: item[k] for k in ("type", "id", "line", "column", "score", "reasons")}
    out["match"] = item["text"][item["span"][0]:item["span"][1]]
    out["values"] = item["values"]
    if item["type"] == "record":
        out["catalog"] = [c["id"] for c in item.get("catalog", [])]
    else:
        c = item["catalog"]
        out["catalog"] = {"sites": [f"{s['path']}:{s['line']}" for s in c["sites"]], "releases": c["releases"]}
    return out


@pytest.fixture(scope="module")
def knowledge(tmp_path_factory):
    from generator.bundle.apidata import from_records
    from generator.catalog.reader import load_catalog
    from generator.bundle.knowledge import Knowledge

    folder = write_catalog(_fixture(), tmp_path_factory.mktemp("catalog") / "catalog")
    return Knowledge(from_records(DATASET), load_catalog(folder))


def python_answer(k, case: dict) -> dict:
    from generator.bundle.answers import check_versions, fit_sites, match_items

    data = case["log"].encode("utf-8")
    items, _, _ = match_items(k, io.BytesIO(data), check_versions(k, case["versions"]))
    fits = traceback_fit(k.catalog, data)
    fit_sites(k, items, fits)
    return {"results": [project_item(i) for i in items], "traceback": fits}


def test_python_engine_conforms(knowledge, bless):
    fixture = _fixture()
    if bless:
        for case in fixture["cases"]:
            case["expect"] = python_answer(knowledge, case)
        FIXTURE.write_text(json.dumps(fixture, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    for case in fixture["cases"]:
        assert python_answer(knowledge, case) == case["expect"], case["name"]


def test_the_fixture_exercises_what_the_page_shows():
    cases = _fixture()["cases"]
    results = [r for c in cases for r in c["expect"]["results"]]
    reasons = {w[0] for r in results for w in r["reasons"]}
    assert {"release_has", "release_lacks", "release_unknown", "same_line", "exception"} <= reasons
    assert any(r["type"] == "record" and r["catalog"] for r in results)  # an entry attached to its record
    assert {r["id"] for r in results if r["type"] == "catalog"} >= {"vllm/056566aab71a1a02", "vllm/0588cd9ed8b5bb1f"}
    fits = [f for c in cases for f in c["expect"]["traceback"]]
    assert any(f["releases"] for f in fits) and any(not f["releases"] for f in fits)
    assert next(c for c in cases if c["name"] == "no known message")["expect"] == {"results": [], "traceback": []}


FILED = [f"tok{i}_{'x' * (i % 7)}" for i in range(3000)] + ["Ünïcode", "显存", "a"]
OTHERS = [f"other{i}" for i in range(20000)]


def test_the_token_filter_holds_every_filed_token_and_few_others():
    filt = token_filter(set(FILED))
    assert all(filter_holds(filt, t) for t in FILED)  # never a filed token left out: its piece is always fetched
    passed = sum(filter_holds(filt, t) for t in OTHERS) / len(OTHERS)
    assert passed < 2 * FILTER_FALSE, passed
    assert token_filter(set(reversed(FILED))) == filt  # the same bytes whatever the order


@pytest.mark.browser
def test_the_page_reads_the_token_filter_as_python_does(browser, tmp_path):
    from tests.conftest import serving

    shutil.copy(REPO / "overrides" / "assets" / "javascripts" / "errdex-match-catalog.js", tmp_path / "catalog.js")
    (tmp_path / "index.html").write_text('<!doctype html><meta charset="utf-8"><script src="catalog.js"></script>', encoding="utf-8")
    filt = token_filter(set(FILED))
    words = FILED + OTHERS[:3000]
    with serving(tmp_path) as url:
        page = browser.new_page()
        page.goto(url + "index.html")
        got = page.evaluate("([f, words]) => { catalog = {filter: tokenFilter(f)}; return words.map(filterHolds); }", [filt, words])
        page.close()
    assert got == [filter_holds(filt, w) for w in words]


def test_key_tokens_are_whole_words_of_any_text_holding_the_literal():
    shared = {"is": 9, "size": 2, "block": 1}
    from collections import Counter

    literal = "The selected backend, X,does not support block size "
    assert key_token(literal, Counter(shared)) == "selected"  # shared by no other entry: rarest, then longest
    assert "The" not in inner_tokens(literal) and "size" in inner_tokens(literal)  # "The" could be "TheX"
    assert key_token("Exception in", Counter()) == ""  # no word with a non-word character on both sides
    text = "zzThe selected backend, X,does not support block size 8"
    assert "selected" in re.split(r"[^A-Za-z0-9_]+", text)
    long = "Total number of attention heads (" + "x" * 40 + ") must be divisible by tensor parallel size ("
    cut = probe(long, "divisible")
    assert cut in long and "divisible" in cut and len(cut) == PROBE_CHARS


def test_the_files_are_deterministic_and_hold_every_entry(tmp_path):
    fixture = _fixture()
    one = catalog_match_files(write_catalog(fixture, tmp_path / "a"))
    fixture["catalog"]["entries"]["vllm"].reverse()
    two = catalog_match_files(write_catalog(fixture, tmp_path / "b"))
    assert one == two
    index = json.loads(one[api_path("catalog_match_index")])
    pieces = [decode_file(path, body) for path, body in one.items() if path.rsplit("/", 1)[-1].startswith("p")]
    probes = sum(len(a[2]) for a in index["always"]) + sum(len(v) for p in pieces for g in p.values() for v in g.values())
    entries = sum(len(v) for v in fixture["catalog"]["entries"].values())
    assert index["entries"] == entries and len(pieces) == len(index["pieces_written"])
    # every entry, and a second probe for each whose cut-off head its literal does not hold
    assert probes == entries + sum(1 for v in fixture["catalog"]["entries"].values() for e in v
                                   if len(_probes_of(e)) == 2)
    assert index["projects"]["vllm"]["releases"][0] == "0.6.5"
    shard = next(decode_file(path, body) for path, body in one.items() if path.rsplit("/", 1)[-1].startswith("m"))
    assert all(body[:2] == b"\x1f\x8b" for path, body in one.items() if path != api_path("catalog_match_index"))  # stored gzipped
    entry = next(iter(shard.values()))[0]
    assert {"id", "js", "template", "specificity", "releases", "sites"} <= set(entry)
    assert catalog_match_files(tmp_path / "none") == {}


def _probes_of(entry: dict) -> list[str]:
    """What an entry is found by: its literal, and the head of its partial text when the literal lacks it."""
    from generator.match.rules import RULES, partial_text

    head = partial_text(entry["template"])[:RULES["partial_min_chars"]]
    return [entry["literal"]] + ([head] if head and head not in entry["literal"] else [])


@pytest.mark.data
def test_the_real_catalog_fits_the_download_budget():
    """The index plus the shards a 500-line vLLM traceback needs stay under 1.5 MB gzipped (the page's budget)."""
    from bench.catalogmatch import shard_keys, traceback_500

    catalog = REPO / "data" / "catalog"
    if not (catalog / "vllm.jsonl").is_file():
        pytest.skip("no data/catalog")
    files = catalog_match_files(catalog)
    index = files[api_path("catalog_match_index")]
    index_gz = len(gzip.compress(index, 9))
    keys = shard_keys(json.loads(index), traceback_500(catalog), files)
    shards_gz = sum(len(files[api_path("catalog_match_shard", k)]) for k in keys)  # stored gzipped
    assert index_gz <= 1_000_000, index_gz
    assert index_gz + shards_gz <= 1_500_000, (index_gz, shards_gz, len(keys))


# -- the worker, in Chromium ---------------------------------------------------------------------------------

RUN_WORKER = """async ({url, doc, index, shard, cases}) => {
  const worker = new Worker(url);
  const next = () => new Promise((resolve) => {
    worker.onmessage = (e) => { if (!["trying", "fetching", "fetched"].includes(e.data.type)) resolve(e.data); };
  });
  let ready = next();
  worker.postMessage({type: "load", text: doc, skip: [], catalog: index, shard: shard});
  const loaded = await ready;
  if (loaded.type !== "ready" || !loaded.entries) return {error: loaded};
  const out = [];
  for (let i = 0; i < cases.length; i++) {
    const answer = next();
    worker.postMessage({type: "match", text: cases[i].log, seq: i + 1, budget: 10000, version: cases[i].versions});
    const got = await answer;
    out.push({results: got.results, traceback: got.traceback});
  }
  worker.terminate();
  return out;
}"""


@pytest.fixture(scope="module")
def catalog_site(built_site, tmp_path_factory):
    """The fixture site with the conformance catalog's match files in its API."""
    from conftest import serving

    root = tmp_path_factory.mktemp("catalogmatch") / "site"
    shutil.copytree(built_site, root)
    shutil.rmtree(root / "api" / "catalog" / "match", ignore_errors=True)
    for rel, body in catalog_match_files(write_catalog(_fixture(), tmp_path_factory.mktemp("cat") / "catalog")).items():
        (root / "api" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "api" / rel).write_bytes(body)
    # one entry's line of its entries file, with a guide (hostile text in it: markup, a label's hole, a replacement pattern)
    entries = root / "api" / api_path("catalog_entries", "00", project="vllm")
    entries.parent.mkdir(parents=True, exist_ok=True)
    entries.write_text(json.dumps({"id": "vllm/0032c5647d53c1e0", "project": "vllm", "function": "_check",
                                   "guide": {"release": "0.7.2", "path": "vllm/multimodal/processing.py", "line": 1259,
                                             "guard": {"kind": "if", "source": "modality not in self.supported {value} $&"},
                                             "options": [{"kind": "flag", "name": "limit_mm_per_prompt", "flag": "--limit-mm-per-prompt",
                                                          "help": "<b>x</b>", "path": "vllm/engine/arg_utils.py", "line": 5}]}}) + "\n")
    with serving(root) as url:
        yield url


@pytest.mark.browser
def test_the_worker_conforms(browser, catalog_site):
    fixture = _fixture()
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(catalog_site + "match/")
        got = page.evaluate(RUN_WORKER, {
            "url": catalog_site + "assets/javascripts/errdex-match-worker.js",
            "doc": page.evaluate("fetch('/api/match.json').then(r => r.text())"),
            "index": page.evaluate("fetch('/api/catalog/match/index.json').then(r => r.text())"),
            "shard": catalog_site + client_routes()["api_catalog_match_shard"],
            "cases": [{"log": c["log"], "versions": c["versions"]} for c in fixture["cases"]],
        })
        assert isinstance(got, list), got
        for case, answer in zip(fixture["cases"], got):
            mine = {"results": [project_item(r) for r in answer["results"]], "traceback": answer["traceback"]}
            assert mine == case["expect"], case["name"]
        assert errors == []
    finally:
        page.close()


@pytest.mark.browser
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_page_shows_catalog_entries_with_releases_and_the_version_box(browser, catalog_site, lang):
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        root = catalog_site + ("zh/" if lang == "zh" else "")
        page.goto(root + "match/?version=vllm==0.6.5")
        page.wait_for_function("document.querySelector('[data-errdex-matcher]').dataset.state === 'ready'", timeout=15000)
        assert page.input_value("[data-errdex-version-project]") == "vllm"
        assert page.input_value("[data-errdex-version-release]") == "0.6.5"
        text = "Partial prompt replacement within modality=audio is not supported\nUnknown modality: video\n"
        page.fill("[data-errdex-matcher] textarea", text)
        page.wait_for_function(
            "(n) => { const r = document.querySelector('[data-errdex-matcher]'); return r.dataset.state === 'done' && r.dataset.input === String(n); }",
            arg=len(text), timeout=15000)
        items = page.query_selector_all("[data-errdex-catalog-result]")
        # 0.6.5 lacks the first (60 - 30) and has the second (18 + 10): the ranking of the conformance fixture
        assert [i.get_attribute("data-id") for i in items] == ["vllm/0032c5647d53c1e0", "vllm/0b1ab62b00ec0b4b"]
        items[0].query_selector("summary").click()  # where, which releases and why: folded under the card
        partial = items[0].inner_text()
        assert "vllm/multimodal/processing.py:1259" in partial and "0.7.0" in partial and "0.7.2" in partial
        assert "errdex new vllm/<slug> --from-catalog vllm/0032c5647d53c1e0" in partial
        assert ("added in 0.7.0" if lang == "en" else "0.7.0 起才有") in partial
        assert ("gone since 0.7.3" if lang == "en" else "自 0.7.3 起已移除") in partial
        issue = items[0].query_selector("a[data-errdex-issue]").get_attribute("href")
        assert "template=new-error.yml" in issue and "from-catalog" not in issue and "modality%3Daudio" in issue
        assert ("No fix yet" if lang == "en" else "暂无修复方法") in items[0].query_selector("[data-errdex-fix]").inner_text()
        entry = items[0].query_selector("a[data-errdex-entry]").get_attribute("href")
        assert entry == root + "catalog/vllm/messages/0032c5647d53c1e0.html"  # user-facing: its own page
        assert items[0].query_selector("a[data-errdex-guide]") is None
        # what the code says around it, from its line of the API's entries file, labelled as read from the code
        page.wait_for_selector("[data-errdex-catalog-result] [data-errdex-code]")
        code = items[0].query_selector("[data-errdex-code]").inner_text()
        assert ("Read from the code of vllm 0.7.2 (not a curated fix)" if lang == "en" else "读自 vllm 0.7.2 的代码（并非人工整理的修复方法）") in code
        assert ("Raised when" if lang == "en" else "触发条件") in code and "modality not in self.supported {value} $&" in code
        assert "--limit-mm-per-prompt" in code and "<b>x</b>" in code
        assert items[1].query_selector("[data-errdex-code]") is None  # a record explains it: its fix, not the code
        guide = items[1].query_selector("a[data-errdex-guide]")  # links.json: a curated record explains it
        assert guide.get_attribute("href") == root + "errors/demo/request-timeout/"
        # and its card shows that record's fix
        assert items[1].query_selector(".errdex-card__fixtext").inner_text() == ("Raise the request timeout" if lang == "en" else "提高请求超时时间")
        page.select_option("[data-errdex-version-release]", "0.7.0")
        page.wait_for_function("() => document.querySelector('[data-errdex-catalog-result]') && "
                               "!document.querySelector('.errdex-matcher__absent')")  # 0.7.0 has both messages
        assert "version=vllm%3D%3D0.7.0" in page.url
        assert errors == []
    finally:
        page.close()


@pytest.mark.browser
def test_the_card_names_the_site_at_the_tracebacks_frame(browser, catalog_site):
    from test_match_browser import _paste

    case = next(c for c in _fixture()["cases"] if c["name"].startswith("a frame at an older raise site"))
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(catalog_site + "match/")
        _paste(page, case["log"])
        item = page.query_selector("[data-errdex-catalog-result][data-id='vllm/0b1ab62b00ec0b4b']")
        item.query_selector("summary").click()
        site = item.query_selector(".errdex-matcher__site").inner_text()
        # the releases that have the statement at that line (it moved in 0.6.5 to 0.9.1)
        assert site == "Raised at vllm/entrypoints/chat_utils.py:573, the frame of your traceback (0.9.1)", site
        assert errors == []
    finally:
        page.close()
