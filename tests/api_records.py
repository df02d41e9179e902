"""Small records for the API tests: each one exercises something the real data may not (yet) hold.

- `zz-fixture/live-thing`: fully translated, a source block, two aliases of different depths (one 4 parts deep).
- `zz-fixture/live-thing` also carries reports: six on a workaround (a bar), one on a solution (a count only).
- `zz-fixture/retired-thing`: superseded by the live record *through an alias*, half translated, dead ends without
  reports (no number at all), and text holding U+2028/U+2029 (line breaks to Python's splitlines, not to JSON; U+0085 is refused by REC007).
- `zz-fixture-flat`: a one-part id, nothing translated, severity `info`.
"""

from __future__ import annotations

from typing import Any

from generator.records.model import Record

SNIPPET = "def allocate(n):\n    if n > free():\n        raise FixtureError(f\"Fixture pool exhausted: {n} wanted\")\n    return take(n)\n"


def fixture_data() -> list[dict[str, Any]]:
    """The records as they would be written in YAML (no defaults filled in)."""
    live = {
        "id": "zz-fixture/live-thing",
        "aliases": ["0123456789abcdef", "legacy/zz/deep/name"],
        "repo": "example-org/fixture-engine",
        "domain": "llm",
        "category": "resource_error",
        "tags": ["fixture", "memory"],
        "error": {
            "message": "Fixture pool exhausted: {} wanted",
            "message_zh": "夹具池已耗尽：需要 {} 个",
            "regex": r"Fixture pool exhausted: (\d+) wanted",
            "exception_class": "FixtureError",
            "type": "exception",
            "severity": "critical",
            "examples": [{"text": "FixtureError: Fixture pool exhausted: 12 wanted", "seen": "https://example.org/issue/7"}],
            "counter_examples": ["Fixture pool resized"],
        },
        "explanation": "The fixture pool had fewer free slots than the request asked for.",
        "explanation_zh": "夹具池中的空闲槽位少于请求所需的数量。",
        "solutions": ["Ask for fewer slots", "Grow the pool"],
        "solutions_zh": ["请求更少的槽位", "扩大池的容量"],
        "workarounds": [
            {"action": "Retry after a pause", "action_zh": "稍等后重试", "sources": ["https://example.org/issue/1"]}
        ],
        "source": {
            "repo": "example-org/fixture-engine",
            "path": "engine/pool.py",
            "line": 12,
            "start_line": 10,
            "end_line": 13,
            "commit": "0123456789abcdef0123456789abcdef01234567",
            "snippet": SNIPPET,
        },
        # Six reports on the workaround (enough for a bar), one on the first solution (a count only).
        "reports": [
            {"fix": "/workarounds/0", "url": f"https://example.org/issue/{n}", "outcome": outcome, "date": "2025-12-0" + str(n)}
            for n, outcome in zip(range(1, 7), ["worked", "worked", "worked", "failed", "partial", "worked"])
        ] + [{"fix": "/solutions/0", "url": "https://example.org/issue/8", "outcome": "worked", "date": "2025-11-30", "version": "engine 1.2", "quote": "fewer slots did it"}],
        "provenance": {"verification_tier": "reproduced", "confirmation": "https://example.org/issue/9", "last_updated": "2026-01-02"},
    }
    retired = {
        "id": "zz-fixture/retired-thing",
        "repo": "example-org/fixture-engine",
        "domain": "llm",
        "category": "resource_error",
        "error": {
            "message": "Old pool empty",
            "message_zh": "旧池已空",
            "regex": "Old pool empty",
            "type": "console",
            "severity": "warning",
            "examples": [{"text": "WARN Old pool empty", "constructed": True}],
        },
        "explanation": "Replaced by the live record.\u2028A second paragraph\u2029and a third.",
        "explanation_zh": "已被新记录取代。",
        "solutions": ["Read the successor"],
        "dead_ends": [
            {"action": "Restart everything", "why_fails": "The pool is the same size after a restart"},
            {"action": "Clear the cache", "action_zh": "清空缓存", "why_fails": "Nothing was cached", "why_fails_zh": "没有任何缓存"},
        ],
        "provenance": {"verification_tier": "community", "last_updated": "2025-12-31"},
        "superseded_by": "0123456789abcdef",
    }
    flat = {
        "id": "zz-fixture-flat",
        "repo": "example-org/other",
        "domain": "llm",
        "category": "config_error",
        "error": {"message": "Flat config <b>ignored</b> {{ 7*7 }}", "regex": "Flat config", "type": "console", "severity": "info", "examples": [{"text": "Flat config <b>ignored</b> {{ 7*7 }}", "constructed": True}]},
        "explanation": "A one-part id with no translation at all.",
        "solutions": ["Nothing to do"],
        "provenance": {"verification_tier": "ai_generated", "last_updated": "2026-02-03"},
    }
    return [live, retired, flat]


def fixture_records() -> list[Record]:
    return [Record.model_validate(d) for d in fixture_data()]


def assert_holds(served, written, where=""):
    """`served` has every value of `written` (the YAML as loaded); it may add only the model's defaults."""
    if isinstance(written, dict):
        assert isinstance(served, dict), where
        for key, value in written.items():
            assert key in served, f"{where}/{key} is missing"
            assert_holds(served[key], value, f"{where}/{key}")
    elif isinstance(written, list):
        assert isinstance(served, list) and len(served) == len(written), where
        for i, (a, b) in enumerate(zip(served, written)):
            assert_holds(a, b, f"{where}/{i}")
    else:
        assert served == written and type(served) in (type(written), float), where
