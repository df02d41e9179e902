"""The site search index: Pagefind over a shadow copy of the pages (Chinese spaced, generator/site/searchtext.py),
one run per language side by side (the machine's cores), merged into one bundle at routes.SEARCH_ROOT.

Pagefind names every index and fragment file after its language and content, so the two runs' files never
clash; their shared scripts are the same bytes (checked), and their entry files are merged into one language
table. The result is what one run over both languages writes, in about half the time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from .. import routes
from . import searchtext
from ..routes import LANGS, lang_root

ENTRY = "pagefind-entry.json"


class SearchIndexError(Exception):
    """Pagefind failed or its runs cannot be merged; the message says which and why."""


def _mine(lang: str):
    """Whether a page (path relative to the site root) is `lang`'s: under its root, and under no other's."""
    root = lang_root(lang)
    others = [lang_root(other) for other in LANGS if other != lang and lang_root(other)]
    return lambda rel: rel.startswith(root) and not any(rel.startswith(o) for o in others)


def start(site: Path, work: Path, env: dict[str, str], files: list[str] | None = None,
          unmarked: set[str] | frozenset[str] = frozenset()) -> dict[str, subprocess.Popen]:
    """One Pagefind run per language, each over that language's shadow, into work/pagefind-<lang>/; the
    languages that need no spacing start first (their shadow is only links). `files`: every file of the site by
    its relative path, when the caller has walked it; `unmarked`: pages written without what marks a page to
    index (searchtext.html_pages)."""
    procs: dict[str, subprocess.Popen] = {}
    pages = searchtext.html_pages(site, files, unmarked)
    for lang in sorted(LANGS, key=lambda code: code in searchtext.SEGMENTED):
        shadow = work / f"index-shadow-{lang}"
        spaced = [lang_root(lang)] if lang in searchtext.SEGMENTED else []
        searchtext.write_shadow(site, shadow, spaced, select=_mine(lang), pages=pages)
        procs[lang] = subprocess.Popen(
            [sys.executable, "-m", "pagefind", "--site", str(shadow), "--output-path", str((work / f"pagefind-{lang}").resolve()), "--silent"],
            cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        )
    return procs


def finish(procs: dict[str, subprocess.Popen], site: Path, work: Path) -> None:
    """Wait for the runs, then merge their bundles into the site's (byte-identical from build to build)."""
    failed = []
    for lang, proc in procs.items():
        output, _ = proc.communicate()
        if proc.returncode != 0:
            failed.append(f"pagefind ({lang}) exited {proc.returncode}:\n{(output or '')[-4000:]}")
    if failed:
        raise SearchIndexError("\n".join(failed))
    out = site / routes.SEARCH_ROOT
    out.mkdir(parents=True, exist_ok=True)
    merged: dict | None = None
    for lang in sorted(procs):
        bundle = work / f"pagefind-{lang}"
        entry = json.loads((bundle / ENTRY).read_text(encoding="utf-8"))
        if merged is None:
            merged = entry
        elif {k: v for k, v in entry.items() if k != "languages"} != {k: v for k, v in merged.items() if k != "languages"}:
            raise SearchIndexError(f"the Pagefind runs disagree on {ENTRY} beyond its languages")
        else:
            merged["languages"].update(entry["languages"])
        for path in sorted(p for p in bundle.rglob("*") if p.is_file() and p.name != ENTRY):
            target = out / path.relative_to(bundle)
            if target.exists():
                if target.read_bytes() != path.read_bytes():
                    raise SearchIndexError(f"the Pagefind runs wrote two different {path.relative_to(bundle)}")
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(path, target)  # moved, not copied: the run's folder is the build's own and goes with it
    (out / ENTRY).write_text(json.dumps(merged, sort_keys=True, ensure_ascii=False, separators=(",", ":")), encoding="utf-8")
    if not (site / routes.SEARCH_SCRIPT).is_file():
        raise SearchIndexError(f"pagefind wrote no {routes.SEARCH_SCRIPT}")
