"""`errdex mcp`: load the records and the catalog, then serve them on stdio.

Loading is separate from serving so the benchmark and the tests can load without the SDK. Everything the
server says on stdout is protocol; problems go to stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .api import ApiData, SourceError, from_folder, from_records, from_url
from .catalog import load_catalog
from .tools import Knowledge

REPOSITORY = Path(__file__).resolve().parents[2]  # the checkout an editable install runs from


def _mkdocs_settings() -> dict:
    """repo_url and site_url from mkdocs.yml (here, else the repository's), for report links and page URLs."""
    import yaml

    for config in (Path("mkdocs.yml"), REPOSITORY / "mkdocs.yml"):
        if config.is_file():
            try:
                data = yaml.safe_load(config.read_text(encoding="utf-8"))
            except (OSError, yaml.YAMLError):
                continue
            if isinstance(data, dict):
                return {k: data[k] for k in ("repo_url", "site_url") if isinstance(data.get(k), str)}
    return {}


def default_data() -> Path:
    here = Path("data/errors")
    return here if here.is_dir() else REPOSITORY / "data" / "errors"


def load_knowledge(
    api: str | None = None,
    data: Path | None = None,
    catalog: Path | None = None,
    cache_dir: Path | None = None,
    repo_url: str | None = None,
) -> Knowledge:
    """The records (from `api`, a folder or URL, else the records in `data`) and the catalog, ready to serve."""
    settings = _mkdocs_settings()
    site_url = settings.get("site_url")
    records: ApiData
    if api is not None and api.startswith(("http://", "https://")):
        records = from_url(api, cache_dir)
    elif api is not None:
        records = from_folder(Path(api), site_url)
    else:
        data = data or default_data()
        records = from_records(data, site_url)
    if catalog is None:
        beside = (data or default_data()).parent / "catalog"
        catalog = beside if beside.is_dir() else Path("data/catalog")
    return Knowledge(records, load_catalog(catalog), repo_url or settings.get("repo_url"))


def serve(api: str | None, data: Path | None, catalog: Path | None, cache_dir: Path | None, repo_url: str | None) -> int:
    try:
        knowledge = load_knowledge(api, data, catalog, cache_dir, repo_url)
    except SourceError as exc:
        sys.stderr.write(f"errdex mcp: {exc}\n")
        return 2
    for pid, why in knowledge.matcher.skipped:
        sys.stderr.write(f"errdex mcp: pattern of {pid} skipped: {why}\n")
    if knowledge.catalog.problem_count:
        sys.stderr.write(f"errdex mcp: {knowledge.catalog.problem_count} catalog lines skipped; first: {knowledge.catalog.problems[0]}\n")
    from .server import run

    run(knowledge)
    return 0
