"""The README's screenshots, taken from the built site in headless Chromium: an error page, the paste page, and the
paste page's answer to a version-drift line.

Run `make screenshots` (it builds the site first), or: .venv/bin/python scripts/screenshots.py [--site site]
Writes docs/screenshots/error-page.png, paste-page.png and drift-answer.png.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "screenshots"
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run"]
ERROR_PAGE = "errors/vllm/kv-cache-insufficient-for-max-model-len/"
PASTE = """INFO 05-14 10:02:11 [gpu_model_runner.py:1624] Model loading took 14.99 GiB and 6.41 seconds
ERROR 05-14 10:02:19 [core.py:396] EngineCore failed to start.
ERROR 05-14 10:02:19 [core.py:396] Traceback (most recent call last):
ERROR 05-14 10:02:19 [core.py:396]   File "/usr/local/lib/python3.12/dist-packages/vllm/v1/core/kv_cache_utils.py", line 541, in check_enough_kv_cache_memory
ERROR 05-14 10:02:19 [core.py:396] ValueError: To serve at least one request with the models's max seq len (131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (6.87 GiB). Based on the available memory, the estimated maximum model length is 56240. Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.
"""


DRIFT = """Traceback (most recent call last):
  File "/app/download.py", line 3, in <module>
    from huggingface_hub import cached_download
ImportError: cannot import name 'cached_download' from 'huggingface_hub' (/usr/local/lib/python3.10/site-packages/huggingface_hub/__init__.py)
"""


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=ROOT / "site", help="the built site (default: site)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(args.site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_port}/"
    OUT.mkdir(parents=True, exist_ok=True)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(base + ERROR_PAGE, wait_until="networkidle")
            page.screenshot(path=str(OUT / "error-page.png"))
            page.goto(base + "match/", wait_until="networkidle")
            page.wait_for_selector("[data-errdex-matcher][data-state=ready]", timeout=30000)
            page.fill("textarea", PASTE)
            page.wait_for_selector("[data-errdex-matcher][data-state=done]", timeout=30000)
            page.screenshot(path=str(OUT / "paste-page.png"))
            page.goto(base + "match/", wait_until="networkidle")
            page.wait_for_selector("[data-errdex-matcher][data-state=ready]", timeout=30000)
            page.fill("textarea", DRIFT)
            page.wait_for_selector("[data-errdex-drift]", timeout=30000)
            page.screenshot(path=str(OUT / "drift-answer.png"))
            browser.close()
    finally:
        server.shutdown()
    print(f"wrote {OUT / 'error-page.png'}, {OUT / 'paste-page.png'} and {OUT / 'drift-answer.png'}")


if __name__ == "__main__":
    main()
