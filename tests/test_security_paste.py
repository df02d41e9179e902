"""The paste page's kill switch, as a class: one pattern that runs too long in the browser costs only itself.

Whatever kind of pattern the worker runs (a record's, a catalog entry's, the traceback frame pattern), a pattern
that hangs is stopped, named as left out, and every other pattern's results still show; with two such patterns
the page restarts its worker once per pattern and converges. A pattern that is slow but ends, line after line,
is left out as well, without starving the others of their time. The slow patterns are ones `validate` refuses,
so they are written into the built site's match data directly (as hostile data past the checks would be).
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from generator.api.catalogmatch import shard_of, token_filter
from generator.api.export import decode_file, encode_file
from generator.routes import api_path

ROOT = Path(__file__).resolve().parent.parent
SCRIPTS = ROOT / "overrides" / "assets" / "javascripts"

# Each slow pattern repeats an alternation whose branches overlap ((?:\w|[^"])*) before a character the pasted
# line lacks: a backtracking engine tries every split of the letters. Over 40 letters it never finishes; over 24
# it ends after some tens of milliseconds, which 80 lines make seconds.
SLOW = r'((?:\w|[^"])*)'
HANG, DRAG = 40, 24
RECORD = "demo/jammed-record"
PLODDING = "demo/plodding-record"
STALLED = "demo/stalled-entry"
WEDGED = "demo/wedged-entry"
SLUGGISH = "demo/sluggish-entry"
FRAME = "catalog:frame"  # the worker's name for the index's traceback frame pattern
HEADS = {RECORD: "Jammed by", PLODDING: "Plodding by", STALLED: "Stalled on", WEDGED: "Wedged at", SLUGGISH: "Sluggish at"}
SLOW_TEXT = {
    RECORD: "Jammed by " + "a" * HANG + "\n",
    PLODDING: "".join(f"Plodding by {'p' * DRAG}\n" for _ in range(80)),
    STALLED: "Stalled on " + "b" * HANG + "\n",
    WEDGED: "Wedged at " + "c" * HANG + "\n",
    SLUGGISH: "".join(f"Sluggish at {'s' * DRAG}\n" for _ in range(80)),
    FRAME: '  File "' + "d" * HANG + "\n",
}
# What the fixture site finds on its own: a record, and a catalog entry no record explains.
KNOWN = "Request req-42 timed out after 30 seconds\nRuntimeError: Scheduler queue is full (12 waiting)\n"
KNOWN_RECORDS = ["demo/request-timeout"]
KNOWN_ENTRIES = ["demo/6c82ce52ae657a8f"]
DONE = ("(n) => { const r = document.querySelector('[data-errdex-matcher]');"
        " return r.dataset.state === 'done' && r.dataset.input === String(n); }")


def _record(record_id: str) -> dict:
    """A match.json pattern that backtracks on its SLOW_TEXT lines."""
    head = HEADS[record_id]
    return {
        "id": record_id, "regex": f"{head} {SLOW}!", "message": f"{head} {{}}!", "title": head, "repo": "demo/demo",
        "html": f"/errors/{record_id}/", "js_source": f"{head} {SLOW}!", "js_flags": "u", "literals": [head + " "],
        "specificity": 12, "anchored": False,
    }


def _catalog_entry(entry_id: str) -> tuple[str, str, dict]:
    """(key token, probe, shard entry) of a catalog entry that backtracks on its SLOW_TEXT lines."""
    head = HEADS[entry_id]
    entry = {
        "id": entry_id, "js": f"{head} {SLOW}!", "template": head + " {}!", "specificity": 20,
        "releases": [[0, 2]], "sites": [[0, 2, "servekit/stall.py", 5]], "tier": "user",
    }
    return head.split()[0], head + " ", entry


def _write_json(path: Path, doc) -> None:
    path.write_bytes(encode_file(path.name, doc))  # gzipped where the route says so


def _read_json(path: Path):
    return decode_file(path.name, path.read_bytes())


@pytest.fixture(scope="module")
def hostile_url(built_site, tmp_path_factory):
    """The fixture site with slow patterns in its match data: records' (match.json), catalog entries' (the catalog
    match index and its shards) and the index's traceback frame pattern."""
    from conftest import serving

    root = tmp_path_factory.mktemp("slowpaste") / "site"
    shutil.copytree(built_site, root)
    api = root / "api"
    match = api / api_path("match")
    doc = json.loads(match.read_text(encoding="utf-8"))
    doc["patterns"][:0] = [_record(RECORD), _record(PLODDING)]
    _write_json(match, doc)
    index_path = api / api_path("catalog_match_index")
    index = json.loads(index_path.read_text(encoding="utf-8"))
    for token, probe, entry in map(_catalog_entry, (STALLED, WEDGED, SLUGGISH)):
        n = shard_of(token, index["message_shards"])
        k = n % index["pieces"]  # the probe piece that files the token's shard
        piece_path = api / api_path("catalog_match_shard", f"p{k}")
        piece = _read_json(piece_path) if piece_path.is_file() else {}
        piece.setdefault(str(n), {}).setdefault(token, []).append(probe)
        _write_json(piece_path, piece)
        index["pieces_written"] = sorted(set(index["pieces_written"]) | {k})
        shard_path = api / api_path("catalog_match_shard", f"m{n}")
        shard = _read_json(shard_path) if shard_path.is_file() else {}
        shard.setdefault(token, []).append(entry)
        _write_json(shard_path, shard)
        index["entries"] += 1
    index["frame"] = f'File "{SLOW}\\.py", line (\\d+)'
    # the token filter holds every token the pieces file, the new ones too
    filed = {t for k in index["pieces_written"] for group in _read_json(api / api_path("catalog_match_shard", f"p{k}")).values()
             for t in group}
    index["token_filter"] = token_filter(filed)
    _write_json(index_path, index)
    with serving(root) as url:
        yield url


def _paste_and_wait(browser, url: str, text: str) -> dict:
    context = browser.new_context()
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        page.goto(url + "match/")
        page.wait_for_function("document.querySelector('[data-errdex-matcher]').dataset.state === 'ready'", timeout=30000)
        page.fill("[data-errdex-matcher] textarea", text)
        # Each slow pattern costs the page's hard limit and a fresh worker: wait generously, assert no timing.
        page.wait_for_function(DONE, arg=len(text), timeout=60000)
        return {
            "records": [r.get_attribute("data-id") for r in page.query_selector_all("[data-errdex-result]")],
            "entries": [r.get_attribute("data-id") for r in page.query_selector_all("[data-errdex-catalog-result]")],
            "notice": page.inner_text("[data-errdex-matcher-notice]"),
            "status": page.inner_text("[data-errdex-matcher-status]"),
            "errors": errors,
        }
    finally:
        context.close()


@pytest.mark.browser
@pytest.mark.parametrize("slow", [
    [STALLED],  # a catalog entry's pattern
    [STALLED, WEDGED],  # two, the second found only after the first restart
    [RECORD],  # a record's pattern (the previous round's case, now with the catalog beside it)
    [FRAME],  # the traceback frame pattern the catalog index gives
    [RECORD, WEDGED, FRAME],  # one of each kind in one paste
    [SLUGGISH],  # slow on every line but ends: it must not use up the others' time
    [PLODDING, SLUGGISH, STALLED],
], ids=lambda s: "+".join(x.split("/")[-1].split(":")[-1] for x in s))
def test_a_slow_pattern_of_any_kind_costs_only_itself(browser, hostile_url, slow):
    text = KNOWN + "".join(SLOW_TEXT[s] for s in slow)
    got = _paste_and_wait(browser, hostile_url, text)
    assert got["records"] == KNOWN_RECORDS, got
    assert got["entries"] == KNOWN_ENTRIES, got
    assert "too long" in got["notice"], got
    named = {s for s in SLOW_TEXT if s in got["notice"]}
    assert named == set(slow), got  # each slow one is named, and nothing innocent is
    assert not any(r in got["notice"] for r in KNOWN_RECORDS + KNOWN_ENTRIES), got
    assert got["errors"] == []


# -- every pattern the worker runs goes through one function ----------------------------------------------------

def _functions(source: str) -> dict[str, str]:
    """Top-level `function name(...) {...}` bodies of a script, by name (the scripts' own layout: a top-level
    function ends at the first line that is a lone "}")."""
    out = {}
    for m in re.finditer(r"^function (\w+)\(.*?^}$", source, re.M | re.S):
        out[m.group(1)] = m.group(0)
    return out


def test_the_worker_compiles_and_runs_patterns_in_one_place():
    """An expression from data is compiled only by `compiled`, which only `execute` calls, and run only there
    (`execute` consults the skip list and the time budget, and tells the page which pattern it runs): a new kind of
    pattern cannot bypass the kill switch. Outside it, only the worker's own constants (TOKEN) are run."""
    worker = (SCRIPTS / "errdex-match-worker.js").read_text(encoding="utf-8")
    names = ["errdex-match-worker.js"] + [n for call in re.findall(r"importScripts\(([^)]*)\)", worker) for n in re.findall(r'"([^"]+)"', call)]  # the worker and what it loads
    assert len(names) > 1
    seen = {}
    for name in names:
        source = (SCRIPTS / name).read_text(encoding="utf-8")
        functions = _functions(source)
        seen.update(functions)
        assert source.count("RegExp(") == sum(body.count("RegExp(") for body in functions.values())
        for fn, body in functions.items():
            where = f"{name}: {fn}"
            if fn not in ("compiled", "execute"):
                assert "RegExp(" not in body, f"{where} compiles a pattern itself"
                assert not re.search(r"\bcompiled\(", body), f"{where} gets a compiled pattern outside execute"
                assert not re.search(r"\.re\b", body), f"{where} reaches a compiled pattern outside execute"
            if fn != "execute":
                for m in re.finditer(r"([\w.]+)\.(exec|test)\(", body):
                    assert m.group(1).isupper(), f"{where} runs {m.group(1)}.{m.group(2)} outside execute"
    assert "new RegExp(" in seen["compiled"]
    execute = seen["execute"]
    assert "skip.has(p.id)" in execute and "deadline" in execute and '"trying"' in execute
