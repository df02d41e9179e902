"""generator.match.portable.js_source_fast: the JavaScript form of the catalog's pattern shapes without a parse, the same
as `analyse` gives, over the repository's whole catalog and over shapes it must leave to `analyse`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from generator.match.portable import analyse, js_source_fast

CATALOG = Path(__file__).resolve().parent.parent / "data" / "catalog"


@pytest.mark.data
def test_the_whole_catalog_takes_the_fast_way_to_the_same_answer():
    patterns = [json.loads(line)["pattern"] for path in sorted(CATALOG.glob("*.jsonl")) for line in path.open(encoding="utf-8")]
    if not patterns:
        pytest.skip("no catalog harvested")
    slow = [p for p in patterns if js_source_fast(p) is None]
    assert len(slow) <= len(patterns) // 100, slow[:5]
    wrong = [p for p in patterns if (fast := js_source_fast(p)) is not None and fast != analyse(p, backtracking=False).js_source]
    assert wrong == []


@pytest.mark.parametrize("pattern", [
    r"Removing bias \(([^)\n]+?)\) from (.+?)\.", r"Could not parse ([^,\n]+?): (.+)", r"a/b \{x\} \|", "tab\\there",
    "ctl .x", r"ends ([^\]\n]+?)\]", r"dash ([^\-\n]+?)-", "caf\u00e9 \u2028 x",
])
def test_shapes_the_harvest_writes(pattern):
    fast = js_source_fast(pattern)
    assert fast is not None and fast == analyse(pattern).js_source


@pytest.mark.parametrize("pattern", [r"(?i)error", r"^start", r"end$", r"\d+ items", r"a{2}", r"(a|b)", r"x*", r"[abc]", "", r"\x41"])
def test_other_shapes_are_left_to_analyse(pattern):
    assert js_source_fast(pattern) is None
