"""Benchmark: `errdex mcp` start time, and `match_log` on a 500-line traceback over the full dataset (run on demand:
`.venv/bin/python -m bench.mcp [--catalog-entries N]`).

In one run:
  1. start `errdex mcp` over data/errors (plus data/catalog when it exists) as a subprocess with the SDK's stdio
     client, `--starts` times: the time to a completed `initialize`, and to the tool list;
  2. on one running server, call `match_log` `--calls` times with a 500-line traceback whose last line is a
     real record's example (the traceback frames are bench.match's), and report the first call, the median and
     the 90th percentile, and the size of the result;
  3. the same `match_log` in this process (generator.mcp.tools, no protocol), to tell the matching from the
     transport.
`--catalog-entries N` adds a synthetic catalog of N entries (bench.match's synthetic patterns) for a dataset
that has no data/catalog yet, to see the cost at catalog scale.
Goals: ready in under 3 s; `match_log` on the 500-line traceback under 100 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench.match import FRAMES, _fill, synthetic_pattern

ROOT = Path(__file__).resolve().parent.parent


def traceback_text(example: str, exception: str | None, lines: int = 500, seed: int = 5) -> str:
    r = random.Random(seed)
    frames = [_fill(r.choice(FRAMES), r) for _ in range(lines - 2)]
    return "\n".join(["Traceback (most recent call last):", *frames, f"{exception or 'RuntimeError'}: {example}"]) + "\n"


def synthetic_catalog(folder: Path, count: int, seed: int = 3) -> None:
    """`count` entries of one made-up project in the catalog format, with three releases."""
    from generator.match.portable import analyse

    r = random.Random(seed)
    releases = ["1.0.0", "1.1.0", "1.2.0"]
    rows = []
    for i in range(count):
        pattern, template, _, exception = synthetic_pattern(i, r)
        a = analyse(pattern)
        first = r.randrange(3)
        rows.append({
            "id": "synth/" + hashlib.sha256(f"synth\0{template}".encode()).hexdigest()[:16],
            "project": "synth", "template": template, "pattern": pattern,
            "literal": max(a.literals, key=len) if a.literals else "", "specificity": a.specificity,
            "kind": "raise", "exception": exception, "level": None, "tier": "user", "function": f"f{i}",
            "sites": [{"from": releases[first], "to": "1.2.0", "path": f"synth/m{i % 97}.py", "line": 10 + i % 900, "statement": "raise ..."}],
            "releases": [[releases[first], "1.2.0"]], "first": releases[first], "last": "1.2.0",
        })
    rows.sort(key=lambda e: e["id"])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "synth.jsonl").write_text("".join(json.dumps(e, sort_keys=True, separators=(",", ":")) + "\n" for e in rows), encoding="utf-8")
    (folder / "releases.json").write_text(json.dumps({"synth": [{"version": v, "source": "pypi"} for v in releases]}), encoding="utf-8")


async def _session(args: list[str], work):
    from mcp.client.session import ClientSession
    from mcp.client.stdio import StdioServerParameters, stdio_client

    params = StdioServerParameters(command=sys.executable, args=["-m", "generator", "mcp", *args], cwd=str(ROOT))
    started = time.perf_counter()
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            ready = time.perf_counter() - started
            await session.list_tools()
            listed = time.perf_counter() - started
            return ready, listed, await work(session)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", type=Path, default=ROOT / "data/errors")
    parser.add_argument("--catalog", type=Path, default=ROOT / "data/catalog")
    parser.add_argument("--catalog-entries", type=int, default=0, help="add a synthetic catalog of N entries")
    parser.add_argument("--starts", type=int, default=3)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args(argv)

    from generator.mcp import tools
    from generator.mcp.main import load_knowledge

    with tempfile.TemporaryDirectory(prefix="errdex-bench-mcp-") as tmp:
        catalog = args.catalog
        if args.catalog_entries:
            catalog = Path(tmp) / "catalog"
            synthetic_catalog(catalog, args.catalog_entries)
        server_args = ["--data", str(args.data), "--catalog", str(catalog)]

        t = time.perf_counter()
        k = load_knowledge(data=args.data, catalog=catalog)
        load = time.perf_counter() - t
        docs = [k.api.document(cid)["record"] for cid in sorted(k.api.documents)]
        record = next(d for d in docs if d["error"].get("examples"))
        example = record["error"]["examples"][0]
        example = example["text"] if isinstance(example, dict) else example  # an example with its provenance
        text = traceback_text(example, record["error"].get("exception_class"))
        entries = sum(len(p.entries) for p in k.catalog.projects.values())
        print(f"dataset: {len(docs)} records, {entries} catalog entries ({catalog if catalog.is_dir() else 'no catalog'})")
        print(f"paste: {text.count(chr(10))} lines, {len(text.encode())} bytes, ending in an example of {record['id']}")
        print(f"loading in process (check records, export the API in memory, read the catalog, build the matcher): {load * 1000:.0f} ms")

        local = []
        for _ in range(args.calls):
            t = time.perf_counter()
            result = tools.match_log(k, text)
            local.append(time.perf_counter() - t)
        assert result["results"] and result["results"][0]["id"] == record["id"], result["results"][:1]

        starts = []
        for _ in range(args.starts):
            async def nothing(session):
                return None

            ready, listed, _ = asyncio.run(_session(server_args, nothing))
            starts.append((ready, listed))

        async def calls(session):
            times, size = [], 0
            for _ in range(args.calls):
                t = time.perf_counter()
                res = await session.call_tool("match_log", {"text": text})
                times.append(time.perf_counter() - t)
                assert not res.is_error and res.structured_content["results"][0]["id"] == record["id"]
                size = len(res.content[0].text.encode())
            return times, size

        _, _, (remote, size) = asyncio.run(_session(server_args, calls))

    def ms(values: list[float]) -> str:
        values = sorted(values)
        p90 = values[min(len(values) - 1, int(len(values) * 0.9))]
        return f"median {statistics.median(values) * 1000:.1f} ms, p90 {p90 * 1000:.1f} ms, min {values[0] * 1000:.1f} ms"

    print(f"start to initialize: {ms([s[0] for s in starts])} ({args.starts} starts)")
    print(f"start to tool list:  {ms([s[1] for s in starts])}")
    print(f"match_log over stdio: first {remote[0] * 1000:.1f} ms; {ms(remote)} ({args.calls} calls); result {size} bytes of JSON")
    print(f"match_log in process: first {local[0] * 1000:.1f} ms; {ms(local)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
