"""Docs stay true to the code: every check code is explained in CONTRIBUTING, the template shown there is the real one."""

from __future__ import annotations

from pathlib import Path

from generator.codes import CODES
from generator.records.new import template_text

ROOT = Path(__file__).parent.parent
CONTRIBUTING = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")


def test_every_check_code_is_in_contributing() -> None:
    for code in CODES.values():
        assert f"| {code.code} | {code.name} | {code.severity} | {code.hint} |" in CONTRIBUTING, code.code


def test_contributing_shows_the_real_template() -> None:
    record_id = "vllm/kv-cache-out-of-memory"
    assert template_text(record_id, f"data/errors/{record_id}.yaml") in CONTRIBUTING


def test_readme_starts_with_serve_and_test() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    commands = [line.split("#")[0].strip() for line in readme.split("```sh", 1)[1].split("```", 1)[0].strip().splitlines()]
    assert commands[:2] == ["make serve", "make test"]
