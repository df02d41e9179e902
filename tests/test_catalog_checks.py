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
