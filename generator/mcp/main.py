"""`errdex mcp`: load the records and the catalog, then serve them on stdio.

Loading is separate from serving so the benchmark and the tests can load without the SDK. Everything the
server says on stdout is protocol; problems go to stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..bundle.apidata import ApiData, SourceError, from_folder, from_records, from_url
from ..catalog.reader import bulk_load, load_catalog
from .tools import Knowledge
from ..bundle import checkout
from ..terminal import shown


def default_data() -> Path:
    return checkout.default_data() or Path("data/errors")


_mkdocs_settings = checkout.mkdocs_settings


def load_knowledge(
    api: str | None = None,
    data: Path | None = None,
    catalog: Path | None = None,
    cache_dir: Path | None = None,
    repo_url: str | None = None,
) -> Knowledge:
    """The records (from `api`, a folder or URL, else the records in `data`) and the catalog, ready to serve."""
    with bulk_load():
        return _load(api, data, catalog, cache_dir, repo_url)


def _load(api: str | None, data: Path | None, catalog: Path | None, cache_dir: Path | None, repo_url: str | None) -> Knowledge:
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
    from ..catalog.symbols import indexes

    folder = Path(catalog) / "symbols"
    return Knowledge(records, load_catalog(catalog), repo_url or settings.get("repo_url"), symbols=lambda: indexes(folder))


def serve(api: str | None, data: Path | None, catalog: Path | None, cache_dir: Path | None, repo_url: str | None) -> int:
    """Serve the knowledge bundle of the records and the catalog beside them (made now when the cache has none for
    this data, so that records that do not validate are reported before serving); its sections are read once the
    client is past the handshake (or by the first tool call, if that comes first), so the server is ready as soon
    as the protocol is. With --api or --catalog, what those name, loaded now."""
    if api is None and catalog is None:
        from ..bundle.read import open_bundle, read

        bundle = open_bundle(data, sys.stderr)
        if isinstance(bundle, str):
            sys.stderr.write(f"errdex mcp: {shown(bundle)}\n")
            return 2

        def knowledge() -> Knowledge:
            k = read(bundle)
            k.repo_url = repo_url or k.repo_url
            _report(k)
            return k
    else:
        try:
            loaded = load_knowledge(api, data, catalog, cache_dir, repo_url)
        except SourceError as exc:
            sys.stderr.write(f"errdex mcp: {shown(exc)}\n")
            return 2
        _report(loaded)
        knowledge = lambda: loaded  # noqa: E731
    from .server import run

    run(knowledge)
    return 0


def _report(knowledge: Knowledge) -> None:
    for pid, why in knowledge.matcher.skipped:
        sys.stderr.write(f"errdex mcp: pattern of {shown(pid)} skipped: {shown(why)}\n")
    if knowledge.catalog.problem_count:
        sys.stderr.write(f"errdex mcp: {knowledge.catalog.problem_count} catalog lines skipped; first: {shown(knowledge.catalog.problems[0])}\n")
