"""Benchmark: the catalog's cost to the build and `errdex match` at the full catalog (run on demand:
`.venv/bin/python -m bench.catalog [--runs N] [--mb 100] [--skip-build]`).

1. `errdex build` of the repository's data with the catalog (data/catalog) and with `--no-catalog`: one of each
   first, timed apart (cold when the code or the data changed since the cache was filled), then in turn, `--runs`
   times each: median wall seconds of each, and the ratio (goals: at most 90 s, at most 2x).
2. `errdex match --format json` (the catalog is on by default) over a generated log of `--mb` megabytes (bench.match's server chatter
   and tracebacks whose last lines are catalog messages with values filled in): end-to-end seconds and MB/s as a
   subprocess, then in this process the load (records, catalog, matcher) and the scan apart (goal: 50 MB/s).
The paste page's figures (500-line traceback, bytes before the first match) are bench.catalogmatch's.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ERRDEX = ROOT / ".venv" / "bin" / "errdex"


def time_builds(runs: int, out: Path) -> dict:
    """Wall seconds of `errdex build` with and without the catalog. First one build of each, timed apart: the
    first after a change to the code or the data (the checks' findings, the browser's match and drift data and the
    catalog's share of the build are made and kept; with an unchanged cache they are read back, so this run is
    cold only after such a change). Then `runs` of each in turn (A B A B ...): the median of each, and the ratio."""
    times: dict[str, list[float]] = {"catalog": [], "no_catalog": []}
    first: dict[str, float] = {}

    def build(name: str, extra: list[str]) -> float:
        started = time.perf_counter()
        subprocess.run([str(ERRDEX), "build", "--quiet", "--out", str(out / name), *extra], cwd=ROOT, check=True)
        return time.perf_counter() - started

    kinds = (("catalog", []), ("no_catalog", ["--no-catalog"]))
    for name, extra in kinds:
        first[name] = build(name, extra)
    for _ in range(runs):
        for name, extra in kinds:
            times[name].append(build(name, extra))
    with_c, without = statistics.median(times["catalog"]), statistics.median(times["no_catalog"])
    ratios = [a / b for a, b in zip(times["catalog"], times["no_catalog"])]
    return {"runs": runs, "with_catalog_s": round(with_c, 1), "without_catalog_s": round(without, 1),
            "ratio_median": round(statistics.median(ratios), 2), "all": {k: [round(x, 1) for x in v] for k, v in times.items()},
            "first_s": {k: round(v, 1) for k, v in first.items()},
            "site_bytes": sum(p.stat().st_size for p in (out / "catalog").rglob("*") if p.is_file()),
            "site_files": sum(1 for p in (out / "catalog").rglob("*") if p.is_file())}


def catalog_examples(count: int, seed: int = 3) -> list[tuple[str, str | None]]:
    """Catalog messages with their holes filled, and their exception classes."""
    rows = []
    for path in sorted((ROOT / "data" / "catalog").glob("*.jsonl")):
        with path.open(encoding="utf-8") as f:
            rows += [json.loads(line) for line in f]
    r = random.Random(seed)
    return [(d["template"].replace("{}", str(r.randint(1, 4096))), d.get("exception")) for d in r.sample(rows, count)]


def time_match(log: Path) -> dict:
    from generator.bundle.read import open_knowledge

    one = log.with_name("one-line.log")  # first, untimed: the knowledge bundle, made when the code or data changed
    one.write_text("RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n", encoding="utf-8")
    subprocess.run([str(ERRDEX), "match", str(one)], cwd=ROOT, capture_output=True, check=False)
    started = time.perf_counter()
    proc = subprocess.run([str(ERRDEX), "match", "--format", "json", "--top", "5", str(log)], cwd=ROOT,
                          capture_output=True, text=True)
    end_to_end = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"errdex match failed: {proc.stderr[-2000:]}")
    found = json.loads(proc.stdout)["found"]
    t0 = time.perf_counter()
    k = open_knowledge(None, sys.stderr)  # the knowledge bundle, made by the run above
    t1 = time.perf_counter()
    with log.open("rb") as f:
        results = k.matcher.find(f)
    t2 = time.perf_counter()
    mb = log.stat().st_size / 1e6
    return {"log_mb": round(mb, 1), "found": found, "end_to_end_s": round(end_to_end, 2), "end_to_end_mb_s": round(mb / end_to_end, 1),
            "load_s": round(t1 - t0, 2), "scan_s": round(t2 - t1, 2), "scan_mb_s": round(mb / (t2 - t1), 1), "results": len(results),
            "patterns": len(k.matcher.patterns)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=3, help="builds of each kind (default 3)")
    parser.add_argument("--mb", type=float, default=100.0, help="log size in MB (default 100)")
    parser.add_argument("--skip-build", action="store_true", help="only the match figures")
    args = parser.parse_args(argv)
    from bench.match import write_log

    work = Path(tempfile.mkdtemp(prefix="errdex-bench-catalog-"))
    try:
        report: dict = {}
        if not args.skip_build:
            report["build"] = time_builds(args.runs, work)
            print(json.dumps({"build": report["build"]}, indent=2), flush=True)
        log = work / "server.log"
        report["log"] = write_log(log, int(args.mb * 1e6), catalog_examples(2000))
        report["match"] = time_match(log)
        print(json.dumps({"log": report["log"], "match": report["match"]}, indent=2))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
