"""Benchmark: do the answers generalise? (run on demand: `.venv/bin/python -m bench.generalise [--part dev|test|both]`).

The lines are error lines users pasted into public issue threads that no record was written from
(bench/realworld/dev.jsonl and test.jsonl; bench/realworld/README.md says how they were collected and split). Each
carries its answer key: the fixed text of the message, as the raising code writes it. For each line the matcher
reads the context posted before it and the line, as `errdex match` would (generator.bundle.answers.match_items,
the records and the catalog), and a line is answered when one of the top 3 results on the error line itself
holds its key: the key is in the text the result matched, or in one run of fixed text of the result's message
(a record's message, a catalog entry's template). A match that is not about the key does not count.

Three figures per project: by the curated records alone (`errdex match --no-catalog`), with the catalog, and with
the catalog and the version-drift answers `errdex match` gives first (generator.bundle.drift: a line is answered
by one when it has a candidate and the drift shape's match on the line holds the key). The
dev part is the one records are chosen and written from; the test part is frozen (tests/test_realworld.py holds its
hash) and is read only to measure: report both, side by side. Output is deterministic.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PARTS = {"dev": ROOT / "bench/realworld/dev.jsonl", "test": ROOT / "bench/realworld/test.jsonl"}
FIELDS = {"id", "project", "url", "year", "line", "context", "key", "short_key", "exception", "raised_by"}


def load(part: str) -> list[dict]:
    out = []
    for n, raw in enumerate(PARTS[part].read_text(encoding="utf-8").splitlines(), 1):
        case = json.loads(raw)
        missing = FIELDS - case.keys()
        if missing or case["key"] not in case["line"] or "\n" in case["line"]:
            raise SystemExit(f"{PARTS[part]}:{n}: a case needs {sorted(FIELDS)}, its key inside its one line")
        out.append(case)
    return out


def paste(case: dict) -> tuple[bytes, int]:
    """The text the matcher reads, and the 1-based number of the error line in it."""
    context = case["context"].rstrip("\n")
    text = case["line"] if not context else context + "\n" + case["line"]
    return text.encode("utf-8"), context.count("\n") + 2 if context else 1


def holds(k, item: dict, key: str, templates: dict) -> bool:
    if key in item["match"]:
        return True
    if item["id"] not in templates:
        templates[item["id"]] = _message(k, item)
    return any(key in run for run in templates[item["id"]].split("{}"))


def _message(k, item: dict) -> str:
    if item["type"] == "record":
        return k.api.document(item["id"])["record"]["error"]["message"]
    slug = item["id"].split("/", 1)[0]
    entry = k.catalog.projects[slug].entry(item["id"])
    return entry.data["template"] if entry is not None else ""


def drift_holds(k, text: str, line: int, key: str) -> str | None:
    """The shape of a drift answer on `line` whose match there holds `key`, or None."""
    from generator.bundle.answers import drift_items
    from generator.match.drift import asks

    answered = {item["line"] for item in drift_items(k, text, {}) if item["candidates"]}
    held = next((a for a in asks(text) if a.line == line and line in answered and key in a.text), None)
    return f"drift:{held.shape}" if held else None


def evaluate(k, cases: list[dict], top: int = 3) -> list[dict]:
    from generator.bundle.answers import match_items

    templates: dict[str, str] = {}
    out = []
    for case in cases:
        data, line = paste(case)
        items, _, _ = match_items(k, io.BytesIO(data), {})
        on_line = [i for i in items if i["line"] == line][:top]
        hit = next((i["id"] for i in on_line if holds(k, i, case["key"], templates)), None)
        drift = drift_holds(k, data.decode("utf-8"), line, case["key"]) if k.symbols is not None else None
        out.append({"id": case["id"], "project": case["project"], "hit": hit is not None, "answer": hit,
                    "drift": hit is not None or drift is not None, "top": [i["id"] for i in on_line]})
    return out


def table(outcomes: dict[str, list[dict]]) -> dict:
    """Per project: lines, answered by the records, answered with the catalog."""
    rows: dict[str, dict[str, int]] = defaultdict(lambda: {"lines": 0, "records": 0, "catalog": 0, "drift": 0})
    for (records, both) in zip(outcomes["records"], outcomes["catalog"]):
        for key in (records["project"], "all"):
            rows[key]["lines"] += 1
            rows[key]["records"] += records["hit"]
            rows[key]["catalog"] += both["hit"]
            rows[key]["drift"] += both["drift"]
    return dict(sorted(rows.items(), key=lambda kv: (kv[0] == "all", kv[0])))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", choices=("dev", "test", "both"), default="dev")
    parser.add_argument("--top", type=int, default=3)
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--data", type=Path, default=ROOT / "data" / "errors")
    args = parser.parse_args(argv)
    from generator.bundle.read import open_knowledge

    parts = ("dev", "test") if args.part == "both" else (args.part,)
    result = {}
    for catalog in (False, True):
        k = open_knowledge(args.data, sys.stderr, catalog=catalog)
        if isinstance(k, str):
            raise SystemExit(f"bench.generalise: {k}")
        for part in parts:
            result.setdefault(part, {})["catalog" if catalog else "records"] = evaluate(k, load(part), args.top)
    tables = {part: table(result[part]) for part in parts}
    if args.format == "json":
        json.dump({"top": args.top, "tables": tables, "outcomes": result}, sys.stdout, indent=1, sort_keys=True)
        print()
        return 0
    projects = sorted({p for t in tables.values() for p in t}, key=lambda p: (p == "all", p))
    head = f"{'project':<18}" + "".join(f"{part + ' lines':>11}{'records':>14}{'+catalog':>14}{'+drift':>14}" for part in parts)
    print(head)
    for p in projects:
        row = f"{p:<18}"
        for part in parts:
            r = tables[part].get(p, {"lines": 0, "records": 0, "catalog": 0, "drift": 0})
            n = r["lines"] or 1
            row += f"{r['lines']:>11}" + "".join(f"{r[c]:>7} {100 * r[c] / n:5.1f}%" for c in ("records", "catalog", "drift"))
        print(row)
    print(f"(a line is answered when one of the top {args.top} results on it holds its key; +drift: or a version-drift answer on it does)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
