"""The catalog's tools: explain_site, diff_errors, and list_projects (records and catalog per project)."""

from __future__ import annotations

from typing import Any

from ..catalog.reader import CatalogQueryError
from ..catalog.query import diff_errors as catalog_diff
from ..catalog.query import explain_site as catalog_explain
from ..bundle.knowledge import DEFAULT_LIMIT, Knowledge, ToolInputError, page


def explain_site(k: Knowledge, package: Any, version: Any, path: Any, line: Any, limit: int = DEFAULT_LIMIT, cursor: str | None = None) -> dict[str, Any]:
    """What the catalog says is raised at `path:line` in that release of `package`."""
    try:
        out = catalog_explain(k.catalog, package, version, path, line)
    except CatalogQueryError as exc:
        raise ToolInputError(str(exc)) from None
    out["exact"], paging = page(out["exact"], limit, cursor)
    _link_records(k, out["exact"] + out["nearby"])
    return {**out, **paging}


def diff_errors(k: Knowledge, package: Any, from_version: Any, to_version: Any, limit: int = DEFAULT_LIMIT * 4, cursor: str | None = None) -> dict[str, Any]:
    """Catalog entries added, removed, reworded and moved between two releases of `package`."""
    try:
        out = catalog_diff(k.catalog, package, from_version, to_version)
    except CatalogQueryError as exc:
        raise ToolInputError(str(exc)) from None
    out["changes"], paging = page(out["changes"], limit, cursor)
    return {**out, **paging}


def _link_records(k: Knowledge, entries: list[dict[str, Any]]) -> None:
    """Name the records whose pattern matches a catalog entry's template with its holes filled, if any."""
    for entry in entries:
        sample = entry["template"].replace("{}", "0") if "template" in entry else None
        if not sample:
            continue
        with k.lock:
            found = k.matcher.scan_text(sample)
        hits = [h for h in found if k.owner(h.pattern) is None]
        if hits:
            entry["records"] = sorted({k.matcher.patterns[h.pattern].id for h in hits})


def list_projects(k: Knowledge) -> dict[str, Any]:
    """Every project with records or catalog entries: how many of each, and the catalog's release range."""
    projects: dict[str, dict[str, Any]] = {}
    for entry in k.api.index.get("errors", []):
        slug = entry["id"].split("/", 1)[0] if "/" in entry["id"] else entry["id"]
        item = projects.setdefault(slug, {"project": slug, "records": 0, "repos": []})
        item["records"] += 1
        if entry.get("repo") and entry["repo"] not in item["repos"]:
            item["repos"].append(entry["repo"])
    by_repo = {repo: slug for slug, item in projects.items() for repo in item["repos"]}
    for slug, project in k.catalog.projects.items():
        # The catalog's slug may differ from the records' folder (llama.cpp, llama-cpp): join on the repository,
        # unless the folder it finds is a catalog project of its own (sgl-kernel comes from sglang's repository).
        joined = by_repo.get(project.repository or "")
        target = slug if slug in projects or joined is None or joined in k.catalog.projects else joined
        item = projects.setdefault(target, {"project": target, "records": 0, "repos": []})
        if project.repository and project.repository not in item["repos"]:
            item["repos"].append(project.repository)
        item["catalog"] = {
            "project": slug,
            "entries": project.count(),
            "releases": len(project.releases),
            "first": project.releases[0] if project.releases else None,
            "last": project.releases[-1] if project.releases else None,
        }
        if project.package:
            item["catalog"]["package"] = project.package
    out: dict[str, Any] = {
        "projects": [projects[s] for s in sorted(projects)],
        "records": len(k.api.documents),
        "catalog_entries": sum(p.count() for p in k.catalog.projects.values()),
        "dataset_version": k.api.dataset_version,
        "source": k.api.origin,
    }
    if k.catalog.problem_count:
        out["catalog_problems"] = {"count": k.catalog.problem_count, "first": k.catalog.problems[:5]}
    return out
