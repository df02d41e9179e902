"""The JSON API files (generator/api/export.py, generator/api/openapi.py) without a server: shape, bytes, safety."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from openapi_spec_validator import OpenAPIV31SpecValidator, validate

from api_records import assert_holds, fixture_data, fixture_records
from generator.api.export import API_VERSION, api_files, encode_json, safe_relpath, write_api
from generator.match.rules import GENERIC_MESSAGES, REQUOTE, RULES
from generator.records.model import Record
from generator.checks.pipeline import check
from generator.records.schema import schema_text

ROOT = Path(__file__).resolve().parents[1]
FIXED = ["errors.json", "errors.ndjson", "manifest.json", "match.json", "openapi.json", "schema.json", "stats.json"]
PRETTY = {"stats.json", "openapi.json"}  # small documents people read; schema.json is the repository file


@pytest.fixture(scope="module")
def real_records() -> list[Record]:
    result = check([ROOT / "data/errors"], ROOT / "data/errors")
    assert not result.failed, [f for f in result.findings if f.severity == "error"]
    return result.records


@pytest.fixture(scope="module")
def records(real_records: list[Record]) -> list[Record]:
    return real_records + fixture_records()


def tree(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_paths_are_every_id_alias_and_fixed_file(records):
    files = api_files(records)
    names = [n for r in records for n in [r.id, *r.aliases]]
    assert sorted(files) == sorted(FIXED + [f"errors/{n}.json" for n in names])
    assert list(files) == sorted(files)


def test_two_writes_are_byte_identical_whatever_the_input_order(records, tmp_path):
    write_api(records, tmp_path / "a")
    write_api(list(reversed(records)), tmp_path / "b")
    first, second = tree(tmp_path / "a"), tree(tmp_path / "b")
    assert first == second
    assert first == api_files(records)


def test_every_file_follows_the_encoding_policy(records):
    files = api_files(records)
    for path, body in files.items():
        text = body.decode("utf-8")
        assert text.endswith("\n") and not text.endswith("\n\n"), path
        assert "\u2028" not in text and "\u2029" not in text and "\x85" not in text, path
        if path == "errors.ndjson":
            lines = text.splitlines()  # splitlines also breaks at U+2028/U+2029/U+0085: none may be left raw
            assert len(lines) == len(records) == text.count("\n")
            ids = [json.loads(line)["record"]["id"] for line in lines]
            assert ids == sorted(r.id for r in records)
            for line, record_id in zip(lines, ids):  # each line is the record's own file, byte for byte
                assert (line + "\n").encode() == files[f"errors/{record_id}.json"]
        elif path == "schema.json":
            assert text == schema_text()
        else:
            value = json.loads(text)
            assert encode_json(value, pretty=path in PRETTY) == body, f"{path} is not in canonical form"
            if path not in PRETTY:
                assert text.count("\n") == 1, path
        assert not re.search(r"\\u[4-9][0-9a-f]{3}", text), f"{path} escapes CJK characters"
    assert "夹具池已耗尽".encode() in files["errors/zz-fixture/live-thing.json"]


def test_record_document_is_the_whole_record_plus_links(records):
    files = api_files(records)
    for data in fixture_data():
        doc = json.loads(files[f"errors/{data['id']}.json"])
        record = Record.model_validate(data)
        assert doc["record"] == record.model_dump(mode="json", exclude_none=True)
        assert Record.model_validate(doc["record"]) == record
        assert_holds(doc["record"], data)  # everything written in the record is there, unchanged
        assert doc["links"]["html"] == f"/errors/{record.id}/"
        assert doc["links"]["html_zh"] == f"/zh/errors/{record.id}/"
        assert doc["links"]["json"] == f"/api/errors/{record.id}.json"
    live = json.loads(files["errors/zz-fixture/live-thing.json"])
    assert live["links"]["source"] == (
        "https://github.com/example-org/fixture-engine/blob/0123456789abcdef0123456789abcdef01234567/engine/pool.py#L10-L13"
    )
    assert "successor" not in live
    retired = json.loads(files["errors/zz-fixture/retired-thing.json"])
    assert "source" not in retired["links"]
    # The YAML names the successor by an alias; the API names the canonical record.
    assert retired["record"]["superseded_by"] == "0123456789abcdef"
    assert retired["successor"] == {
        "id": "zz-fixture/live-thing",
        "links": {"html": "/errors/zz-fixture/live-thing/", "html_zh": "/zh/errors/zz-fixture/live-thing/", "json": "/api/errors/zz-fixture/live-thing.json"},
    }
    # Numbers are counted from reports, never typed: none without reports, k of n with them.
    assert "evidence" not in retired and b"rate" not in files["errors/zz-fixture/retired-thing.json"]
    assert live["evidence"]["by_fix"]["/workarounds/0"] == {
        "reports": 6, "worked": 4, "failed": 1, "partial": 1, "share": 0.6667, "interval_95": [0.3, 0.9032],
    }
    assert live["evidence"]["by_fix"]["/solutions/0"]["reports"] == 1
    assert live["evidence"]["fixes"]["reports"] == 7 and live["evidence"]["min_reports_for_bar"] == 5


def test_aliases_serve_the_same_bytes(records):
    files = api_files(records)
    for record in records:
        for alias in record.aliases:
            assert files[f"errors/{alias}.json"] == files[f"errors/{record.id}.json"]
            assert json.loads(files[f"errors/{alias}.json"])["record"]["id"] == record.id


def test_stats_of_the_small_records():
    stats = json.loads(api_files(fixture_records())["stats.json"])
    assert stats == {
        "records": 3,
        "aliases": 2,
        "superseded": 1,
        "by_repo": {"example-org/fixture-engine": 2, "example-org/other": 1},
        "by_category": {"config_error": 1, "resource_error": 2},
        "by_severity": {"critical": 1, "error": 0, "info": 1, "warning": 1},
        "by_verification_tier": {"ai_generated": 1, "community": 1, "maintainer_confirmed": 0, "reproduced": 1, "source_verified": 0},
        # live: 4 of 4 fields; retired: 4 of 7 (solutions, dead_ends[0].action/why_fails lack zh); flat: 0 of 3
        "translation": {"records_complete": 1, "records_partial": 1, "records_untranslated": 1, "fields": 14, "fields_translated": 8, "coverage": 0.5714},
    }


def test_index_and_match_entries_of_the_small_records():
    files = api_files(fixture_records())
    index = json.loads(files["errors.json"])
    assert index["count"] == 3 and [e["id"] for e in index["errors"]] == ["zz-fixture-flat", "zz-fixture/live-thing", "zz-fixture/retired-thing"]
    flat, live, retired = index["errors"]
    assert live == {
        "id": "zz-fixture/live-thing",
        "aliases": ["0123456789abcdef", "legacy/zz/deep/name"],
        "message": "Fixture pool exhausted: {} wanted",
        "message_zh": "夹具池已耗尽：需要 {} 个",
        "repo": "example-org/fixture-engine",
        "category": "resource_error",
        "severity": "critical",
        "tags": ["fixture", "memory"],
        "last_updated": "2026-01-02",
        "links": {"html": "/errors/zz-fixture/live-thing/", "html_zh": "/zh/errors/zz-fixture/live-thing/", "json": "/api/errors/zz-fixture/live-thing.json"},
    }
    assert "message_zh" not in flat and retired["superseded_by"] == "zz-fixture/live-thing"
    match = json.loads(files["match.json"])
    assert match["patterns"][1] == {
        "id": "zz-fixture/live-thing",
        "regex": r"Fixture pool exhausted: (\d+) wanted",
        "message": "Fixture pool exhausted: {} wanted",
        "severity": "critical",
        "repo": "example-org/fixture-engine",
        "title": 'What causes "Fixture pool exhausted: {} wanted" in example-org/fixture-engine?',
        "title_zh": "在 example-org/fixture-engine 中，“Fixture pool exhausted: {} wanted” 是什么原因造成的？",
        "html": "/errors/zz-fixture/live-thing/",
        "exception_class": "FixtureError",
        "js_source": r"Fixture pool exhausted: (\d+) wanted",
        "js_flags": "u",
        "literals": ["Fixture pool exhausted: "],
        "specificity": 31,
        "anchored": False,
        "exception_name": "FixtureError",
        "card": {"title": 'What causes "Fixture pool exhausted: {} wanted" in example-org/fixture-engine?',
                 "title_zh": "在 example-org/fixture-engine 中，“Fixture pool exhausted: {} wanted” 是什么原因造成的？",
                 "project": "zz-fixture", "exception": "FixtureError", "releases": [],
                 "fix": {"text": "Ask for fewer slots", "text_zh": "请求更少的槽位", "worked": 1, "failed": 0, "partial": 0,
                         "reports": 1, "commands": []}},
    }
    assert match["rules"] == {**RULES, "generic": GENERIC_MESSAGES, "requote": REQUOTE}
    assert "exception_class" not in match["patterns"][0]
    assert match["patterns"][2]["superseded_by"] == "zz-fixture/live-thing"


def test_manifest_lists_every_other_file(records):
    files = api_files(records)
    manifest = json.loads(files["manifest.json"])
    assert manifest["api_version"] == API_VERSION
    assert manifest["records"] == len(records)
    assert set(manifest["files"]) == set(files) - {"manifest.json"}
    for path, entry in manifest["files"].items():
        assert entry == {"sha256": hashlib.sha256(files[path]).hexdigest(), "size": len(files[path])}
    assert manifest["dataset_version"] == hashlib.sha256(files["errors.ndjson"]).hexdigest()[:16]


def test_a_prose_change_changes_the_version_and_only_the_files_that_hold_it():
    before = api_files(fixture_records())
    data = fixture_data()
    data[1]["solutions"] = ["Read the successor, really"]
    after = api_files([Record.model_validate(d) for d in data])
    changed = {p for p in before if before[p] != after[p]}
    # Only the manifest carries the dataset version (and openapi.json, in its manifest example), so the index,
    # stats, schema and every other record file keep their bytes: a client skips them. match.json changes: its
    # answer cards carry each record's best fix.
    assert changed == {"errors/zz-fixture/retired-thing.json", "errors.ndjson", "manifest.json", "openapi.json", "match.json"}
    assert json.loads(before["manifest.json"])["dataset_version"] != json.loads(after["manifest.json"])["dataset_version"]


def test_empty_dataset_still_builds(tmp_path):
    write_api([], tmp_path)
    files = tree(tmp_path)
    assert sorted(files) == FIXED
    assert files["errors.ndjson"] == b""
    validate(json.loads(files["openapi.json"]), cls=OpenAPIV31SpecValidator, base_uri=(tmp_path / "openapi.json").as_uri())


def test_openapi_is_valid_offline_and_lists_each_id_depth(records, tmp_path):
    write_api(records, tmp_path)
    spec = json.loads((tmp_path / "openapi.json").read_text(encoding="utf-8"))
    validate(spec, base_uri=(tmp_path / "openapi.json").as_uri(), cls=OpenAPIV31SpecValidator)
    assert spec["openapi"] == "3.1.0" and spec["info"]["version"] == API_VERSION
    depths = {n.count("/") + 1 for r in records for n in [r.id, *r.aliases]}
    templates = {p for p in spec["paths"] if "{" in p}
    assert templates == {"/errors/" + "/".join(f"{{part{i}}}" for i in range(1, d + 1)) + ".json" for d in depths}
    assert {p for p in spec["paths"] if "{" not in p} == {f"/{f}" for f in FIXED}


def test_base_path_prefixes_every_link():
    files = api_files(fixture_records(), base="/errdex/")
    doc = json.loads(files["errors/zz-fixture/live-thing.json"])
    assert doc["links"]["json"] == "/errdex/api/errors/zz-fixture/live-thing.json"
    assert json.loads(files["openapi.json"])["servers"][0]["url"] == "/errdex/api"
    for bad in ("errdex/", "/errdex", "/../", "//evil.example/", "/a b/", "/x?y/"):
        with pytest.raises(ValueError):
            api_files(fixture_records(), base=bad)


@pytest.mark.parametrize("path", ["../x.json", "/etc/passwd", "a//b.json", "a/./b.json", "a/../../b.json", "a\\b.json", "", "a/\x00.json", "a/.hidden"])
def test_safe_relpath_refuses(path):
    with pytest.raises(ValueError):
        safe_relpath(path)


def test_safe_relpath_accepts_api_paths(records):
    for path in api_files(records):
        assert safe_relpath(path).as_posix() == path


@pytest.mark.parametrize("bad_id", ["../../escape", "a/../../b", "/abs", "a//b", "A/Upper", "a/b.json", "a/b\n", "a/b/c/d/e"])
def test_ids_that_would_escape_are_refused(bad_id, tmp_path):
    data = fixture_data()[2]
    # model_construct skips validation, as a record that slipped past the checks would.
    record = Record.model_construct(**{**Record.model_validate(data).__dict__, "id": bad_id})
    with pytest.raises(ValueError):
        write_api([record], tmp_path / "out")
    assert not (tmp_path / "out").exists() or not any((tmp_path / "out").iterdir())
    alias = Record.model_construct(**{**Record.model_validate(data).__dict__, "aliases": [bad_id]})
    with pytest.raises(ValueError):
        api_files([alias])


def test_write_refuses_a_symlink_out_of_dest(tmp_path):
    outside, dest = tmp_path / "outside", tmp_path / "dest"
    outside.mkdir()
    dest.mkdir()
    (dest / "errors").symlink_to(outside, target_is_directory=True)
    with pytest.raises(ValueError, match="outside"):
        write_api(fixture_records(), dest)
    assert list(outside.iterdir()) == []
    assert sorted(p.name for p in dest.iterdir()) == ["errors"]  # nothing was written before the refusal


def test_a_name_claimed_twice_is_refused():
    data = fixture_data()
    data[2]["aliases"] = ["0123456789abcdef"]  # already the live record's alias
    with pytest.raises(ValueError, match="claimed"):
        api_files([Record.model_validate(d) for d in data])


def test_a_successor_that_names_no_record_is_refused():
    data = fixture_data()
    data[1]["superseded_by"] = "zz-fixture/nowhere"
    with pytest.raises(ValueError, match="superseded"):
        api_files([Record.model_validate(d) for d in data])


def test_write_replaces_files_in_place(tmp_path):
    write_api(fixture_records(), tmp_path)
    (tmp_path / "stats.json").write_text("stale", encoding="utf-8")
    write_api(fixture_records(), tmp_path)
    assert (tmp_path / "stats.json").read_bytes() == api_files(fixture_records())["stats.json"]
    assert not list(tmp_path.rglob("*.tmp"))


@pytest.mark.parametrize("page", ["docs/en/api.md", "docs/zh/api.md"])
def test_docs_page_names_every_route_and_field(page, records):
    text = (ROOT / page).read_text(encoding="utf-8")
    for route in FIXED + ["errors/<id>.json", "errors/<alias>.json"]:
        assert f"/api/{route}" in text, f"{page} does not document /api/{route}"
    spec = json.loads(api_files(records)["openapi.json"])
    for name, schema in spec["components"]["schemas"].items():
        for field in schema.get("properties", {}):
            assert f"`{field}`" in text, f"{page} does not document {name}.{field}"
    assert "api_version" in text and "dataset_version" in text and "curl" in text


def test_record_file_snapshot(bless):
    """One record's API file, byte for byte; re-bless with ERRDEX_BLESS=1 after an intended change."""
    dataset = ROOT / "tests/fixtures/dataset"
    result = check([dataset], dataset)
    assert not result.failed
    body = api_files(result.records)["errors/demo/kv-cache-out-of-memory.json"]
    golden = ROOT / "tests/snapshots/api-errors-demo-kv-cache-out-of-memory.json"
    if bless or not golden.exists():
        golden.write_bytes(body)
        if not bless:
            pytest.fail(f"wrote the missing snapshot {golden.name}; check it and run again")
    assert body == golden.read_bytes(), f"{golden.name} differs; run with ERRDEX_BLESS=1 if intended"
