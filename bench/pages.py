"""Benchmark: what a reader's browser downloads and waits for (run on demand: `.venv/bin/python -m bench.pages`).

Over a built site (--site DIR; default: build the repository's own data into a temporary folder), in headless
Chromium at 1280x800, it reports side by side:
  1. the paste page before anything is pasted: the bytes of every file it fetches (gzip, as `errdex serve` sends
     them) and the time until the matcher is ready;
  2. a one-line paste there (the cut-off CUDA out-of-memory line): the further bytes, the time to the answer, and
     where the first card's fix ends on the first screen (its bottom edge, in pixels from the top);
  3. the header search: "CUDA out of memory" typed on the home page: the bytes fetched and the time from the last
     key to the results, and the rank of the CUDA out-of-memory record;
  4. the same search in Chinese (显存不足): the rank of the CUDA out-of-memory record;
  5. the cut-off out-of-memory line pasted into the header search (the matcher is asked too): bytes and time;
  6. a version-drift line on the paste page (DRIFT_LINE): the drift files it fetches, and the time to its answer.
Goals (issue 26): the paste page at most 600 KB before a paste; a search at most 300 KB and answered within 1 s of
the last key; the first card's fix above 800 px.
"""

from __future__ import annotations

import argparse
import gzip
import shutil
import statistics
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OOM_LINE = "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB"
OOM_ID = "pytorch/cuda-out-of-memory"
DRIFT_LINE = "ImportError: cannot import name 'cached_download' from 'huggingface_hub' (/usr/local/lib/python3.10/site-packages/huggingface_hub/__init__.py)"


def _gzip_bytes(site: Path, url: str, base: str) -> int:
    """A fetched file's size as a server that compresses sends it (gzip level 6)."""
    rel = url[len(base):].split("?", 1)[0].split("#", 1)[0]
    path = site / rel
    if rel.endswith("/") or path.is_dir():
        path = path / "index.html"
    return len(gzip.compress(path.read_bytes(), 6)) if path.is_file() else 0


def _paste_page(page, base: str, site: Path) -> dict:
    fetched: list[str] = []
    page.on("requestfinished", lambda r: fetched.append(r.url))
    t0 = time.perf_counter()
    page.goto(base + "match/")
    page.wait_for_function("document.querySelector('[data-errdex-matcher]')?.dataset.state === 'ready'", timeout=60000)
    ready = time.perf_counter() - t0
    before = [u for u in fetched if u.startswith(base)]
    t1 = time.perf_counter()
    page.fill("textarea", OOM_LINE)
    page.wait_for_function(f"document.querySelector('[data-errdex-matcher]').dataset.input === '{len(OOM_LINE)}' && "
                           "document.querySelector('[data-errdex-matcher]').dataset.state === 'done'", timeout=60000)
    answered = time.perf_counter() - t1
    after = [u for u in fetched if u.startswith(base)][len(before):]
    fix = page.eval_on_selector(".errdex-card [data-errdex-fix]", "e => Math.round(e.getBoundingClientRect().bottom)")
    first = page.eval_on_selector(".errdex-card", "e => e.dataset.id")
    return {"before_kb": sum(_gzip_bytes(site, u, base) for u in before) / 1000, "before_files": len(before), "ready_s": ready,
            "paste_kb": sum(_gzip_bytes(site, u, base) for u in after) / 1000, "paste_files": len(after),
            "answer_s": answered, "fix_bottom": fix, "first": first}


def _drift(page, base: str, site: Path) -> dict:
    fetched: list[str] = []
    page.on("requestfinished", lambda r: fetched.append(r.url))
    page.goto(base + "match/")
    page.wait_for_function("document.querySelector('[data-errdex-matcher]')?.dataset.state === 'ready'", timeout=60000)
    before = len(fetched)
    t0 = time.perf_counter()
    page.fill("textarea", DRIFT_LINE)
    page.wait_for_function(f"document.querySelector('[data-errdex-matcher]').dataset.input === '{len(DRIFT_LINE)}' && "
                           "document.querySelector('[data-errdex-matcher]').dataset.state === 'done'", timeout=60000)
    answered = time.perf_counter() - t0
    drift = [u for u in fetched[before:] if "/api/drift/" in u]
    return {"kb": sum(_gzip_bytes(site, u, base) for u in drift) / 1000, "files": len(drift), "answer_s": answered,
            "answered": page.locator("[data-errdex-drift]").count()}


def _search(page, base: str, site: Path, lang: str, query: str) -> dict:
    page.goto(base + ("zh/" if lang == "zh" else ""))
    page.wait_for_load_state("networkidle")
    fetched: list[str] = []
    page.on("requestfinished", lambda r: fetched.append(r.url))
    # the answer's time: from the last key to the last change of the result list (the list's final content)
    page.evaluate("""() => { window.__last = 0; new MutationObserver(() => { window.__last = performance.now(); })
      .observe(document.querySelector('.md-search-result__list'), {childList: true, subtree: true, characterData: true}); }""")
    page.focus("[data-errdex-search-input]")
    page.keyboard.type(query, delay=30)
    key = page.evaluate("performance.now()")
    page.wait_for_function("document.querySelectorAll('.md-search-result__list li').length > 0", timeout=30000)
    page.wait_for_load_state("networkidle")
    page.wait_for_timeout(500)
    answered = (page.evaluate("window.__last") - key) / 1000
    links = page.eval_on_selector_all(".md-search-result__list .md-search-result__link", "els => els.map(e => e.href)")
    rank = next((i + 1 for i, href in enumerate(links) if OOM_ID in href), None)
    got = [u for u in fetched if u.startswith(base)]
    return {"kb": sum(_gzip_bytes(site, u, base) for u in got) / 1000, "files": len(got), "answer_s": answered, "rank": rank}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=None, help="a built site (default: build data/ into a temporary folder)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)
    from playwright.sync_api import sync_playwright

    from bench.match import ARGS, CHROMIUM
    from tests.conftest import serving

    work = Path(tempfile.mkdtemp(prefix="errdex-bench-pages-"))
    try:
        site = args.site
        if site is None:
            from generator.cli import main as cli

            site = work / "site"
            if cli(["build", "--out", str(site), "--quiet"]) != 0:
                raise SystemExit("the site did not build")
        runs: list[dict] = []
        with serving(site) as base, sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            for _ in range(args.runs):
                context = browser.new_context(viewport={"width": 1280, "height": 800})
                one = {"paste": _paste_page(context.new_page(), base, site)}
                one["search"] = _search(context.new_page(), base, site, "en", "CUDA out of memory")
                one["search_zh"] = _search(context.new_page(), base, site, "zh", "显存不足")
                one["search_paste"] = _search(context.new_page(), base, site, "en", OOM_LINE)
                one["drift"] = _drift(context.new_page(), base, site)
                context.close()
                runs.append(one)
            browser.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def med(part: str, key: str) -> float:
        return statistics.median(r[part][key] for r in runs)

    last = runs[-1]
    print(f"paste page before a paste: {med('paste', 'before_kb'):,.0f} KB gzip in {last['paste']['before_files']} files "
          f"(goal 600), ready in {med('paste', 'ready_s'):.2f} s")
    print(f"one-line paste: {med('paste', 'paste_kb'):,.0f} KB more in {last['paste']['paste_files']} files, answered in "
          f"{med('paste', 'answer_s'):.2f} s; first card {last['paste']['first']}, its fix ends at y = {last['paste']['fix_bottom']} (goal < 800)")
    print(f"search 'CUDA out of memory': {med('search', 'kb'):,.0f} KB gzip in {last['search']['files']} files (goal 300), "
          f"answered {med('search', 'answer_s'):.2f} s after the last key (goal 1); the record ranks {last['search']['rank']}")
    print(f"search '显存不足': {med('search_zh', 'kb'):,.0f} KB gzip, {med('search_zh', 'answer_s'):.2f} s; the record ranks {last['search_zh']['rank']}")
    print(f"search with the pasted line: {med('search_paste', 'kb'):,.0f} KB gzip in {last['search_paste']['files']} files, "
          f"{med('search_paste', 'answer_s'):.2f} s; the record ranks {last['search_paste']['rank']}")
    print(f"a version-drift line on the paste page: {med('drift', 'kb'):,.0f} KB gzip of drift data in {last['drift']['files']} files, "
          f"answered in {med('drift', 'answer_s'):.2f} s ({last['drift']['answered']} drift answer)")
    print(f"(median of {args.runs} runs in a fresh browser context each)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
