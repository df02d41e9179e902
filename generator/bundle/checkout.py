"""Where the records and settings are when a command runs from any folder.

errdex runs three ways: in a checkout (records in ./data/errors), as an editable install whose checkout is
elsewhere, and as an installed wheel with no records at all, which ships the knowledge bundle instead
(generator.bundle.WHEEL_BUNDLE, written by `errdex bundle` before the wheel is built; see the Makefile's `wheel`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]  # the checkout an editable install runs from


def mkdocs_settings(data: Path | None, cache: Path | None = None) -> dict:
    """repo_url and site_url from the mkdocs.yml of the errdex checkout in use, for report links and page URLs.

    Commands start in any folder, often another project with a mkdocs.yml of its own, so the folder is chosen,
    not taken: the one holding the records (`data/errors` -> its checkout), then this code's checkout, then the
    current folder only when it is an errdex checkout itself. What was read is remembered in the cache under what
    the file system says of those files (generator.cachedir.stat_text), so that an answer reads no YAML (importing
    the YAML parser alone took 20 ms of every answer) until one of them changes."""
    from ..cachedir import default_cache, remembered, stat_text

    roots = [Path(data).resolve().parent.parent] if data is not None else []
    roots.append(REPOSITORY)
    if Path("data/errors").is_dir():
        roots.append(Path.cwd())
    configs = [root / "mkdocs.yml" for root in roots]
    h, newest = hashlib.sha256(b"errdex mkdocs settings 1\n"), 0
    for config in configs:
        try:
            st = config.stat()
        except OSError:
            h.update(f"{config}\0absent\n".encode("utf-8", "surrogateescape"))
            continue
        newest = max(newest, st.st_ctime_ns)
        h.update((stat_text(str(config), st) + "\n").encode("utf-8", "surrogateescape"))
    return remembered((cache or default_cache()) / "settings" / h.hexdigest(), newest, lambda: _read_settings(configs),
                      _remembered, lambda found: json.dumps(found, sort_keys=True).encode("utf-8"))


def _remembered(memo: Path) -> dict | None:
    """The settings a memo holds; None when there is none or it holds anything else."""
    try:
        found = json.loads(memo.read_bytes())
    except (OSError, ValueError):
        return None
    ok = isinstance(found, dict) and all(k in ("repo_url", "site_url") and isinstance(v, str) for k, v in found.items())
    return found if ok else None


def _read_settings(configs: list[Path]) -> dict:
    from ..yamlout import YAMLError, safe_load

    for config in configs:
        if config.is_file():
            try:
                loaded = safe_load(config.read_text(encoding="utf-8"))
            except (OSError, YAMLError):
                continue
            if isinstance(loaded, dict):
                return {k: loaded[k] for k in ("repo_url", "site_url") if isinstance(loaded.get(k), str)}
    return {}


def default_data() -> Path | None:
    """The records to use when none are named: ./data/errors, else the checkout's; None outside any checkout."""
    for candidate in (Path("data/errors"), REPOSITORY / "data" / "errors"):
        if candidate.is_dir():
            return candidate
    return None
