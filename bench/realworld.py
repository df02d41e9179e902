"""Benchmark: how many real pasted errors `errdex match` recognises (run on demand:
`.venv/bin/python -m bench.realworld [--format text|json] [--index MATCH_JSON] [--top N] [--catalog]`).

The cases are error lines users posted in public GitHub issue threads of the serving stacks, each with up to 15
lines of the log or traceback posted just before it (bench/realworld/cases.jsonl; bench/realworld/README.md says
how they were collected). For each case the matcher reads `context + "\\n" + line`, as if the user had pasted that
part of the log, and ranks what it found. A case is a hit when one of the top N results (3 by default) has a
match on the error line itself: a match only in the context (a traceback frame, an earlier warning) does not
count.

By default the patterns are those of the repository's records (data/errors, which must pass the checks); `--index` matches
with the patterns of a built match.json instead. Output is deterministic: cases in file order,
tables sorted by name.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "bench/realworld/cases.jsonl"
DATA = ROOT / "data/errors"
FIELDS = {"id", "project", "url", "line", "context", "family", "year"}


def load_cases(path: Path = CASES) -> list[dict]:
    cases, seen = [], set()
    for n, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not raw.strip():
            continue
        case = json.loads(raw)
        missing = FIELDS - case.keys()
        if missing:
            raise SystemExit(f"{path}:{n}: missing {', '.join(sorted(missing))}")
        if "\n" in case["line"]:
            raise SystemExit(f"{path}:{n}: the error line holds a line break")
        if case["id"] in seen:
            raise SystemExit(f"{path}:{n}: duplicate id {case['id']}")
        seen.add(case["id"])
        cases.append(case)
    return cases


def load_patterns(index: Path | None, data: Path = DATA) -> list:
    from generator.match.index import load_index, patterns_from_records

    if index is not None:
        return load_index(index)[0]
    from generator.checks.pipeline import check

    result = check([data], data)
    if result.failed:
        raise SystemExit(f"bench.realworld: the records in {data} do not pass `errdex validate`; fix them first")
    return patterns_from_records(result.records)


def paste(case: dict) -> tuple[str, int]:
    """The text the matcher reads, and the 1-based number of the error line in it."""
    context = case["context"].rstrip("\n")
    if not context:
        return case["line"], 1
    return context + "\n" + case["line"], context.count("\n") + 2


def evaluate(cases: list[dict], patterns: list, top: int = 3) -> list[dict]:
    """One outcome per case: hit or not, and the ids of the top results (marked * when on the error line)."""
    from generator.match.engine import Matcher

    matcher = Matcher(patterns)
    outcomes = []
    for case in cases:
        text, err_line = paste(case)
        hits = matcher.scan_text(text)
        ranked = matcher.rank(hits)
        on_line: dict[str, bool] = {}
        for h in hits:
            pid = matcher.patterns[h.pattern].id
            on_line[pid] = on_line.get(pid, False) or h.line == err_line
        best = [(r.pattern.id, on_line.get(r.pattern.id, False)) for r in ranked[:top]]
        outcomes.append({
            "id": case["id"],
            "project": case["project"],
            "family": case["family"],
            "hit": any(ok for _, ok in best),
            "top": [pid + ("*" if ok else "") for pid, ok in best],
            "line": case["line"],
        })
    return outcomes


def _rate(hits: int, total: int) -> float:
    return round(100.0 * hits / total, 1) if total else 0.0


def summarise(outcomes: list[dict], top: int, patterns: int) -> dict:
    def table(key: str) -> dict:
        groups: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        for o in outcomes:
            g = groups[o[key]]
            g[0] += o["hit"]
            g[1] += 1
        return {k: {"hits": h, "cases": t, "rate": _rate(h, t)} for k, (h, t) in sorted(groups.items())}

    hits = sum(o["hit"] for o in outcomes)
    return {
        "cases": len(outcomes),
        "patterns": patterns,
        "top": top,
        "hits": hits,
        "rate": _rate(hits, len(outcomes)),
        "projects": table("project"),
        "families": table("family"),
        "misses": [{"id": o["id"], "family": o["family"], "line": o["line"][:120], "top": o["top"]} for o in outcomes if not o["hit"]],
    }


def format_text(s: dict) -> str:
    out = [f"real-world pasted errors: {s['hits']}/{s['cases']} recognised ({s['rate']}%): "
           f"a match on the error line among the top {s['top']} results; {s['patterns']} patterns", ""]
    for title, key in (("project", "projects"), ("family", "families")):
        rows = s[key]
        width = max([len(title)] + [len(k) for k in rows])
        out.append(f"{title:<{width}}  hits  cases   rate")
        for k, v in rows.items():
            out.append(f"{k:<{width}}  {v['hits']:>4}  {v['cases']:>5}  {v['rate']:>5.1f}%")
        out.append("")
    out.append(f"misses ({len(s['misses'])}):")
    for m in s["misses"]:
        out.append(f"  {m['id']}  [{m['family']}]  {m['line']}")
    if "catalog" in s:
        c = s["catalog"]
        out += ["", f"catalog ({c['entries']} entries): {c['cases_with_entry']} of {s['cases']} error lines hold a catalog message; "
                    f"{len(c['misses_with_entry'])} of the {c['misses']} misses do (raise site and releases, no guide yet):"]
        out += [f"  {m['id']}  {', '.join(m['entries'])}" for m in c["misses_with_entry"]]
    return "\n".join(out) + "\n"


def catalog_lines(cases: list[dict], outcomes: list[dict], folder: Path) -> dict:
    """With --catalog: the cases whose error line holds a catalog message (data/catalog), overall and among the
    records' misses: for those a user learns the raise site and the releases, though no guide yet."""
    from generator.catalog.reader import load_catalog
    from generator.match.engine import Matcher
    from generator.bundle.knowledge import catalog_pattern

    catalog = load_catalog(folder)
    matcher = Matcher([catalog_pattern(slug, e.data) for slug, project in catalog.projects.items() for e in project.entries])
    found: dict[str, list[str]] = {}
    for case in cases:
        text, err_line = paste(case)
        ids = sorted({matcher.patterns[h.pattern].id for h in matcher.scan_text(text) if h.line == err_line})
        if ids:
            found[case["id"]] = ids
    missed = [o for o in outcomes if not o["hit"]]
    return {"entries": len(matcher.patterns), "cases_with_entry": len(found), "misses": len(missed),
            "misses_with_entry": [{"id": o["id"], "entries": found[o["id"]][:3]} for o in missed if o["id"] in found]}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.realworld", description=__doc__.split("\n\n")[0])
    ap.add_argument("--format", choices=["text", "json"], default="text")
    ap.add_argument("--index", type=Path, default=None, metavar="MATCH_JSON", help="match with a built match.json instead of the records")
    ap.add_argument("--data", type=Path, default=DATA, help="the records folder (default: data/errors)")
    ap.add_argument("--cases", type=Path, default=CASES, help="the cases file (default: bench/realworld/cases.jsonl)")
    ap.add_argument("--top", type=int, default=3, metavar="N", help="a hit must be among the N best results (default: 3)")
    ap.add_argument("--catalog", type=Path, nargs="?", const=ROOT / "data/catalog", default=None, metavar="FOLDER",
                    help="also count the error lines that hold a catalog message (default folder: data/catalog)")
    args = ap.parse_args(argv)
    cases = load_cases(args.cases)
    patterns = load_patterns(args.index, args.data)
    outcomes = evaluate(cases, patterns, args.top)
    summary = summarise(outcomes, args.top, len(patterns))
    if args.catalog is not None:
        summary["catalog"] = catalog_lines(cases, outcomes, args.catalog)
    if args.format == "json":
        sys.stdout.write(json.dumps(summary, ensure_ascii=False, indent=2, sort_keys=True) + "\n")
    else:
        sys.stdout.write(format_text(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
