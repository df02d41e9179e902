"""Benchmark: `errdex match` at 10,000 patterns on a 100 MB log, against the naive way (run on demand:
`.venv/bin/python -m bench.match [--browser]`).

In one run, in a temporary folder:
  1. generate N realistic patterns (error messages with numbers, names and paths captured, escaped
     punctuation, optional words, a few case-insensitive) as a `match.json` built by the API's own code;
  2. generate a log of the given size: server chatter, tracebacks whose last line is one of the errors with
     values filled in, and near misses that share a pattern's fixed words but are not the error;
  3. time `errdex match --index match.json --format json LOG` as a subprocess (start-up, loading, building the
     prefilter and scanning) and report MB/s, plus the scan alone in this process;
  4. time the naive way: every line against every pattern with Python's `re`, on a sample of lines,
     extrapolated to the whole log (it would take hours otherwise; the report says so), and the ratio;
  5. with --browser, time the site's matcher page on a 500-line traceback at the same N patterns in headless
     Chromium (needs a built site: --site DIR, or it builds the fixture dataset's site).
Goals: at least 50 MB/s for `errdex match` at 10,000 patterns; 100 ms or less for the 500-line paste.
"""

from __future__ import annotations

import argparse
import copy
import functools
import http.server
import io
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
BASE = ROOT / "tests/fixtures/valid/demo/minimal.yaml"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]

WORDS = (
    "allocate block cache request tensor device memory model token batch prefill rank scheduler process group "
    "config value shape dtype kernel stream launch driver worker engine queue timeout sequence layer weight "
    "adapter lora quantization checkpoint shard pipeline parallel expert router sampler logits attention "
    "backend buffer page swap offload compile graph capture profile handle context session tokenizer vocab "
    "embedding head dimension stride offset index slot entry table manager pool executor runner loader"
).split()
PROJECTS = ["vllm", "tgi", "sglang", "llama-cpp", "transformers", "pytorch", "triton", "deepspeed", "accelerate", "flash-attn"]
EXCEPTIONS = ["ValueError", "RuntimeError", "AssertionError", "TypeError", "KeyError", "torch.OutOfMemoryError", "NotImplementedError"]
CAPTURES = [  # (pattern, value generator)
    (r"(\d+)", lambda r: str(r.randint(0, 99999))),
    (r"(\S+)", lambda r: r.choice(["req-", "seq_", "cuda:", "/tmp/", "layer."]) + str(r.randint(0, 9999))),
    (r"(-?\d+)", lambda r: str(r.randint(-9, 999))),
    (r"([\d.]+) GiB", lambda r: f"{r.uniform(0, 80):.2f} GiB"),
    (r"`([^`]*)`", lambda r: f"`{r.choice(WORDS)}_{r.randint(0, 99)}`"),
]


def _phrase(r: random.Random, n: int) -> str:
    return " ".join(r.choice(WORDS) for _ in range(n))


def synthetic_pattern(i: int, r: random.Random) -> tuple[str, str, str, str | None]:
    """(regex, message template, an instance with values, exception class) for pattern i."""
    regex, message, example = [], [], []
    head = f"{_phrase(r, r.randint(2, 4))} {i}"  # the number keeps every pattern distinct
    head = head[0].upper() + head[1:]
    regex.append(re.escape(head).replace("\\ ", " "))
    message.append(head)
    example.append(head)
    for _ in range(r.randint(1, 3)):
        words = _phrase(r, r.randint(1, 4))
        cap, gen = r.choice(CAPTURES)
        sep = r.choice([" ", ": ", " (", " = "])
        close = ")" if sep == " (" else ""
        esc = {" (": r" \(", ")": r"\)"}
        regex.append(f" {words}{esc.get(sep, sep)}{cap}{esc.get(close, close)}")
        value = gen(r)
        message.append(f" {words}{sep}" + re.sub(r"\(.*\)", "{}", cap).replace("\\d", "").replace("[.]+", "") + close)
        example.append(f" {words}{sep}{value}{close}")
    if r.random() < 0.3:
        opt = r.choice(WORDS)
        regex.append(f" (?:{opt} )?{_phrase(r, 2)}")
        tail = regex[-1][len(f" (?:{opt} )?"):]
        message.append(f" {tail}")
        example.append(f" {opt} {tail}" if r.random() < 0.5 else f" {tail}")
    if r.random() < 0.2:
        regex.append(r"\. ([^\n]+)")
        message.append(". {}")
        example.append(". " + _phrase(r, 5))
    pattern = "".join(regex)
    if r.random() < 0.03:
        pattern = "(?i)" + pattern
    return pattern, "".join(message), "".join(example), r.choice(EXCEPTIONS) if r.random() < 0.7 else None


def build_index(count: int, seed: int = 7) -> tuple[dict, list[tuple[str, str | None]]]:
    """A match.json document built by generator.api.export's own match_entry, and each pattern's example."""
    from generator.api.export import Links, match_entry, record_document
    from generator.records.model import Record

    r = random.Random(seed)
    base = yaml.safe_load(BASE.read_text(encoding="utf-8"))
    links = Links("/")
    entries, examples = [], []
    for i in range(count):
        regex, message, example, exc = synthetic_pattern(i, r)
        data = copy.deepcopy(base)
        data["id"] = f"{r.choice(PROJECTS)}/bench-error-{i:05d}"
        data["repo"] = "example-org/engine"
        data["error"].update(regex=regex, message=message, examples=[example], counter_examples=[])
        data["error"]["exception_class"] = exc
        if exc is None:
            del data["error"]["exception_class"]
        record = Record.model_validate(data)
        entries.append(match_entry(record, {}, links, record_document(record, {}, links)["card"]))
        examples.append((example, exc))
    from generator.match.rules import match_document

    return match_document(entries), examples


CHATTER = [
    "INFO {d} llm_engine.py:{n}] Avg prompt throughput: {f} tokens/s, Avg generation throughput: {f} tokens/s, Running: {n} reqs, Pending: 0 reqs, GPU KV cache usage: {f}%",
    'INFO:     127.0.0.1:{n} - "POST /v1/chat/completions HTTP/1.1" 200 OK',
    "DEBUG {d} scheduler.py:{n}] Scheduled {n} sequences, {n} tokens, preempted 0, swapped 0",
    "[{d}] Decode batch. #running-req: {n}, #token: {n}, token usage: 0.{n}, gen throughput (token/s): {f}, #queue-req: 0",
    "{d} INFO text_generation_router::server: router/src/server.rs:{n}: Success total_time=\"{f}ms\" validation_time=\"{f}µs\" queue_time=\"{f}µs\"",
    "Loading safetensors checkpoint shards: {n}% Completed | {n}/{n} [00:{n}<00:00, {f}it/s]",
    "INFO {d} model_runner.py:{n}] Graph capturing finished in {n} secs, took {f} GiB",
    "WARNING {d} config.py:{n}] Casting torch.float32 to torch.bfloat16.",
]
FRAMES = [
    '  File "/usr/local/lib/python3.11/site-packages/{p}/engine/{w}.py", line {n}, in {w}',
    "    {w} = self.{w}({w}, {w}={n})",
]


def _fill(template: str, r: random.Random) -> str:
    return (template.replace("{d}", f"01-{r.randint(1, 28):02d} {r.randint(0, 23):02d}:{r.randint(0, 59):02d}:{r.randint(0, 59):02d}")
            .replace("{n}", str(r.randint(0, 9999))).replace("{f}", f"{r.uniform(0, 999):.1f}")
            .replace("{p}", r.choice(PROJECTS)).replace("{w}", r.choice(WORDS)))


def write_log(path: Path, size: int, examples: list[tuple[str, str | None]], seed: int = 11) -> dict:
    """A log of about `size` bytes; returns how many error lines and near misses it holds."""
    r = random.Random(seed)
    chatter = [_fill(r.choice(CHATTER), r) for _ in range(20000)]
    frames = [_fill(r.choice(FRAMES), r) for _ in range(2000)]
    errors = near = 0
    with open(path, "w", encoding="utf-8") as out:
        written = 0
        while written < size:
            lines = r.choices(chatter, k=2000)
            # one traceback per ~1000 lines, one near miss (a pattern's first words, then something else) per ~500
            for _ in range(2):
                example, exc = r.choice(examples)
                tb = ["Traceback (most recent call last):", *r.choices(frames, k=6), f"{exc or 'RuntimeError'}: {example}"]
                lines.insert(r.randrange(len(lines)), "\n".join(tb))
                errors += 1
            for _ in range(4):
                example, _ = r.choice(examples)
                lines.insert(r.randrange(len(lines)), "WARNING retrying: " + " ".join(example.split()[:3]) + " was fine after all")
                near += 1
            block = "\n".join(lines) + "\n"
            out.write(block)
            written += len(block.encode("utf-8"))
    return {"bytes": path.stat().st_size, "error_lines": errors, "near_misses": near}


def time_cli(index: Path, log: Path) -> tuple[float, dict]:
    started = time.perf_counter()
    proc = subprocess.run([str(ROOT / ".venv/bin/errdex"), "match", "--index", str(index), "--format", "json", "--top", "5", str(log)],
                          capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if proc.returncode not in (0, 1):
        raise SystemExit(f"errdex match failed: {proc.stderr}")
    return elapsed, json.loads(proc.stdout)


def time_scan(index: Path, log: Path) -> tuple[float, float, int]:
    from generator.match.engine import Matcher
    from generator.match.index import load_index

    t0 = time.perf_counter()
    patterns, rules, _ = load_index(index)
    matcher = Matcher(patterns, rules=rules)
    t1 = time.perf_counter()
    with open(log, "rb") as f:
        hits = sum(1 for _ in matcher.scan(f))
    return t1 - t0, time.perf_counter() - t1, hits


def time_naive(doc: dict, log: Path, sample_lines: int) -> tuple[float, int, int, int]:
    """Every sampled line against every pattern with Python's re: (seconds, sample bytes, lines, hits)."""
    compiled = []
    for e in doc["patterns"]:
        compiled.append(re.compile(e["regex"]))
    sample = []
    with open(log, encoding="utf-8") as f:
        for line in f:
            sample.append(line.rstrip("\n"))
            if len(sample) >= sample_lines:
                break
    hits = 0
    started = time.perf_counter()
    for line in sample:
        for c in compiled:
            if c.search(line):
                hits += 1
    elapsed = time.perf_counter() - started
    return elapsed, sum(len(s.encode("utf-8")) + 1 for s in sample), len(sample), hits


def time_browser(doc: dict, examples: list[tuple[str, str | None]], site: Path | None, runs: int) -> dict:
    """The site's matcher page with `doc` as its match.json, pasting a 500-line traceback."""
    from playwright.sync_api import sync_playwright

    work = Path(tempfile.mkdtemp(prefix="errdex-bench-site-"))
    try:
        if site is None:
            from generator.cli import main

            site = work / "site"
            if main(["build", "--out", str(site), "--data", str(ROOT / "tests/fixtures/dataset"), "--quiet"]) != 0:
                raise SystemExit("the fixture site did not build")
        served = work / "served"
        shutil.copytree(site, served)
        (served / "api/match.json").write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        r = random.Random(5)
        frames = [_fill(r.choice(FRAMES), r) for _ in range(498)]
        example, exc = examples[1234 % len(examples)]
        paste = "\n".join(["Traceback (most recent call last):", *frames, f"{exc or 'RuntimeError'}: {example}"])
        handler = functools.partial(_Quiet, directory=str(served))
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                page = browser.new_page()
                page.goto(f"http://127.0.0.1:{server.server_port}/match/")
                page.wait_for_function("document.querySelector('[data-errdex-matcher]')?.dataset.state === 'ready'", timeout=60000)
                timings = []
                for i in range(runs):
                    text = paste + ("\n" * (i + 1))  # a different paste each run
                    ms = page.evaluate(
                        """(text) => new Promise((resolve) => {
                            const root = document.querySelector('[data-errdex-matcher]');
                            const area = root.querySelector('textarea');
                            const t0 = performance.now();
                            const obs = new MutationObserver(() => {
                              if (root.dataset.state === 'done' && root.dataset.input === String(text.length)) {
                                obs.disconnect(); resolve(performance.now() - t0);
                              }
                            });
                            obs.observe(root, {attributes: true, subtree: true, childList: true});
                            area.value = text;
                            area.dispatchEvent(new Event('input', {bubbles: true}));
                          })""",
                        text,
                    )
                    timings.append(ms)
                found = page.eval_on_selector_all("[data-errdex-result]", "els => els.map(e => e.dataset.id)")
                worker_ms = page.eval_on_selector("[data-errdex-matcher]", "el => Number(el.dataset.elapsed)")
                browser.close()
        finally:
            server.shutdown()
            server.server_close()
        first = timings[0]
        timings.sort()
        return {"runs": runs, "first_ms": first, "median_ms": timings[len(timings) // 2], "best_ms": timings[0], "worst_ms": timings[-1],
                "worker_ms_last": worker_ms, "found": found[:3], "lines": paste.count("\n") + 1}
    finally:
        shutil.rmtree(work, ignore_errors=True)


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--patterns", type=int, default=10_000)
    parser.add_argument("--mb", type=float, default=100.0, help="log size in MB (10^6 bytes)")
    parser.add_argument("--naive-lines", type=int, default=400, help="lines of the sample the naive way runs on")
    parser.add_argument("--browser", action="store_true", help="also time the site's matcher page in headless Chromium")
    parser.add_argument("--site", type=Path, default=None, help="a built site for --browser (default: build the fixture dataset)")
    parser.add_argument("--runs", type=int, default=7, help="pastes timed in the browser")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory(prefix="errdex-bench-") as tmp:
        folder = Path(tmp)
        t = time.perf_counter()
        doc, examples = build_index(args.patterns)
        index = folder / "match.json"
        index.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
        log = folder / "bench.log"
        facts = write_log(log, int(args.mb * 1e6), examples)
        print(f"generated {args.patterns} patterns and a {facts['bytes'] / 1e6:.1f} MB log ({facts['error_lines']} errors, "
              f"{facts['near_misses']} near misses) in {time.perf_counter() - t:.1f}s")

        size = facts["bytes"]
        cli_s, out = time_cli(index, log)
        print(f"errdex match (subprocess, all included): {cli_s:.2f}s = {size / 1e6 / cli_s:.1f} MB/s; "
              f"{out['found']} records found, top: {out['results'][0]['id'] if out['results'] else '-'}")
        build_s, scan_s, hits = time_scan(index, log)
        print(f"  in process: building the matcher {build_s:.2f}s, scanning {scan_s:.2f}s = {size / 1e6 / scan_s:.1f} MB/s, {hits} hits")

        naive_s, sample_bytes, sample_lines, naive_hits = time_naive(doc, log, args.naive_lines)
        naive_rate = sample_bytes / naive_s
        naive_total = size / naive_rate
        print(f"naive (Python re, every line x every pattern): {sample_lines} lines ({sample_bytes} bytes) x {args.patterns} patterns "
              f"took {naive_s:.2f}s = {naive_rate / 1e6:.4f} MB/s; extrapolated to the whole log: {naive_total:.0f}s "
              f"({naive_total / 3600:.1f} h) -- measured on a sample and extrapolated, not run in full")
        print(f"ratio: errdex match is {naive_total / cli_s:.0f}x faster than the naive way (end to end; "
              f"{naive_total / scan_s:.0f}x on the scan alone)")
        goal = "met" if size / 1e6 / cli_s >= 50 else "NOT met"
        print(f"goal >= 50 MB/s at {args.patterns} patterns: {goal}")

        if args.browser:
            b = time_browser(doc, examples, args.site, args.runs)
            print(f"browser: pasting a {b['lines']}-line traceback at {args.patterns} patterns: median {b['median_ms']:.1f} ms "
                  f"(first paste {b['first_ms']:.1f}, best {b['best_ms']:.1f}, worst {b['worst_ms']:.1f}, {b['runs']} runs; "
                  f"worker alone, last run {b['worker_ms_last']:.1f} ms); "
                  f"found {b['found']}; goal <= 100 ms: {'met' if b['median_ms'] <= 100 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
