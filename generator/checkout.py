"""Where the records and settings are when a command runs from any folder.

errdex runs three ways: in a checkout (records in ./data/errors), as an editable install whose checkout is
elsewhere, and as an installed wheel with no records at all, which ships the compiled match data instead
(`BUNDLED_MATCH`, written by `errdex bundle` before the wheel is built; see the Makefile's `wheel`).
"""

from __future__ import annotations

from pathlib import Path
from typing import IO

REPOSITORY = Path(__file__).resolve().parent.parent  # the checkout an editable install runs from
BUNDLED_MATCH = Path(__file__).resolve().parent / "data" / "match.json"


def mkdocs_settings(data: Path | None) -> dict:
    """repo_url and site_url from the mkdocs.yml of the errdex checkout in use, for report links and page URLs.

    Commands start in any folder, often another project with a mkdocs.yml of its own, so the folder is chosen,
    not taken: the one holding the records (`data/errors` -> its checkout), then this code's checkout, then the
    current folder only when it is an errdex checkout itself."""
    import yaml

    roots = [Path(data).resolve().parent.parent] if data is not None else []
    roots.append(REPOSITORY)
    if Path("data/errors").is_dir():
        roots.append(Path.cwd())
    for root in roots:
        config = root / "mkdocs.yml"
        if config.is_file():
            try:
                loaded = yaml.safe_load(config.read_text(encoding="utf-8"))
            except (OSError, yaml.YAMLError):
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


def match_patterns(data: Path | None, index: str | None, log: IO[str]) -> tuple[list, dict | None, str | None] | str:
    """What `errdex match` matches with: the patterns, their ranking rules and the site's address (for absolute
    links), from `index` (a match.json file or address), else the records in `data` (or the default records),
    else the match data installed with errdex. Returns what went wrong instead, as a usage problem; findings of
    records that do not validate are written to `log`."""
    from .findings import FORMATTERS
    from .matchindex import load_index, patterns_from_records
    from .pipeline import check

    data = data or (default_data() if index is None else None)
    if index is None and data is None:
        if not BUNDLED_MATCH.is_file():
            return "no records here (data/errors) and no match data installed; pass --data or --index"
        index = str(BUNDLED_MATCH)
    if index is not None:
        try:
            return load_index(index)
        except (OSError, ValueError) as exc:
            return f"cannot read {index}: {exc}"
    if not data.is_dir():
        return f"{data} is not a folder of records"
    result = check([data], data)
    if result.failed:
        log.write(FORMATTERS["text"](result.findings, result.file_count))
        return "the records do not pass validation; fix them or pass --index"
    return patterns_from_records(result.records), None, mkdocs_settings(data).get("site_url")
