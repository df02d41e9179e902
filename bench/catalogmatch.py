"""Benchmark: the paste page against the whole catalog (run on demand: `.venv/bin/python -m bench.catalogmatch`).

  1. write the browser's catalog match files for data/catalog (generator/api/catalogmatch.py) and report their sizes;
  2. make a 500-line, real-looking vLLM log: startup chatter from the catalog's own log messages (values filled
     in, the usual repeats), a traceback repeated per worker whose frames are real raise sites, and the error;
  3. serve the fixture site (built here, or --site DIR) with those files in its API, paste the log in headless
     Chromium, and count the bytes fetched before the first answer (gzip, as a server would send them) and
     time the answer (median of --runs pastes; the first paste, which fetches the shards, is reported apart).
Goals: at most 1.5 MB (gzip) before the first match; at most 100 ms (median) for the 500-line paste.
"""

from __future__ import annotations

import argparse
import base64
import gzip
import json
import random
import re
import shutil
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORD = re.compile(r"[A-Za-z0-9_]+")


def _fill(template: str, r: random.Random) -> str:
    values = ["8", "4096", "cuda:0", "Qwen/Qwen2.5-7B-Instruct", "bfloat16", "0.90", "auto", "FLASH_ATTN", "True"]
    return re.sub(r"\{\}", lambda _: r.choice(values), template)


def traceback_500(catalog: Path, lines: int = 500, seed: int = 3) -> str:
    """A real-looking vLLM log of `lines` lines: chatter (60 distinct log messages of the catalog, repeated),
    then a traceback (40 frames at real raise sites) printed once per worker, then the error line."""
    r = random.Random(seed)
    entries = [json.loads(line) for line in (catalog / "vllm.jsonl").open(encoding="utf-8")]
    present = [e for e in entries if any(a <= "0.11.0" for a, _ in e["releases"]) and "\n" not in e["template"]]
    logs = r.sample([e for e in present if e["kind"] == "log"], 60)
    raises = r.sample([e for e in present if e["kind"] == "raise" and e["sites"]], 41)
    frames = []
    for e in raises[:40]:
        site = e["sites"][-1]
        frames.append(f'  File "/usr/local/lib/python3.12/site-packages/{site["path"]}", line {site["line"]}, in {e["function"] or "<module>"}')
        frames.append("    " + site["statement"].splitlines()[0].strip()[:160])
    last = raises[40]
    tb = ["Traceback (most recent call last):", *frames, f"{last['exception'] or 'RuntimeError'}: {_fill(last['template'], r)}"]
    out: list[str] = []
    while len(out) < lines - 2 * len(tb):
        e = r.choice(logs[:20]) if r.random() < 0.6 else r.choice(logs)
        where = e["sites"][-1]["path"].rsplit("/", 1)[-1] + ":" + str(e["sites"][-1]["line"])
        out.append(f"{(e['level'] or 'info').upper()} 05-01 10:{len(out) // 60:02d}:{len(out) % 60:02d} [{where}] {_fill(e['template'], r)}")
    for worker in range(2):
        out += [f"(VllmWorker rank={worker}) {line}" for line in tb]
    return "\n".join(out[:lines]) + "\n"


def shard_keys(index: dict, text: str, files: dict[str, bytes] | None = None) -> set[str]:
    """The probe pieces and shards the page fetches for `text`, step for step as errdex-match-catalog.js chooses
    them (`files`: the catalog match files by API path, to read the pieces from)."""
    from generator.routes import api_path

    tokens: dict[str, list[tuple[str, str]]] = {}
    always = [(f"m{n}", p) for n, _token, probes in index["always"] for p in probes]
    words = {token for line in text.split("\n") for token in WORD.findall(line)}
    keys: set[str] = set()
    from generator.api.catalogmatch import filter_holds
    from generator.api.export import decode_file

    filt = index["token_filter"]
    bits = base64.b64decode(filt["data"])
    words = {t for t in words if filter_holds(filt, t, bits)}
    for k in sorted({zlib.crc32(t.encode("utf-8")) % index["message_shards"] % index["pieces"] for t in words}):
        if k not in index["pieces_written"]:
            continue
        keys.add(f"p{k}")
        path = api_path("catalog_match_shard", f"p{k}")
        piece = decode_file(path, files[path]) if files else {}
        for n, group in piece.items():
            for token, probes in group.items():
                tokens.setdefault(token, []).extend((f"m{n}", p) for p in probes)
    for line in text.split("\n"):
        line = line.removesuffix("\r")
        for token in set(WORD.findall(line)):
            keys.update(k for k, p in tokens.get(token, ()) if p in line)
        keys.update(k for k, p in always if p in line)
    frame = re.compile(index["frame"])
    for m in list(frame.finditer(text))[: index["max_frames"]]:
        key = f"{m[1].replace(chr(92), '/').rsplit('/', 1)[-1]}:{m[2]}"
        n = zlib.crc32(key.encode("utf-8")) % index["site_shards"]
        if n in index["site_shards_written"]:
            keys.add(f"t{n}")
    return keys


def main(argv: list[str] | None = None) -> int:
    from generator.api.catalogmatch import catalog_match_files
    from generator.routes import api_path

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--catalog", type=Path, default=ROOT / "data" / "catalog")
    parser.add_argument("--site", type=Path, default=None, help="a built site (default: build the fixture dataset)")
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args(argv)

    files = catalog_match_files(args.catalog)
    gz = {path: len(body) if path.endswith(".gz") else len(gzip.compress(body, 6)) for path, body in files.items()}  # shards are stored gzipped
    index_path = api_path("catalog_match_index")
    print(f"catalog match files: {len(files)}, {sum(gz.values()):,} bytes gzipped (as stored or served); "
          f"index {len(files[index_path]):,} bytes ({gz[index_path]:,} gzip)")
    paste = traceback_500(args.catalog)
    keys = shard_keys(json.loads(files[index_path]), paste, files)
    print(f"paste: {paste.count(chr(10))} lines; probe pieces and shards it needs: {len(keys)} "
          f"({sum(gz[api_path('catalog_match_shard', k)] for k in keys):,} bytes gzip)")

    work = Path(tempfile.mkdtemp(prefix="errdex-bench-catalog-"))
    try:
        site = args.site
        if site is None:
            from generator.cli import main as cli

            site = work / "site"
            if cli(["build", "--out", str(site), "--data", str(ROOT / "tests/fixtures/dataset"), "--quiet"]) != 0:
                raise SystemExit("the fixture site did not build")
        served = work / "served"
        shutil.copytree(site, served)
        shutil.rmtree(served / "api" / "catalog" / "match", ignore_errors=True)
        for rel, body in files.items():
            (served / "api" / rel).parent.mkdir(parents=True, exist_ok=True)
            (served / "api" / rel).write_bytes(body)
        result = _time_page(served, paste, args.runs)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"browser: fetched before the first match: {result['bytes_gzip']:,} bytes gzip in {result['requests']} files "
          f"(match.json, the catalog index, {result['shards']} shards)")
    print(f"browser: first paste (fetching its shards) {result['first_ms']:.1f} ms; then median {result['median_ms']:.1f} ms "
          f"over {result['runs']} pastes (best {result['best_ms']:.1f}, worst {result['worst_ms']:.1f}); worker {result['worker_ms']:.1f} ms")
    print(f"browser: first results: {', '.join(result['found'][:3])}; catalog results: {result['catalog']}; traceback: {result['fit']}")
    return 0


TIME_PASTE = """(text) => new Promise((resolve) => {
  const root = document.querySelector('[data-errdex-matcher]');
  const area = root.querySelector('textarea');
  const t0 = performance.now();
  const obs = new MutationObserver(() => {
    if (root.dataset.state === 'done' && root.dataset.input === String(text.length)) { obs.disconnect(); resolve(performance.now() - t0); }
  });
  obs.observe(root, {attributes: true, subtree: true, childList: true});
  area.value = text;
  area.dispatchEvent(new Event('input', {bubbles: true}));
})"""


def _time_page(served: Path, paste: str, runs: int) -> dict:
    from playwright.sync_api import sync_playwright

    from bench.match import ARGS, CHROMIUM
    from tests.conftest import serving

    fetched: list[str] = []
    with serving(served) as url, sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page()
        page.on("requestfinished", lambda req: "/api/" in req.url and fetched.append(req.url))
        page.goto(url + "match/")
        page.wait_for_function("document.querySelector('[data-errdex-matcher]')?.dataset.state === 'ready'", timeout=60000)
        first = page.evaluate(TIME_PASTE, paste)
        before = list(fetched)
        timings = [page.evaluate(TIME_PASTE, paste + "\n" * (i + 1)) for i in range(runs)]
        found = page.eval_on_selector_all("[data-errdex-result]", "els => els.map(e => e.dataset.id)")
        catalog = page.eval_on_selector_all("[data-errdex-catalog-result]", "els => els.length")
        fit = page.eval_on_selector("[data-errdex-matcher-fit]", "el => el.textContent")
        worker = page.eval_on_selector("[data-errdex-matcher]", "el => Number(el.dataset.elapsed)")
        browser.close()
    size = 0
    for address in before:
        rel = address.split("/api/", 1)[1]
        size += len(gzip.compress((served / "api" / rel).read_bytes(), 6))
    timings.sort()
    return {"bytes_gzip": size, "requests": len(before), "shards": sum("/catalog/match/" in a and not a.endswith("index.json") for a in before),
            "first_ms": first, "median_ms": timings[len(timings) // 2], "best_ms": timings[0], "worst_ms": timings[-1],
            "runs": runs, "worker_ms": worker, "found": found, "catalog": catalog, "fit": fit}


if __name__ == "__main__":
    raise SystemExit(main())
