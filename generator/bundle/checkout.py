"""Where the records and settings are when a command runs from any folder.

errdex runs three ways: in a checkout (records in ./data/errors), as an editable install whose checkout is
elsewhere, and as an installed wheel with no records at all, which ships the knowledge bundle instead
(generator.bundle.WHEEL_BUNDLE, written by `errdex bundle` before the wheel is built; see the Makefile's `wheel`).
"""

from __future__ import annotations

from pathlib import Path

REPOSITORY = Path(__file__).resolve().parents[2]  # the checkout an editable install runs from


def mkdocs_settings(data: Path | None) -> dict:
    """repo_url and site_url from the mkdocs.yml of the errdex checkout in use, for report links and page URLs.

    Commands start in any folder, often another project with a mkdocs.yml of its own, so the folder is chosen,
    not taken: the one holding the records (`data/errors` -> its checkout), then this code's checkout, then the
    current folder only when it is an errdex checkout itself."""
    from ..yamlout import YAMLError, safe_load

    roots = [Path(data).resolve().parent.parent] if data is not None else []
    roots.append(REPOSITORY)
    if Path("data/errors").is_dir():
        roots.append(Path.cwd())
    for root in roots:
        config = root / "mkdocs.yml"
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
