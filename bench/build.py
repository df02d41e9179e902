"""Benchmark: `errdex build` end to end (EN + ZH) against mkdocs alone on the same pages (run on demand).

    .venv/bin/python -m bench.build -n 1000 -n 10000

For each N: generates N schema-valid records (bench.validate's generator plus a pinned source snippet), then
  build   - `errdex build` in a subprocess: checks, rendering, two mkdocs builds, API, Pagefind, link check
  mkdocs  - only the two strict mkdocs builds (run the same way, in parallel) over the same rendered pages
and reports wall time, peak memory of the whole process tree, output size, and the bytes a browser downloads
for one search query (headless Chromium against the built site; skipped with --no-browser).
Goals (issue 3): build <= 2x mkdocs alone at 10,000 records; one query downloads <= 500 KB.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml

from bench.validate import BASE, synthetic_record
from generator import routes
from generator.site import build as site, facts, render
from generator.checks.pipeline import check
from generator.yamlout import dump_record

SNIPPET = [
    "def allocate(self, n_blocks: int, request_id: str) -> list[int]:",
    "    free = self.free_blocks()",
    "    if n_blocks > free:",
    "        raise ValueError(f\"Failed to allocate {n_blocks} blocks for request {request_id}\")",
    "    return self._take(n_blocks)",
]
WORDS = ("scheduler", "allocator", "tokenizer", "sampler", "engine", "worker", "kernel", "stream", "batch", "adapter")


def bench_record(i: int, base: dict) -> dict:
    rec = synthetic_record(i, base)
    rec["explanation"] += f" The {WORDS[i % 10]} and the {WORDS[(i // 10) % 10]} disagree in component c{i}."
    rec["source"] = {
        "repo": rec["repo"], "path": f"pkg/module_{i % 100}/alloc.py", "line": 104, "start_line": 101, "end_line": 105,
        "commit": "0123456789abcdef0123456789abcdef01234567", "snippet": "\n".join(SNIPPET) + "\n",
    }
    return rec


def generate(folder: Path, count: int) -> Path:
    base = yaml.safe_load(BASE.read_text(encoding="utf-8"))
    out = folder / "data" / "bench"
    out.mkdir(parents=True)
    for i in range(count):
        (out / f"error-{i:05d}.yaml").write_text(dump_record(bench_record(i, base)), encoding="utf-8")
    return folder / "data"


def _tree_rss(pid: int) -> int:
    """Resident memory of a process and all its descendants, in bytes."""
    total, stack = 0, [pid]
    while stack:
        p = stack.pop()
        try:
            with open(f"/proc/{p}/statm") as f:
                total += int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
            for task in os.listdir(f"/proc/{p}/task"):
                with open(f"/proc/{p}/task/{task}/children") as f:
                    stack.extend(int(c) for c in f.read().split())
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue
    return total


def run_measured(cmd: list[str], **kw) -> tuple[float, int, subprocess.CompletedProcess]:
    """Wall time and peak tree RSS of a command."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    peak = 0
    out_chunks: list[str] = []
    reader = threading.Thread(target=lambda: out_chunks.append(proc.stdout.read()), daemon=True)
    reader.start()
    while proc.poll() is None:
        peak = max(peak, _tree_rss(proc.pid))
        time.sleep(0.2)
    reader.join()
    elapsed = time.perf_counter() - start
    return elapsed, peak, subprocess.CompletedProcess(cmd, proc.returncode, "".join(out_chunks))


def mkdocs_alone(data: Path, work: Path) -> float:
    """The two mkdocs builds only, over the same rendered pages, as `errdex build` runs them."""
    records = check([data], data).records
    links = site.site_links()
    counts = facts.dataset_counts(records)
    configs = {}
    for lang in routes.LANGS:
        docs = work / "src" / lang
        shutil.copytree(site.DOCS / lang, docs)
        site._write_pages(docs, render.render_site_pages(records, lang, links))
        configs[lang] = site._builder_config(work, lang, docs, work / f"out-{lang}", counts, site.site_url())
    env = dict(os.environ, SOURCE_DATE_EPOCH=str(facts.source_date_epoch(records)))
    start = time.perf_counter()
    running = {lang: site._start_builder(lang, cfg, work, env) for lang, cfg in configs.items()}
    site._wait_builders(running, site.Progress(quiet=True))
    return time.perf_counter() - start


def search_bytes(root: Path, queries: list[tuple[str, str]]) -> list[tuple[str, int, int]]:
    """(query, bytes of Pagefind files, requests) for each query, each in a fresh browser context."""
    from playwright.sync_api import sync_playwright

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/"
    results = []
    args = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
        for page_path, query in queries:
            ctx = browser.new_context()
            page = ctx.new_page()
            sizes: list[int] = []
            page.on("response", lambda r: "/pagefind/" in r.url and sizes.append(len(r.body())))
            page.goto(base + page_path, wait_until="networkidle")
            page.keyboard.press("/")
            page.keyboard.type(query)
            page.wait_for_selector(".md-search-result__item", timeout=60000)
            page.wait_for_load_state("networkidle")
            results.append((f"{page_path or '/'} {query!r}", sum(sizes), len(sizes)))
            ctx.close()
        browser.close()
    server.shutdown()
    return results


def du(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def bench(n: int, browser: bool, keep: Path | None) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        data = generate(tmp_path, n)
        out = tmp_path / "site"
        build_time, peak, proc = run_measured([sys.executable, "-m", "generator", "build", "--out", str(out), "--data", str(data)])
        if proc.returncode != 0:
            raise SystemExit(f"errdex build failed:\n{proc.stdout[-3000:]}")
        mk_work = tmp_path / "mkdocs-alone"
        mk_work.mkdir()
        mk_time = mkdocs_alone(data, mk_work)
        pages = sum(1 for _ in out.rglob("index.html"))
        print(f"\nN = {n} records ({pages} HTML pages in both languages)")
        print(f"  errdex build (end to end): {build_time:8.1f} s   peak memory {peak / 2**20:7.0f} MiB")
        print(f"  mkdocs alone (EN + ZH):    {mk_time:8.1f} s   ratio {build_time / mk_time:.2f}x (goal <= 2x)")
        print(f"  output: {du(out) / 2**20:.1f} MiB in all; Pagefind bundle {du(out / 'pagefind') / 2**20:.1f} MiB; API {du(out / 'api') / 2**20:.1f} MiB")
        for line in proc.stdout.strip().splitlines():
            print(f"    | {line}")
        if browser:
            for label, size, count in search_bytes(out, [("errors/bench/error-00000/", "allocate blocks"), ("zh/", "空闲块"), ("", "scheduler")]):
                print(f"  search {label}: {size / 1024:.0f} KiB in {count} Pagefind requests (goal <= 500 KB)")
        if keep:
            shutil.rmtree(keep, ignore_errors=True)
            shutil.copytree(out, keep)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, action="append", help="number of records; repeat for several runs (default 1000)")
    parser.add_argument("--no-browser", action="store_true", help="skip the search download measurement")
    parser.add_argument("--keep", type=Path, help="copy the last built site here")
    args = parser.parse_args()
    for n in args.n or [1000]:
        bench(n, not args.no_browser, args.keep)


if __name__ == "__main__":
    main()
