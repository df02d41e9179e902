"""Benchmark: the catalog harvest, per release, first run and cached (run on demand, it downloads).

    .venv/bin/python -m bench.harvest vllm --releases 0.32.0 0.33.0
    .venv/bin/python -m bench.harvest transformers sglang --git huggingface/text-generation-inference=PATH

Harvests into a temporary catalog folder twice: first with an empty cache (download + parse every file), then
again with the filled cache (every release's files and extraction results are reused). With --cache, the first
run uses that cache as it is (to time extraction alone, pass a cache that holds the downloads but no `sites/`).
Reports seconds per release (fetch and extract apart), and the size on disk of the catalog written here and of
the repository's data/catalog.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

from generator.harvest.config import CATALOG_ROOT, load_config
from generator.harvest.fetch import Cache
from generator.harvest.run import harvest


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.glob("*") if p.is_file() and p.suffix in (".jsonl", ".json"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("projects", nargs="+")
    parser.add_argument("--releases", nargs="+")
    parser.add_argument("--git", action="append", default=[], metavar="OWNER/NAME=PATH")
    parser.add_argument("--cache", type=Path, default=None, help="use this cache for the first run instead of an empty one")
    args = parser.parse_args()
    projects = load_config()
    chosen = {slug: projects[slug] for slug in args.projects}
    git = {item.split("=", 1)[0]: Path(item.split("=", 1)[1]) for item in args.git}
    work = Path(tempfile.mkdtemp(prefix="errdex-bench-"))
    cache = Cache(args.cache or work / "cache")
    try:
        runs = {}
        for name in ("first", "cached"):
            out = work / name
            started = time.perf_counter()
            outcome = harvest(chosen, args.releases, cache, git, root=out, log=lambda _: None)
            runs[name] = (time.perf_counter() - started, outcome, out)
        print(f"{'project':<14}{'release':<14}{'files':>7}{'sites':>8}{'first fetch':>13}{'first extract':>15}{'cached':>9}")
        cached = {(t.project, t.version): t for t in runs["cached"][1].timings}
        for t in runs["first"][1].timings:
            c = cached[(t.project, t.version)]
            print(f"{t.project:<14}{t.version:<14}{t.files:>7}{t.sites:>8}{t.fetch_s:>12.1f}s{t.extract_s:>14.1f}s{c.fetch_s + c.extract_s:>8.1f}s")
        for name, (total, outcome, out) in runs.items():
            print(f"{name} run: {total:.1f}s in all; catalog written: {_size(out) / 1e6:.1f} MB")
        for failure in runs["first"][1].failures:
            print(f"not harvested: {failure}")
        if CATALOG_ROOT.is_dir():
            print(f"repository catalog ({CATALOG_ROOT}): {_size(CATALOG_ROOT) / 1e6:.1f} MB")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
