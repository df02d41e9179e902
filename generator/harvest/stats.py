"""Links between curated records and catalog entries, and per-project coverage (`errdex stats`).

A record links to an entry when the entry's pattern finds one of the record's example messages (or its
message template with the holes filled in): the link is computed, never written into records, so
generator/records/model.py stays as it is. `errdex stats --links data/catalog/links.json` writes them down.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..checks.regex import compile_pattern
from .config import Project
from .templates import MIN_STABLE


def record_texts(record) -> list[str]:
    texts = [e.text for e in record.error.examples]
    texts.append(record.error.message.replace("{}", "X"))
    return texts


def projects_by_repo(projects: dict[str, Project]) -> dict[str, list[str]]:
    """repository (lowercase) -> the slugs of the projects harvested from it, in the configuration's order."""
    by_repo: dict[str, list[str]] = {}
    for slug, project in projects.items():
        for repo in sorted(project.repos()):
            by_repo.setdefault(repo, []).append(slug)
    return by_repo


def record_project(record, by_repo: dict[str, list[str]]) -> str | None:
    """The project a record belongs to: its repository's; of two projects from one repository (sglang and
    sgl-kernel), the one its folder names (sglang/...), else the first listed."""
    slugs = by_repo.get(record.repo.lower())
    if not slugs:
        return None
    folder = record.id.split("/", 1)[0]
    return folder if folder in slugs else slugs[0]


def link_records(records: Iterable, catalogs: dict[str, list[dict]], projects: dict[str, Project]) -> dict[str, list[str]]:
    """record id -> the ids of the catalog entries (of the record's own project) whose pattern finds one of its
    examples or its filled template. An entry of fewer than MIN_STABLE fixed characters ("not supported",
    "mlx-runner") explains no record: it is found inside too many messages."""
    by_repo = projects_by_repo(projects)
    links: dict[str, list[str]] = {}
    for record in records:
        slug = record_project(record, by_repo)
        if slug is None or slug not in catalogs:
            continue
        texts = record_texts(record)
        found = []
        for entry in catalogs[slug]:
            literal = entry.get("literal") or ""
            if entry.get("specificity", 0) < MIN_STABLE or not any(literal in t for t in texts):
                continue
            compiled = compile_pattern(entry["pattern"])
            if any(compiled.search(t) is not None for t in texts):
                found.append(entry["id"])
        if found:
            links[record.id] = sorted(found)
    return dict(sorted(links.items()))


@dataclass
class ProjectStats:
    project: str
    releases: int
    templates: int
    user: int
    internal: int
    records: int
    linked_user: int

    @property
    def share(self) -> float:
        return self.linked_user / self.user if self.user else 0.0


def project_stats(records: list, catalogs: dict[str, list[dict]], projects: dict[str, Project], releases: dict[str, list],
                  links: dict[str, list[str]]) -> list[ProjectStats]:
    linked = {eid for ids in links.values() for eid in ids}
    by_repo = projects_by_repo(projects)
    owners = [record_project(r, by_repo) for r in records]
    rows = []
    for slug, project in projects.items():
        entries = catalogs.get(slug, [])
        user = [e for e in entries if e["tier"] == "user"]
        rows.append(ProjectStats(
            project=slug,
            releases=len(releases.get(slug, [])),
            templates=len(entries),
            user=len(user),
            internal=len(entries) - len(user),
            records=owners.count(slug),
            linked_user=sum(1 for e in user if e["id"] in linked),
        ))
    return rows


def format_stats(rows: list[ProjectStats]) -> str:
    head = ("project", "releases", "templates", "user", "internal", "records", "user linked", "share")
    body = [(r.project, r.releases, r.templates, r.user, r.internal, r.records, r.linked_user, f"{r.share:.2%}") for r in rows]
    widths = [max(len(str(x)) for x in col) for col in zip(head, *body)]
    lines = ["  ".join(str(v).rjust(w) if i else str(v).ljust(w) for i, (v, w) in enumerate(zip(row, widths))) for row in [head, *body]]
    return "\n".join(lines) + "\n"


def write_links(links: dict[str, list[str]], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(links, indent=1, sort_keys=True) + "\n", encoding="utf-8")
