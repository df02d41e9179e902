"""A record's `title` (and `title_zh`): short, for readers; pages, feeds, the API, search and answers use it, and
a record without one keeps the question form with its message. A title with a placeholder or over 80 characters
is refused with a finding."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

from generator.api.export import api_files
from generator.checks.pipeline import check
from generator.labels import page_title
from generator.records.model import Record

RECORD = Path(__file__).parent / "fixtures" / "dataset" / "demo" / "kv-cache-out-of-memory.yaml"


def _record(**extra) -> Record:
    return Record.model_validate({**yaml.safe_load(RECORD.read_text(encoding="utf-8")), **extra})


def test_the_title_is_what_pages_and_the_api_call_the_record():
    r = _record(title="Servekit: KV cache out of GPU memory", title_zh="Servekit：KV 缓存显存不足")
    assert page_title(r, "en") == "Servekit: KV cache out of GPU memory" and page_title(r, "zh") == "Servekit：KV 缓存显存不足"
    files = api_files([r])
    (entry,) = [p for p in json.loads(files["match.json"])["patterns"] if p["id"] == r.id]
    assert entry["title"] == "Servekit: KV cache out of GPU memory" and entry["title_zh"] == "Servekit：KV 缓存显存不足"
    plain = _record()
    assert page_title(plain, "en").startswith('What causes "Cannot allocate {} KV cache blocks')


def test_a_title_with_a_placeholder_or_too_long_is_a_finding(tmp_path):
    for bad in ("Cannot allocate {} blocks", "x" * 81):
        folder = tmp_path / bad[:8].replace(" ", "-").replace("{", "").replace("}", "")
        (folder / "demo").mkdir(parents=True)
        data = yaml.safe_load(RECORD.read_text(encoding="utf-8"))
        data["title"] = bad
        (folder / "demo" / "kv-cache-out-of-memory.yaml").write_text(yaml.safe_dump(data, allow_unicode=True), encoding="utf-8")
        result = check([folder], folder)
        assert result.failed and any(f.pointer == "/title" for f in result.findings), bad
