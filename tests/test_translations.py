"""Translation freshness: a changed English text makes exactly its Chinese twins stale, until re-marked."""

from __future__ import annotations

import shutil
from pathlib import Path

from generator.cli import main
from generator.checks.pipeline import check

MINIMAL = Path(__file__).parent / "fixtures/valid/demo/minimal.yaml"


def test_editing_english_warns_on_the_dependent_zh_fields_only(tmp_path, capsys) -> None:
    path = tmp_path / "demo/minimal.yaml"
    path.parent.mkdir()
    shutil.copy(MINIMAL, path)
    assert main(["mark-translated", str(path)]) == 0
    marked = path.read_text(encoding="utf-8")
    assert marked.startswith(MINIMAL.read_text(encoding="utf-8"))  # the rest of the file is untouched
    assert "  /explanation: '" in marked and "  /solutions/0: '" in marked
    assert check([tmp_path], tmp_path, strict=True).findings == []

    path.write_text(marked.replace("  - Lower the number of concurrent requests.", "  - Lower --max-num-seqs."), encoding="utf-8")
    findings = check([tmp_path], tmp_path).findings
    assert [(f.code, f.pointer, f.line) for f in findings] == [("TRN005", "/solutions_zh/0", 23)]
    assert "translated from an older English text" in findings[0].message

    assert main(["mark-translated", str(tmp_path)]) == 0
    assert check([tmp_path], tmp_path, strict=True).findings == []
    assert path.read_text(encoding="utf-8").count("zh_fingerprints:") == 1


def test_records_without_marks_are_not_judged(tmp_path) -> None:
    assert check([MINIMAL.parent], MINIMAL.parent.parent, strict=True).findings == []
