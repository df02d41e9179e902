"""The best fix is chosen by counted evidence: the most "worked" reports, then the fewest "failed", then the
record's order; the API, the error page, `errdex match` and the MCP server all show that one, with its count."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from generator.api.export import api_files
from generator.checks.pipeline import check
from generator.cli import main
from generator.records.evidence import best_fix
from generator.records.model import Record

DATASET = Path(__file__).parent / "fixtures" / "dataset"
RECORD = DATASET / "demo" / "kv-cache-out-of-memory.yaml"


def _record(reports: list[tuple[str, str]]) -> Record:
    data = yaml.safe_load(RECORD.read_text(encoding="utf-8"))
    data["solutions"] = ["first", "second", "third"]
    data["solutions_zh"] = ["一", "二", "三"]
    data["reports"] = [{"fix": fix, "url": f"https://example.org/issues/{n}", "outcome": outcome, "date": "2025-01-15"}
                       for n, (fix, outcome) in enumerate(reports)]
    return Record.model_validate(data)


def test_the_most_worked_then_the_fewest_failed_then_the_first():
    assert best_fix(_record([]))[0] == 0  # no reports: the record's order
    worked = [("/solutions/1", "worked"), ("/solutions/2", "worked"), ("/solutions/2", "worked")]
    assert best_fix(_record(worked))[0] == 2
    tie = [("/solutions/1", "worked"), ("/solutions/2", "worked"), ("/solutions/1", "failed")]
    assert best_fix(_record(tie))[0] == 2  # as many worked: the fewer failures
    even = [("/solutions/1", "worked"), ("/solutions/2", "worked")]
    index, tally = best_fix(_record(even))
    assert index == 1 and (tally.worked, tally.failed, tally.reports) == (1, 0, 1)
    failing = [("/solutions/0", "failed")]
    assert best_fix(_record(failing))[0] == 1  # a failure counts against the first
    assert best_fix(_record([("/workarounds/0", "worked")]))[0] == 0  # a workaround's reports are not a solution's


def test_the_api_names_the_best_fix_and_its_count():
    record = _record([("/solutions/2", "worked"), ("/solutions/2", "partial")])
    doc = json.loads(api_files([record])[f"errors/{record.id}.json"])
    assert doc["best_fix"] == {"fix": "/solutions/2", "worked": 1, "failed": 0, "partial": 1, "reports": 2, "commands": []}
    plain = json.loads(api_files([_record([])])[f"errors/{record.id}.json"])
    assert plain["best_fix"] == {"fix": "/solutions/0", "worked": 0, "failed": 0, "partial": 0, "reports": 0, "commands": []}


def test_errdex_match_shows_the_best_fix_with_its_count(capsys, tmp_path):
    log = tmp_path / "x.log"
    log.write_text("servekit.CacheOOMError: Cannot allocate 512 KV cache blocks: out of GPU memory\n", encoding="utf-8")
    assert main(["match", str(log), "--data", str(DATASET), "--format", "json"]) == 0
    (item,) = [r for r in json.loads(capsys.readouterr().out)["results"] if r["type"] == "record"]
    record = next(r for r in check([DATASET], DATASET).records if r.id == item["id"])
    index, tally = best_fix(record)
    assert item["fix"]["text"] == record.solutions[index] and item["fix"]["reports"] == tally.reports
    assert main(["match", str(log), "--data", str(DATASET), "--no-catalog"]) == 0
    said = "not yet reported" if not tally.reports else f"worked in {tally.worked} of {tally.reports} report"
    assert f"   fix ({said}" in capsys.readouterr().out


def test_the_error_page_leads_with_the_best_fix_and_its_count():
    from generator import routes
    from generator.site import render

    for lang, first, count in (("en", "third", "Worked in 1 of 1 report"), ("zh", "三", "1 份报告中有 1 份有效")):
        page = render.render_site_pages([_record([("/solutions/2", "worked")])], lang, render.SiteLinks())
        box = page[routes.page_path("error", "demo/kv-cache-out-of-memory")].split('class="errdex-best-fix"', 1)[1].split("</div>", 1)[0]
        assert first in box and count in box
        page = render.render_site_pages([_record([])], lang, render.SiteLinks())
        box = page[routes.page_path("error", "demo/kv-cache-out-of-memory")].split('class="errdex-best-fix"', 1)[1].split("</div>", 1)[0]
        assert ("first" if lang == "en" else "一") in box and ("Not yet reported" if lang == "en" else "尚无报告") in box


def test_a_fix_names_the_commands_it_spells_out_to_copy():
    from generator.records.evidence import commands

    text = ("Start the server with PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True and --max-model-len 4096 (or "
            "--dtype=half), after `pip install -U vllm`; pip install vLLM together with its torch is prose, "
            "the `architectures` key is a name, and --max-model-len alone is said once.")
    assert commands(text) == ["PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True", "--max-model-len 4096", "--dtype=half",
                              "pip install -U vllm"]
    assert commands("Lower the batch size.") == []
    assert commands("pip install flash-attn --no-build-isolation.") == ["pip install flash-attn --no-build-isolation"]
