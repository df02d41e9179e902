"""One conformance fixture, two engines: `errdex match` (Python, RE2) and the site's worker (JavaScript, in
Chromium) must rank every log of tests/fixtures/match-conformance.json as it says: ids in order, where, what
matched, the values, the score and its reasons. The rules they rank by come from match.json, which the fixture's
patterns are turned into by the build's own code (generator.match.rules).

`ERRDEX_BLESS=1 .venv/bin/pytest tests/test_match_conformance.py -m "not browser"` rewrites the expectations
from the Python engine after an intended change; the browser test then holds the worker to them."""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path

import pytest

from generator.cli import main
from generator.match.rules import GENERIC_MESSAGES, REQUOTE, RULES, match_document, pattern_analysis

FIXTURE = Path(__file__).parent / "fixtures" / "match-conformance.json"
WORKER = Path(__file__).parents[1] / "overrides" / "assets" / "javascripts" / "errdex-match-worker.js"
FIELDS = ("id", "line", "column", "span", "match", "values", "message", "occurrences", "lines", "score", "reasons")


def _fixture() -> dict:
    return json.loads(FIXTURE.read_text(encoding="utf-8"))


def match_json(fixture: dict, rules: dict | None = None) -> dict:
    """The fixture's patterns as the build writes match.json (optionally with other rules)."""
    entries = []
    for p in fixture["patterns"]:
        entry = {"id": p["id"], "regex": p["regex"], "message": p["message"], "severity": "error", "repo": "demo/engine",
                 "title": p["id"], "html": f"/errors/{p['id']}/", **pattern_analysis(p["regex"], p.get("exception_class"))}
        entry.update({k: p[k] for k in ("exception_class", "superseded_by") if k in p})
        entries.append(entry)
    doc = match_document(entries)
    if rules is not None:
        doc["rules"] = {"generic": list(GENERIC_MESSAGES), "requote": REQUOTE, **rules}
    return doc


def _project(result: dict) -> dict:
    out = {k: result[k] for k in FIELDS if k in result}
    out["match"] = result["text"][result["span"][0]:result["span"][1]]
    return {k: out[k] for k in FIELDS}


def python_results(tmp_path: Path, capsys, doc: dict, log: str) -> list[dict]:
    index = tmp_path / "match.json"
    index.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    path = tmp_path / "case.log"
    path.write_bytes(log.encode("utf-8"))
    code = main(["match", str(path), "--index", str(index), "--format", "json", "--top", "1000"])
    body = json.loads(capsys.readouterr().out)
    assert code == (0 if body["results"] else 1)
    return [_project(r) for r in body["results"]]


ENGINES = ["re2", pytest.param("hyperscan", marks=pytest.mark.skipif(
    not __import__("generator.match.prefilter").match.prefilter.hyperscan_available(), reason="Hyperscan is not installed here"))]


@pytest.mark.parametrize("engine", ENGINES)
def test_python_engine_conforms(tmp_path, capsys, bless, engine, monkeypatch):
    """Both prefilters (ERRDEX_ENGINE) give every case's expected answer."""
    monkeypatch.setenv("ERRDEX_ENGINE", engine)
    fixture = _fixture()
    doc = match_json(fixture)
    if bless:
        for case in fixture["cases"]:
            case["expect"] = python_results(tmp_path, capsys, doc, case["log"])
        FIXTURE.write_text(json.dumps(fixture, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    for case in fixture["cases"]:
        assert python_results(tmp_path, capsys, doc, case["log"]) == case["expect"], case["name"]


def test_the_fixture_exercises_every_rule():
    fixture = _fixture()
    seen = {reason[0] for case in fixture["cases"] for r in case["expect"] for reason in r["reasons"]}
    assert seen == {"specificity", "exception", "anchored", "repeated", "retired", "same_line", "partial", "requoted"}
    assert any(len(r["lines"]) == RULES["lines_kept"] < r["occurrences"] for case in fixture["cases"] for r in case["expect"])
    assert any(["repeated", r["occurrences"], RULES["repeat_bonus_cap"]] in r["reasons"]
               for case in fixture["cases"] for r in case["expect"] if r["occurrences"] - 1 > RULES["repeat_bonus_cap"])


def test_the_worker_writes_no_weight_of_its_own():
    js = WORKER.read_text(encoding="utf-8")
    assert not re.search(r"score\s*[-+]?=\s*[-+]?\s*\d", js)
    assert not re.search(r"lines\.length\s*<\s*\d", js)
    for name in RULES:
        assert f"rules.{name}" in js, name


def test_python_reads_the_weights_from_match_json(tmp_path, capsys):
    fixture = _fixture()
    rules = dict(RULES, exception_bonus=0, retired_penalty=0, anchored_bonus=100)
    changed = [python_results(tmp_path, capsys, match_json(fixture, rules), case["log"]) for case in fixture["cases"]]
    assert changed != [case["expect"] for case in fixture["cases"]]
    retired = next(c for c, case in zip(changed, fixture["cases"]) if case["name"].startswith("a retired record"))
    # without the penalty the retired record (29 literal characters) passes the generic one (26)
    assert [(r["id"], r["score"]) for r in retired] == [("demo/alloc", 39), ("demo/old-alloc", 29), ("demo/alloc-generic", 26)]


# -- the worker, in Chromium ---------------------------------------------------------------------------------

RUN_WORKER = """async ({url, doc, logs}) => {
  const worker = new Worker(url);
  const next = () => new Promise((resolve) => {
    worker.onmessage = (e) => { if (e.data.type !== "trying") resolve(e.data); };
  });
  let ready = next();
  worker.postMessage({type: "load", text: doc, skip: []});
  const loaded = await ready;
  if (loaded.type !== "ready") return {error: loaded};
  const out = [];
  for (let i = 0; i < logs.length; i++) {
    const answer = next();
    worker.postMessage({type: "match", text: logs[i], seq: i + 1, budget: 10000});
    out.push((await answer).results);
  }
  worker.terminate();
  return out;
}"""


def worker_results(page, base_url: str, doc: dict, logs: list[str]) -> list[list[dict]]:
    page.goto(base_url + "match/")
    got = page.evaluate(RUN_WORKER, {"url": base_url + "assets/javascripts/errdex-match-worker.js",
                                     "doc": json.dumps(doc, ensure_ascii=False), "logs": logs})
    assert isinstance(got, list), got
    return [[_project(r) for r in results] for results in got]


@pytest.mark.browser
def test_the_worker_conforms(page, base_url):
    fixture = _fixture()
    got = worker_results(page, base_url, match_json(fixture), [c["log"] for c in fixture["cases"]])
    for case, results in zip(fixture["cases"], got):
        assert results == case["expect"], case["name"]
    assert page.problems == []


@pytest.mark.browser
def test_a_weight_changed_in_match_json_changes_both_engines_alike(page, base_url, tmp_path, capsys):
    fixture = _fixture()
    rules = copy.deepcopy(RULES)
    rules.update(exception_bonus=0, retired_penalty=0, anchored_bonus=100, repeat_bonus_cap=2, lines_kept=3)
    doc = match_json(fixture, rules)
    logs = [c["log"] for c in fixture["cases"]]
    js = worker_results(page, base_url, doc, logs)
    py = [python_results(tmp_path, capsys, doc, log) for log in logs]
    assert js == py
    assert js != [c["expect"] for c in fixture["cases"]]
