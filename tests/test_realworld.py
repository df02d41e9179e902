"""The generalisation benchmark (bench/realworld/dev.jsonl, test.jsonl; bench.generalise): its test part is frozen,
split from the dev part by thread as its README says, and no record is written from it: no record quotes one of
its lines in an example (beyond the overlaps listed when it was split) nor cites one of its threads."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "bench" / "realworld"
# The test part as split (2026-12-02). A change to it is a new benchmark: split again, record the new hash here
# and say so in bench/realworld/README.md.
TEST_SHA256 = "a5f9e9124da768fd303c22b7bdb2f02d6df02be3a0d366c8f063ce3b4a2644e3"


def _part(name: str) -> list[dict]:
    return [json.loads(line) for line in (BENCH / f"{name}.jsonl").read_text(encoding="utf-8").splitlines()]


def _thread(url: str) -> str:
    return url.split("#", 1)[0].rstrip("/")


def test_the_test_part_is_frozen():
    assert hashlib.sha256((BENCH / "test.jsonl").read_bytes()).hexdigest() == TEST_SHA256


def test_each_thread_is_in_the_part_its_hash_names_and_in_one_part_only():
    parts = {name: _part(name) for name in ("dev", "test")}
    for name, cases in parts.items():
        for case in cases:
            odd = int(hashlib.sha256(case["url"].encode("utf-8")).hexdigest()[:8], 16) % 2
            assert ("test" if odd else "dev") == name, case["id"]
            assert case["key"] in case["line"] and "\n" not in case["line"], case["id"]
    assert not {_thread(c["url"]) for c in parts["dev"]} & {_thread(c["url"]) for c in parts["test"]}
    fitted = {_thread(json.loads(line)["url"]) for line in (BENCH / "cases.jsonl").read_text(encoding="utf-8").splitlines()}
    assert not fitted & {_thread(c["url"]) for cases in parts.values() for c in cases}
    ids = [c["id"] for cases in parts.values() for c in cases]
    assert len(ids) == len(set(ids))


def _generic(case: dict) -> bool:
    """A line that is its key and nothing else with a word character ("AssertionError", "  × python setup.py
    bdist_wheel did not run successfully."): not one user's paste, so an example seen elsewhere may hold it."""
    return re.search(r"\w", case["line"].replace(case["key"], "", 1)) is None


@pytest.mark.data
def test_no_record_is_written_from_the_test_part():
    test = _part("test")
    threads = {_thread(c["url"]) for c in test}
    known = {tuple(pair) for pair in json.loads((BENCH / "overlap.json").read_text(encoding="utf-8"))}
    quoted, cited = set(), []
    for path in sorted((ROOT / "data" / "errors").rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        record = yaml.safe_load(text)
        examples = [e.get("text", "") if isinstance(e, dict) else str(e) for e in (record.get("error") or {}).get("examples") or []]
        for case in test:
            line = case["line"].strip()
            if _generic(case):
                continue  # the message's fixed text alone: every report of the error reads so (its thread still counts)
            if any(line in example for example in examples):
                quoted.add((record["id"], case["id"]))
        cited += [(record["id"], u) for u in re.findall(r"https://github\.com/[^\s'\"#)]+", text) if _thread(u.rstrip(".,")) in threads]
    assert quoted <= known, sorted(quoted - known)
    assert cited == []
