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


def _mkdocs_settings(data: Path | None) -> dict:
    """repo_url and site_url from the mkdocs.yml of the errdex checkout in use, for report links and page URLs.

    Clients start the server in any folder, often another project with a mkdocs.yml of its own, so the folder
    is chosen, not taken: the one holding the records (`data/errors` -> its checkout), then this code's
    checkout, then the current folder only when it is an errdex checkout itself."""
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
    if api is None:
        data = data or default_data()
    settings = _mkdocs_settings(data)
    site_url = settings.get("site_url")
    records: ApiData
    if api is not None and api.startswith(("http://", "https://")):
        records = from_url(api, cache_dir)
    elif api is not None:
        records = from_folder(Path(api), site_url)
    else:
        records = from_records(data, site_url)
    if catalog is None:  # data/catalog beside the records (an empty catalog when there is none)
        catalog = (data or default_data()).parent / "catalog"
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
