"""Every check code has a failing fixture that yields exactly that code, at the line and column it declares."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.codes import CODES
from generator.records.load import MAX_BYTES
from generator.checks.pipeline import check

FIXTURES = Path(__file__).parent / "fixtures"
INVALID = FIXTURES / "invalid"
EXPECT = re.compile(rb"# expect: ([A-Z]{3}\d{3}) (\d+):(\d+)")


def _fixture_for(entry: Path) -> tuple[Path, tuple[str, int, int]]:
    first = sorted(entry.rglob("*.yaml"))[0] if entry.is_dir() else entry
    match = EXPECT.search(first.read_bytes()[:200])
    assert match, f"{first} lacks its '# expect: CODE line:col' header"
    return first, (match[1].decode(), int(match[2]), int(match[3]))


INVALID_ENTRIES = sorted(INVALID.iterdir())


@pytest.mark.parametrize("entry", INVALID_ENTRIES, ids=lambda p: p.name)
def test_invalid_fixture_yields_exactly_its_code(entry: Path) -> None:
    first, (code, line, col) = _fixture_for(entry)
    assert entry.name.startswith(code)
    root = entry if code == "REC001" else None  # the id/path rule needs to know the records root
    result = check([entry], root)
    assert [f.code for f in result.findings] == [code]
    finding = result.findings[0]
    assert (finding.line, finding.col) == (line, col)
    assert finding.path.endswith(first.name)
    assert finding.hint
    # An error fails any run; a warning passes a plain run and fails a strict one.
    assert result.failed is (finding.severity == "error")
    if finding.severity != "error":
        assert check([entry], root, strict=True).failed


def test_oversized_file_is_refused_before_parsing(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    big.write_text("id: demo/big\nexplanation: " + "x" * MAX_BYTES + "\n")
    result = check([big])
    assert [(f.code, f.line) for f in result.findings] == [("YML003", 1)]


# YML003 needs a file too large to commit; SRC1xx compare with upstream files (tests/test_verify.py).
GENERATED_IN_TESTS = {"YML003", "YML011", "SRC101", "SRC102", "SRC103", "SRC104", "SRC105", "SRC106", "XRC005",
                      "VER001", "VER002"}  # XRC005: tests/test_history.py; YML011: tests/test_security.py; VER: tests/test_versions.py (with a catalog)
# The catalog's codes are checked on catalog files, not records: tests/fixtures/catalog/invalid (tests/test_catalog_checks.py)
# and, for CAT101/CAT102, re-extraction from a cache (tests/test_harvest.py).
CATALOG_CODES = {code for code in CODES if code.startswith("CAT")}


def test_every_code_has_a_fixture() -> None:
    covered = {p.name.split("-")[0] for p in INVALID_ENTRIES} | GENERATED_IN_TESTS | CATALOG_CODES
    assert covered == set(CODES)


def test_valid_fixtures_pass_strict() -> None:
    result = check([FIXTURES / "valid"], FIXTURES / "valid", strict=True)
    assert result.findings == []
    assert [r.id for r in result.records] == ["demo/minimal"]


def test_all_findings_of_all_files_in_one_run() -> None:
    result = check([INVALID])
    assert {f.code for f in result.findings} >= set(CODES) - GENERATED_IN_TESTS - CATALOG_CODES - {"REC001"}
    assert result.records == []  # models are built only from data that passed


def test_yaml_11_surprises_become_schema_findings(tmp_path: Path) -> None:
    text = (FIXTURES / "valid/demo/minimal.yaml").read_text(encoding="utf-8")
    text = text.replace("tags: [kv-cache]", "tags: [kv-cache]\nversions:\n  - version: 0.10\n    introduced: yes")
    (tmp_path / "r.yaml").write_text(text, encoding="utf-8")
    findings = check([tmp_path / "r.yaml"]).findings
    assert [(f.code, f.pointer, f.line) for f in findings] == [
        ("SCH003", "/versions/0/version", 8),
        ("SCH003", "/versions/0/introduced", 9),
    ]
    assert "quotes" in findings[0].hint and "0.1" in findings[0].hint


def test_parallel_and_serial_checks_agree(monkeypatch) -> None:
    import generator.checks.pipeline as pipeline

    serial = check([INVALID])
    monkeypatch.setattr(pipeline, "PARALLEL_FROM", 2)
    parallel = pipeline.check([INVALID])
    assert parallel.findings == serial.findings
    assert [r.path for r in parallel.raws] == [r.path for r in serial.raws]


def test_one_error_quoted_inside_another_is_not_a_duplicate(tmp_path: Path) -> None:
    """XRC007 needs both patterns to find the other's example: a wrapper that quotes the error is another error."""
    text = (FIXTURES / "valid/demo/minimal.yaml").read_text(encoding="utf-8")
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo/minimal.yaml").write_text(text, encoding="utf-8")
    wrapper = (
        text.replace("id: demo/minimal", "id: demo/worker-failed")
        .replace("regex: 'Failed to allocate (\\d+) blocks for request (\\S+)'", "regex: 'Worker failed with error ([^,]+)'")
        .replace("text: 'ValueError: Failed to allocate 12 blocks", "text: 'Worker failed with error Failed to allocate 12 blocks")
        .replace("  counter_examples:\n    - Failed to allocate memory\n", "")
    )
    (tmp_path / "demo/worker-failed.yaml").write_text(wrapper, encoding="utf-8")
    assert [f.code for f in check([tmp_path], tmp_path, strict=True).findings] == []
    # made the same error both ways, the pair is found, at the first file, naming the second
    (tmp_path / "demo/worker-failed.yaml").write_text(text.replace("id: demo/minimal", "id: demo/worker-failed"), encoding="utf-8")
    findings = check([tmp_path], tmp_path).findings
    assert [(f.code, Path(f.path).name) for f in findings] == [("XRC007", "minimal.yaml")] and "worker-failed.yaml" in findings[0].message


def test_two_records_for_one_error_are_found_among_many_as_by_every_pair(tmp_path: Path) -> None:
    """XRC007 over 40 records: some patterns find each other's examples (duplicates), some one way only (one error
    quoted in another), some are linked; the findings are exactly those a look at every pair gives."""
    import random

    import re2

    text = (FIXTURES / "valid/demo/minimal.yaml").read_text(encoding="utf-8")
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]
    rng = random.Random(7)
    (tmp_path / "demo").mkdir()
    records = []
    for n in range(40):
        word, other = rng.choice(words), rng.choice(words)
        regex = f"Failed to {word} (\\d+) blocks"  # some share a word: each finds the other's example
        if n % 5 == 0:  # some fold case: found through their case-folded literals
            regex = f"(?i)failed TO {word.upper()} (\\d+) blocks"
        example = f"ValueError: Failed to {word} 12 blocks, after Failed to {other} 3 blocks"  # and some quote another
        body = (text.replace("id: demo/minimal", f"id: demo/r{n:02d}")
                .replace("regex: 'Failed to allocate (\\d+) blocks for request (\\S+)'", f"regex: '{regex}'")
                .replace("text: 'ValueError: Failed to allocate 12 blocks for request req-7'", f"text: '{example}'")
                .replace("  counter_examples:\n    - Failed to allocate memory\n", ""))
        if n % 9 == 0 and n:  # linked to the record before it: never a duplicate of it
            body = body.replace("explanation:", f"related:\n  confused_with: [demo/r{n - 1:02d}]\nexplanation:")
        (tmp_path / f"demo/r{n:02d}.yaml").write_text(body, encoding="utf-8")
        records.append((f"demo/r{n:02d}", regex, example, f"demo/r{n - 1:02d}" if n % 9 == 0 and n else None))
    found = sorted((Path(f.path).stem, f.message) for f in check([tmp_path], tmp_path).findings if f.code == "XRC007")
    expected = []
    for a, (id_a, re_a, ex_a, link_a) in enumerate(records):
        for id_b, re_b, ex_b, link_b in records[a + 1:]:
            if link_a == id_b or link_b == id_a:
                continue
            if re2.search(re_b, ex_a) and re2.search(re_a, ex_b):
                expected.append(id_a.split("/")[1])
    assert len(expected) > 20 and [stem for stem, _ in found] == sorted(expected)
