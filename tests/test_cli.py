"""The CLI called as main([...]): exit codes and what it prints."""

from __future__ import annotations

import json
from pathlib import Path

from generator.cli import main

FIXTURES = Path(__file__).parent / "fixtures"
MINIMAL = FIXTURES / "valid/demo/minimal.yaml"


def _broken_copy(tmp_path: Path) -> Path:
    """The minimal record with a misspelled key, a wrong type and a broken regex."""
    text = MINIMAL.read_text(encoding="utf-8")
    text = text.replace("solutions:\n", "soluton:\n  - typo\nsolutions:\n")
    text = text.replace("  line: 3\n", "  line: three\n")
    text = text.replace(r"regex: 'Failed to allocate (\d+) blocks for request (\S+)'", r"regex: 'Failed to allocate (\d+ blocks'")
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def test_three_problems_three_findings_one_run(tmp_path, capsys) -> None:
    path = _broken_copy(tmp_path)
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    findings = [line for line in out if ": error[" in line]
    assert len(findings) == 3
    assert findings[0].endswith("error[RGX001] /error/regex: the pattern does not compile: missing ): Failed to allocate (\\d+ blocks")
    assert ":10:10: error[RGX001]" in findings[0]
    assert ":20:1: error[SCH001] /soluton: unknown key 'soluton'" in findings[1]
    assert ':29:9: error[SCH003] /source/line: "three" is not of type "integer"' in findings[2]
    hints = [line for line in out if line.startswith("  hint: ")]
    assert len(hints) == 3
    assert out[-1] == "1 record, 3 errors, 0 warnings"


def test_clean_data_exits_zero(capsys) -> None:
    assert main(["validate", "--strict", "--root", str(FIXTURES / "valid"), str(FIXTURES / "valid")]) == 0
    assert capsys.readouterr().out == "1 record, 0 errors, 0 warnings\n"


def test_warnings_pass_unless_strict(capsys) -> None:
    path = FIXTURES / "invalid/TRN001-missing-translation.yaml"
    assert main(["validate", str(path)]) == 0
    assert "warning[TRN001]" in capsys.readouterr().out
    assert main(["validate", "--strict", str(path)]) == 1


def test_json_format(tmp_path, capsys) -> None:
    assert main(["validate", "--format", "json", str(_broken_copy(tmp_path))]) == 1
    body = json.loads(capsys.readouterr().out)
    assert (body["records"], body["errors"], body["warnings"]) == (1, 3, 0)
    first = body["findings"][0]
    assert first["code"] == "RGX001" and first["name"] == "regex-invalid"
    assert (first["line"], first["col"], first["pointer"]) == (10, 10, "/error/regex")
    assert set(first) == {"path", "line", "col", "code", "name", "pointer", "message", "severity", "hint"}


def test_github_format_annotates_lines(tmp_path, capsys) -> None:
    assert main(["validate", "--format", "github", str(_broken_copy(tmp_path))]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("::error file=")
    assert ",line=10,col=10,title=RGX001 regex-invalid::/error/regex: " in lines[0]
    assert "%0Ahint: " in lines[0]
    assert len([line for line in lines if line.startswith("::error ")]) == 3


def test_finding_text_cannot_forge_lines(tmp_path, capsys) -> None:
    text = MINIMAL.read_text(encoding="utf-8").replace("solutions:\n", '"evil\\n::error file=x::forged": 1\nsolutions:\n')
    (tmp_path / "r.yaml").write_text(text, encoding="utf-8")
    main(["validate", "--format", "github", str(tmp_path / "r.yaml")])
    out = capsys.readouterr().out
    assert "\n::error file=x::forged" not in out
    assert len([line for line in out.splitlines() if line.startswith("::error")]) == 1


def test_usage_errors_exit_two(capsys) -> None:
    assert main(["validate", "--format", "xml"]) == 2
    assert main(["no-such-command"]) == 2
    assert main([]) == 2


def test_schema_command_prints_the_committed_schema(capsys) -> None:
    assert main(["schema"]) == 0
    assert capsys.readouterr().out == Path("schema/error.schema.json").read_text(encoding="utf-8")


def test_a_path_that_does_not_exist_is_a_usage_error_not_a_traceback(tmp_path, capsys) -> None:
    for missing in ("nope", "nope/", "missing.yaml"):
        assert main(["validate", str(tmp_path / missing)]) == 2
        captured = capsys.readouterr()
        assert "no such file or folder" in captured.err and "YML001" not in captured.out + captured.err


def test_one_record_of_a_dataset_is_checked_across_the_whole_dataset(tmp_path, capsys) -> None:
    import shutil

    root = tmp_path / "errors"
    shutil.copytree(FIXTURES / "dataset", root)
    one = root / "demo" / "request-timeout.yaml"
    # its references name other records of the dataset: they resolve (no XRC002), as they do for the whole folder
    assert main(["validate", str(one), "--root", str(root)]) == 0
    assert "0 errors" in capsys.readouterr().out
    # a new record that takes an id another record already has is refused even when checked alone
    twin = root / "demo" / "twin.yaml"
    twin.write_text(one.read_text(encoding="utf-8").replace("id: demo/request-timeout", "id: demo/twin").replace("- demo-timeout-legacy", "- demo/kv-cache-out-of-memory"), encoding="utf-8")
    assert main(["validate", str(twin), "--root", str(root)]) == 1
    out = capsys.readouterr().out
    assert "XRC001" in out and "twin.yaml" in out and "request-timeout.yaml:" not in out  # findings of the file asked about only


def test_the_errdex_process_ends_once_its_answer_is_written(tmp_path) -> None:
    """`python -m generator match` (generator.cli.entry) ends its process in generator.cli.end: the whole answer
    is on stdout, flushed, with the command's exit status; called in process (as here), `end` returns instead."""
    import json
    import os
    import subprocess
    import sys

    from generator import cli

    env = {**os.environ, "ERRDEX_CACHE": str(tmp_path / "cache")}
    found, missing = tmp_path / "found.log", tmp_path / "missing.log"
    found.write_text("CacheOOMError: Cannot allocate 12 KV cache blocks: out of GPU memory\n", encoding="utf-8")
    missing.write_text("all is well\n", encoding="utf-8")
    codes = []
    for log in (found, missing):
        proc = subprocess.run([sys.executable, "-m", "generator", "match", "--data", str(FIXTURES / "dataset"), "--format", "json",
                               str(log)], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
        body = json.loads(proc.stdout)
        codes.append((proc.returncode, body["found"] > 0, proc.stderr))
    assert codes == [(0, True, ""), (1, False, "")]
    assert cli.end(3) == 3 and not cli._AT_ONCE
