"""Benchmark: `errdex validate` against a bare YAML parse of the same files (run on demand: `make bench`).

Generates N schema-valid records of about 3 KB in a temporary folder, then times, in the same run:
  bare   - yaml.load with CSafeLoader for every file (the floor: reading and parsing)
  check  - the whole validate pipeline (load with positions, schema, every coded check)
Goal: check costs at most twice the bare parse.
"""

from __future__ import annotations

import argparse
import os
import copy
import tempfile
import time
from pathlib import Path

import yaml

from generator.checks.pipeline import check
from generator.yamlout import dump_record

BASE = Path(__file__).parent.parent / "tests/fixtures/valid/demo/minimal.yaml"


def synthetic_record(i: int, base: dict) -> dict:
    """A schema-valid record of roughly 3 KB, distinct per i."""
    rec = copy.deepcopy(base)
    rec["id"] = f"bench/error-{i:05d}"
    rec["error"]["message"] = f"Failed to allocate {{}} blocks for request {{}} in pool {i}"
    rec["error"]["regex"] = rf"Failed to allocate (\d+) blocks for request (\S+) in pool {i}\b"
    rec["error"]["examples"] = [{"text": f"ValueError: Failed to allocate 12 blocks for request req-7 in pool {i}", "constructed": True}]
    rec["error"]["counter_examples"] = ["Failed to allocate memory"]
    rec["tags"] = ["kv-cache", f"pool-{i % 50}"]
    rec["explanation"] = f"Record {i}: " + "The cache had fewer free blocks than the request needed. " * 6
    rec["explanation_zh"] = f"记录 {i}：" + "缓存中的空闲块少于该请求所需的数量。" * 6
    rec["solutions"] = [f"Solution {k} for record {i}: lower the number of concurrent requests." for k in range(4)]
    rec["solutions_zh"] = [f"记录 {i} 的第 {k} 个办法：降低并发请求的数量。" for k in range(4)]
    rec["prevention"] = [f"Prevention {k}: cap concurrency below the block budget." for k in range(3)]
    rec["prevention_zh"] = [f"预防 {k}：把并发限制在块预算以内。" for k in range(3)]
    rec["workarounds"] = [{"action": "Raise the memory fraction", "action_zh": "调高显存比例", "success_rate": 0.7}]
    return rec


def generate(folder: Path, count: int) -> list[Path]:
    base = yaml.safe_load(BASE.read_text(encoding="utf-8"))
    out = folder / "bench"
    out.mkdir(parents=True)
    paths = []
    for i in range(count):
        path = out / f"error-{i:05d}.yaml"
        path.write_text(dump_record(synthetic_record(i, base)), encoding="utf-8")
        paths.append(path)
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=10_000, help="number of records (default 10000)")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each side; the best counts (default 2)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        paths = generate(root, args.n)
        size = sum(p.stat().st_size for p in paths)
        bare_runs, full_runs = [], []
        for _ in range(args.repeat):  # alternate, and keep each side's best run: the machine is shared
            start = time.perf_counter()
            for path in paths:
                yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)
            bare_runs.append(time.perf_counter() - start)
            start = time.perf_counter()
            result = check([root], root, strict=True, models=False)  # what `errdex validate` runs
            full_runs.append(time.perf_counter() - start)
            assert not result.findings, result.findings[:3]
            assert len(result.raws) == args.n
        bare, full = min(bare_runs), min(full_runs)
    print(f"records: {args.n}, {size / args.n / 1024:.1f} KiB each, {size / 2**20:.1f} MiB in all")
    print(f"bare YAML parse (CSafeLoader): {bare:6.2f} s   (best of {args.repeat}: {', '.join(f'{t:.2f}' for t in bare_runs)})")
    print(f"errdex validate (everything):  {full:6.2f} s   (best of {args.repeat}: {', '.join(f'{t:.2f}' for t in full_runs)})")
    print(f"ratio {full / bare:.2f}x (goal <= 2.00x); validate uses {min(os.cpu_count() or 1, 8)} worker processes from 1,000 files")


if __name__ == "__main__":
    main()
