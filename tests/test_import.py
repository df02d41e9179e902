"""errdex import: the two foreign shapes become errdex records, losslessly and deterministically."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from generator.cli import main

SEEDS = Path(__file__).parent.parent.parent / "shared/seeds"
DATA = Path(__file__).parent.parent / "data/errors"
SEED_A, SEED_B = SEEDS / "000_2bc9ac12314c2b20.txt", SEEDS / "003_85f3807c99888813.txt"

pytestmark = pytest.mark.skipif(not SEED_A.exists(), reason="shared/seeds is not beside this checkout")


def _load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _at(data: dict, pointer: str):
    for part in pointer.strip("/").split("/"):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def test_importing_the_seeds_reproduces_our_records(tmp_path, capsys) -> None:
    assert main(["import", "--root", str(tmp_path), str(SEED_A), str(SEED_B)]) == 0
    out = capsys.readouterr().out
    assert "0 errors" in out and "warning[TRN001]" in out and "warning[RGX004]" in out  # what the sources lack
    for record_id, same in {
        "transformers/failed-to-allocate-blocks-for-request": [
            "/aliases", "/repo", "/domain", "/tags", "/error/message", "/error/exception_class", "/error/type",
            "/error/severity", "/triggers", "/common_situations", "/handling", "/prevention", "/source/repo",
            "/source/path", "/source/line", "/source/start_line", "/source/end_line", "/source/commit",
            "/source/snippet", "/provenance/verification_tier", "/provenance/analyzed_commit", "/provenance/analyzed_at",
            "/provenance/origin/dataset", "/provenance/origin/slug", "/provenance/origin/schema_version",
            "/provenance/origin/dataset_version",
        ],
        "vllm/block-manager-out-of-memory": [
            "/aliases", "/repo", "/domain", "/category", "/root_cause", "/root_cause_zh", "/root_cause_type", "/versions",
            "/official_docs", "/resolvable", "/provenance/origin/estimates",
            "/provenance/origin/first_seen", "/provenance/origin/last_confirmed", "/provenance/origin/dataset", "/provenance/origin/id",
            "/provenance/origin/locale", "/provenance/origin/signature", "/provenance/origin/signature_zh",
            "/provenance/origin/regex", "/provenance/origin/verification_tier",
        ],
    }.items():
        imported, ours = _load(tmp_path / f"{record_id}.yaml"), _load(DATA / f"{record_id}.yaml")
        for pointer in same:
            assert _at(imported, pointer) == _at(ours, pointer), (record_id, pointer)
    imported = _load(tmp_path / "transformers/failed-to-allocate-blocks-for-request.yaml")
    seed = json.loads(SEED_A.read_text(encoding="utf-8"))["record"]
    assert imported["solutions"] == seed["solutions"] and imported["explanation"] == seed["documentation"]
    assert imported["error"]["regex"] == seed["messagePattern"]


def test_shape_a_list_and_ndjson(tmp_path, capsys) -> None:
    envelope = json.loads(SEED_A.read_text(encoding="utf-8"))
    second = json.loads(json.dumps(envelope["record"]))
    second.update(id="0000000000000001", slug="another-error", errorMessage="Another error {}", messagePattern="Another error (.+)")
    listing = tmp_path / "list.json"
    listing.write_text(json.dumps([envelope, second]), encoding="utf-8")
    ndjson = tmp_path / "records.ndjson"
    ndjson.write_text(json.dumps(envelope) + "\n\n" + json.dumps(second) + "\n", encoding="utf-8")
    for source, root in ((listing, tmp_path / "a"), (ndjson, tmp_path / "b")):
        assert main(["import", "--root", str(root), str(source)]) == 0
        assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*.yaml")) == [
            "transformers/another-error.yaml", "transformers/failed-to-allocate-blocks-for-request.yaml"]
    capsys.readouterr()
    for path in (tmp_path / "a").rglob("*.yaml"):
        assert path.read_bytes() == (tmp_path / "b" / path.relative_to(tmp_path / "a")).read_bytes()


def test_unknown_field_is_reported_by_name(tmp_path, capsys) -> None:
    seed = json.loads(SEED_B.read_text(encoding="utf-8"))
    seed["popularity"] = 7
    path = tmp_path / "b.json"
    path.write_text(json.dumps(seed), encoding="utf-8")
    assert main(["import", "--root", str(tmp_path / "d"), str(path)]) == 0
    assert f"note: {path}: field 'popularity' has no place in errdex records and was not imported" in capsys.readouterr().out


def test_malformed_file_errors_cleanly_and_writes_nothing(tmp_path, capsys) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"record": {"repo": "a/b"', encoding="utf-8")
    wrong = tmp_path / "wrong.json"
    wrong.write_text('[{"signature": "x"}]', encoding="utf-8")
    odd = tmp_path / "odd.json"
    odd.write_text('[{"errorMessage": "m", "repo": "a/b"}, 3]', encoding="utf-8")
    assert main(["import", "--root", str(tmp_path / "d"), str(SEED_A), str(bad), str(wrong), str(odd)]) == 1
    err = capsys.readouterr().err
    assert f"errdex import: {bad}: not JSON" in err and "line 1" in err
    assert f"errdex import: {wrong} entry 0: a deadends record needs 'id' and 'signature'" in err
    assert f"errdex import: {odd} entry 1: expected a JSON object, found int" in err
    assert "nothing was written" in err
    assert not (tmp_path / "d").exists()


def test_reimport_needs_force(tmp_path, capsys) -> None:
    assert main(["import", "--root", str(tmp_path), str(SEED_A)]) == 0
    path = tmp_path / "transformers/failed-to-allocate-blocks-for-request.yaml"
    path.write_text(path.read_text(encoding="utf-8") + "# local edit\n", encoding="utf-8")
    assert main(["import", "--root", str(tmp_path), str(SEED_A)]) == 1
    assert "already exists (use --force to overwrite it)" in capsys.readouterr().err
    assert path.read_text(encoding="utf-8").endswith("# local edit\n")
    assert main(["import", "--root", str(tmp_path), "--force", str(SEED_A)]) == 0
    assert not path.read_text(encoding="utf-8").endswith("# local edit\n")
