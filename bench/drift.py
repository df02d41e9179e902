"""Benchmark: version-drift answers on real lines (run on demand: `.venv/bin/python -m bench.drift [--format json]`).

The lines (bench/drift/lines.jsonl; bench/drift/README.md says how they were collected) are error lines of the five
drift shapes that users pasted into public threads, each with the library that lacks the name and, where the thread
states them, the release the poster had (`installed`) and a version constraint that fixed it (`resolution`).

For each line the answers of `generator.bundle.drift` (the symbol index in data/catalog/symbols) are read on its
context and line, and counted:
- answered: an answer names the line's library;
- agrees: the answer's releases agree with every fact the thread states: the installed release, when searched, is
  one that lacks the name (the poster hit the error with it), and the releases the resolution admits, where
  searched, include one that has it;
- searched: the thread's facts fall inside the releases the index holds (facts outside it cannot be checked).
Then the index's size per project, the time to read every index, the lookup time per line, and the times of a
first import line and then a class line as `errdex match` reads the indexes (headers first, a project's index when
a line needs it). Output is deterministic except the times (the text report prints them last).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

ROOT = Path(__file__).resolve().parent.parent
LINES = ROOT / "bench/drift/lines.jsonl"
SYMBOLS = ROOT / "data/catalog/symbols"


def _admits(spec: str, release: str) -> bool:
    try:
        return Version(release) in SpecifierSet(spec)
    except (InvalidSpecifier, InvalidVersion):
        return False


def judge(case: dict, answers: list[dict]) -> dict:
    """The outcome of one line: answered, and whether the answer agrees with the thread's facts."""
    package = case["project"]
    mine = [c for a in answers for c in a["candidates"] if package in (c["project"], c["project"].replace("-", "_")) or
            c["symbol"].split(".")[0] == package]
    out = {"id": case["id"], "shape": case["shape"], "project": package, "answered": bool(mine), "facts": 0, "checked": 0, "agrees": None}
    if not mine:
        return out
    c = mine[0]
    out["verdict"], out["install"] = c["verdict"], c.get("install")
    has = {r for span in c["has"] for r in _releases_between(c, span)}
    searched = c["_releases"]
    agree = True
    if case["installed"]:
        out["facts"] += 1
        if case["installed"] in searched:
            out["checked"] += 1
            agree &= case["installed"] not in has
    if case["resolution"]:
        out["facts"] += 1
        admitted = [r for r in searched if _admits(case["resolution"], r)]
        if admitted:
            out["checked"] += 1
            agree &= any(r in has for r in admitted)
    out["agrees"] = agree if out["checked"] else None
    return out


def _releases_between(c: dict, span: dict) -> list[str]:
    releases = c["_releases"]
    return releases[releases.index(span["from"]) : releases.index(span["to"]) + 1]


def run(symbols: Path = SYMBOLS) -> dict:
    from generator.bundle.drift import drift_answers
    from generator.catalog.symbols import read_index

    started = time.perf_counter()
    indexes = {}
    sizes = {}
    for path in sorted(symbols.glob("*.jsonl")):
        index = read_index(path)
        indexes[index.project] = index
        sizes[index.project] = {"bytes": path.stat().st_size, "releases": len(index.releases), "modules": len(index.modules)}
    load_s = time.perf_counter() - started
    cases = [json.loads(line) for line in LINES.read_text(encoding="utf-8").splitlines() if line.strip()]
    outcomes, times = [], []
    for case in cases:
        text = (case["context"] + "\n" if case["context"] else "") + case["line"]
        t = time.perf_counter()
        answers = drift_answers(text, indexes)
        times.append(time.perf_counter() - t)
        for a in answers:
            for c in a["candidates"]:
                c["_releases"] = indexes[c["project"]].releases
        outcomes.append(judge(case, answers))
    from generator.catalog.symbols import indexes as lazy_indexes

    lazy_indexes.cache_clear()
    t = time.perf_counter()
    lazy = lazy_indexes(symbols)  # what errdex match and the MCP server open: headers only
    first = drift_answers("ImportError: cannot import name 'cached_download' from 'huggingface_hub'", lazy)
    lazy_import_s = time.perf_counter() - t
    t = time.perf_counter()
    drift_answers("AttributeError: 'DynamicCache' object has no attribute 'get_max_length'", lazy)
    lazy_class_s = time.perf_counter() - t
    total = len(outcomes)
    answered = sum(o["answered"] for o in outcomes)
    checked = [o for o in outcomes if o["agrees"] is not None]
    per_shape: dict[str, dict[str, int]] = {}
    for o in outcomes:
        s = per_shape.setdefault(o["shape"], {"lines": 0, "answered": 0, "checked": 0, "agrees": 0})
        s["lines"] += 1
        s["answered"] += o["answered"]
        s["checked"] += o["agrees"] is not None
        s["agrees"] += o["agrees"] is True
    return {"lines": total, "answered": answered, "checked": len(checked), "agrees": sum(o["agrees"] for o in checked),
            "per_shape": per_shape, "index": sizes, "outcomes": outcomes,
            "times": {"load_s": round(load_s, 3), "lookup_median_ms": round(statistics.median(times) * 1000, 2),
                      "lookup_max_ms": round(max(times) * 1000, 2), "first_import_line_s": round(lazy_import_s, 3),
                      "then_a_class_line_s": round(lazy_class_s, 3), "first_answered": bool(first)}}


def text_report(r: dict) -> str:
    out = [f"drift lines: {r['lines']}; answered {r['answered']} ({100 * r['answered'] / r['lines']:.1f}%); "
           f"with thread facts inside the releases searched: {r['checked']}, of which the answer agrees: {r['agrees']}", ""]
    out.append(f"{'shape':<10} {'lines':>5} {'answered':>8} {'checked':>7} {'agrees':>6}")
    for shape, s in sorted(r["per_shape"].items()):
        out.append(f"{shape:<10} {s['lines']:>5} {s['answered']:>8} {s['checked']:>7} {s['agrees']:>6}")
    out += ["", "not answered: " + ", ".join(f"{o['id']} ({o['project']})" for o in r["outcomes"] if not o["answered"])]
    disagree = [o for o in r["outcomes"] if o["agrees"] is False]
    out.append("disagrees: " + (", ".join(o["id"] for o in disagree) or "none"))
    out += ["", f"{'index':<18} {'bytes':>10} {'releases':>8} {'modules':>7}"]
    for project, s in sorted(r["index"].items()):
        out.append(f"{project:<18} {s['bytes']:>10,} {s['releases']:>8} {s['modules']:>7}")
    out.append(f"{'all':<18} {sum(s['bytes'] for s in r['index'].values()):>10,}")
    t = r["times"]
    out += ["", f"every index read: {t['load_s']} s; lookup per line: median {t['lookup_median_ms']} ms, max {t['lookup_max_ms']} ms",
            f"as errdex match reads them (headers, then a project when a line needs it): an import line "
            f"{t['first_import_line_s']} s (one index read), then a class line {t['then_a_class_line_s']} s (the rest read)"]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--format", choices=["text", "json"], default="text")
    parser.add_argument("--symbols", type=Path, default=SYMBOLS, help="the symbol index folder (default: data/catalog/symbols)")
    args = parser.parse_args(argv)
    result = run(args.symbols)
    if args.format == "json":
        sys.stdout.write(json.dumps(result, indent=1, sort_keys=True) + "\n")
    else:
        sys.stdout.write(text_report(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
