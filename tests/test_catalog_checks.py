"""The catalog's check codes (CAT): one failing catalog folder per code, and `errdex validate` runs them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.checks.catalog import check_catalog
from generator.cli import main
from generator.codes import CODES

CATALOG = Path(__file__).parent / "fixtures" / "catalog"
INVALID = sorted((CATALOG / "invalid").iterdir())
RE_EXTRACTED = {"CAT101", "CAT102"}  # need a cache of release sources: tests/test_harvest.py


@pytest.mark.parametrize("folder", INVALID, ids=lambda p: p.name)
def test_invalid_catalog_yields_exactly_its_code(folder: Path) -> None:
    code, line, col = re.fullmatch(r"(CAT\d{3}) (\d+):(\d+)\n", (folder / "expect.txt").read_text()).groups()
    assert folder.name.startswith(code)
    findings = check_catalog(folder)
    assert [f.code for f in findings] == [code]
    assert (findings[0].line, findings[0].col) == (int(line), int(col))
    assert findings[0].hint and findings[0].path.endswith("demo.jsonl")


def test_every_catalog_code_has_a_fixture() -> None:
    covered = {p.name.split("-")[0] for p in INVALID} | RE_EXTRACTED
    assert covered == {c for c in CODES if c.startswith("CAT")}


def test_the_valid_catalog_passes() -> None:
    assert check_catalog(CATALOG / "valid") == []


def test_validate_checks_catalog_paths(capsys) -> None:
    assert main(["validate", str(CATALOG / "valid")]) == 0
    assert main(["validate", str(CATALOG / "invalid" / "CAT003-catalog-duplicate-id")]) == 1
    assert "CAT003" in capsys.readouterr().out
    assert main(["validate", str(CATALOG / "invalid" / "CAT009-catalog-pattern-misses-template" / "demo.jsonl")]) == 1
    assert "CAT009" in capsys.readouterr().out


def test_the_repository_catalog_is_valid() -> None:
    root = Path(__file__).parent.parent / "data" / "catalog"
    if not (root / "releases.json").is_file():
        pytest.skip("no catalog harvested yet")
    assert check_catalog(root) == []


def test_a_sites_lines_must_run_within_its_range(tmp_path) -> None:
    import json
    import shutil

    shutil.copytree(CATALOG / "valid", tmp_path / "c")
    lines = (tmp_path / "c" / "demo.jsonl").read_text().splitlines()
    entry = json.loads(lines[0])
    site = entry["sites"][0]
    releases = json.loads((tmp_path / "c" / "releases.json").read_text())["demo"]
    versions = [r["version"] for r in releases]
    site["from"], site["to"] = versions[0], versions[-1]
    entry["releases"], entry["first"], entry["last"] = [[versions[0], versions[-1]]], versions[0], versions[-1]

    def check(pairs) -> list[str]:
        site["lines"] = pairs
        lines[0] = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        (tmp_path / "c" / "demo.jsonl").write_text("\n".join(lines) + "\n")
        return [f"{f.code} {f.pointer}" for f in check_catalog(tmp_path / "c")]

    assert check([[versions[0], site["line"] + 5], [versions[1], site["line"]]]) == []
    assert check([[versions[1], site["line"] + 5], [versions[1], site["line"]]]) == ["CAT008 /sites/0/lines"]  # not at `from`
    assert check([[versions[0], site["line"] + 5], [versions[1], site["line"] + 6]]) == ["CAT008 /sites/0/lines"]  # last is not `line`
    assert check([[versions[0], site["line"]], [versions[1], site["line"]]]) == ["CAT008 /sites/0/lines"]  # no change of line
