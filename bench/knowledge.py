"""Benchmark: the knowledge bundle's targets, side by side in one run (on demand:
`.venv/bin/python -m bench.knowledge [--mb 100] [--runs 5]`).

Over the repository's own data (data/errors and data/catalog), in a fresh cache folder:
  1. `errdex bundle`: the time to make the bundle from nothing (records checked, catalog read, tables and the
     Hyperscan database compiled) and its size;
  2. `errdex match` on a one-line paste, as a whole process, warm (the bundle in the cache, read before) and
     cold-but-bundled (the bundle and the data files dropped from the page cache before each run);
  3. `errdex match` on a generated log of --mb MB, end to end, with each prefilter engine (ERRDEX_ENGINE): the log
     bench.catalog reads (bench.match's server chatter and tracebacks whose last lines are 2,000 catalog messages
     with values filled in);
  4. `errdex mcp`: the time to a completed `initialize` through the SDK's stdio client; beside it, run for run, the
     same for a server of the SDK alone (an MCPServer with nothing of errdex's), which is most of that time:
     `mcp_sdk_floor_s`, and errdex's own part, the median of the paired differences (`mcp_over_sdk_s`).
Targets (issue "Compile once"): a one-line paste <= 0.5 s warm and <= 1 s cold-but-bundled; the big log >= 50 MB/s
with the full catalog; the MCP server ready in <= 1 s. Each figure is the median of --runs runs (min and max beside).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.catalog import catalog_examples
from bench.match import write_log

ROOT = Path(__file__).resolve().parent.parent
ONE_LINE = "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 79.15 GiB total capacity)\n"


def _cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "generator", *args]


def _timed(argv: list[str], env: dict[str, str], before=None) -> float:
    if before is not None:
        before()
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True)
    took = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')}")
    return took


def _figure(times: list[float]) -> dict[str, float]:
    return {"median": round(statistics.median(times), 3), "min": round(min(times), 3), "max": round(max(times), 3)}


def _drop(paths: list[Path]) -> None:
    """Drop files from the page cache, so that the next read comes from the disk (a cold start)."""
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


SDK_ALONE = ["-c", "from mcp.server.mcpserver import MCPServer; MCPServer('sdk').run('stdio')"]


async def _mcp_ready(env: dict[str, str], args: list[str]) -> float:
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=args, cwd=str(ROOT), env=env)
    started = time.perf_counter()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="bench.knowledge", description=__doc__.split("\n\n")[0])
    parser.add_argument("--mb", type=int, default=100, help="size of the generated log (default: 100)")
    parser.add_argument("--runs", type=int, default=5, help="runs per figure (default: 5)")
    args = parser.parse_args(argv)
    from generator.match.prefilter import hyperscan_available

    report: dict[str, object] = {"hyperscan": hyperscan_available()}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        env = {**os.environ, "ERRDEX_CACHE": str(work / "cache")}
        out = work / "k.bundle"
        report["bundle_seconds"] = round(_timed(_cmd("bundle", "--out", str(out)), env), 2)
        report["bundle_mb"] = round(out.stat().st_size / 1e6, 1)

        one = work / "one.log"
        one.write_text(ONE_LINE, encoding="utf-8")
        _timed(_cmd("match", str(one)), env)  # the cache's bundle, made once
        bundles = sorted((work / "cache" / "bundles").glob("*.bundle"))
        data = [p for p in (ROOT / "data").rglob("*") if p.is_file()]
        report["one_line_warm_s"] = _figure([_timed(_cmd("match", str(one)), env) for _ in range(args.runs)])
        report["one_line_cold_bundled_s"] = _figure([_timed(_cmd("match", str(one)), env, lambda: _drop(bundles + data))
                                                     for _ in range(args.runs)])

        log = work / "server.log"
        report["log"] = write_log(log, args.mb * 1_000_000, catalog_examples(2000))
        size = log.stat().st_size
        for engine in (["hyperscan"] if report["hyperscan"] else []) + ["re2"]:
            e = {**env, "ERRDEX_ENGINE": engine}
            times = [_timed(_cmd("match", str(log), "--format", "json"), e) for _ in range(max(1, args.runs // 2))]
            report[f"log_{engine}_mb_per_s"] = round(size / 1e6 / statistics.median(times), 1)
            report[f"log_{engine}_s"] = _figure(times)

        pairs = [(asyncio.run(_mcp_ready(env, ["-m", "generator", "mcp"])), asyncio.run(_mcp_ready(env, SDK_ALONE)))
                 for _ in range(args.runs)]
        report["mcp_ready_s"] = _figure([ours for ours, _ in pairs])
        report["mcp_sdk_floor_s"] = _figure([sdk for _, sdk in pairs])
        report["mcp_over_sdk_s"] = round(statistics.median(ours - sdk for ours, sdk in pairs), 3)
    targets = {"one_line_warm_s": 0.5, "one_line_cold_bundled_s": 1.0, "mcp_ready_s": 1.0}
    report["targets_met"] = {
        **{k: report[k]["median"] <= v for k, v in targets.items()},  # type: ignore[index]
        "log_mb_per_s": report.get("log_hyperscan_mb_per_s", report["log_re2_mb_per_s"]) >= 50,  # type: ignore[operator]
    }
    print(json.dumps(report, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
