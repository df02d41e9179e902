"""Facts about a dataset that a build needs besides its pages: the home pages' counts, a reproducible build
timestamp, and the redirects that keep legacy ids resolving."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import dataclass
from typing import Any

from .. import routes
from ..records.model import Record
from ..records.vocabulary import SEVERITIES


def dataset_counts(records: list[Record]) -> dict[str, Any]:
    """Counts for the home pages (handed to mkdocs-macros as `errdex` in config.extra)."""
    severity = Counter(r.error.severity for r in records)
    return {
        "errors": len(records),
        "projects": len({r.repo for r in records}),
        "categories": len({r.category for r in records}),
        "tags": len({t for r in records for t in r.tags}),
        "with_source": sum(1 for r in records if r.source is not None),
        "translated": sum(1 for r in records if r.explanation_zh is not None),
        "severity": {s: severity.get(s, 0) for s in SEVERITIES},
    }


def source_date_epoch(records: list[Record]) -> int:
    """A build timestamp taken from the data (the newest last_updated), never from the clock."""
    dates = [r.provenance.last_updated for r in records] or ["2026-01-01"]
    day = dt.date.fromisoformat(max(dates))
    return int(dt.datetime(day.year, day.month, day.day, tzinfo=dt.timezone.utc).timestamp())


def alias_redirects(records: list[Record]) -> dict[str, str]:
    """URL of each alias's page (relative to a language root) -> URL of its record's page, so legacy ids keep
    resolving."""
    out = {}
    ids = {r.id for r in records}
    for r in records:
        for alias in r.aliases:
            if alias not in ids:
                out[routes.page_url("error", alias)] = routes.page_url("error", r.id)
    return out


@dataclass(frozen=True)
class RecordFacts:
    """What the catalog's pages and files say of a record that explains an entry: its title in each language and
    its message. The catalog's share of a build reads records through these alone, so that a hash of them
    (generator.site.catalogbuild) says when that share must be made again."""

    title: dict[str, str]
    message: str


def record_facts(records: list[Record]) -> dict[str, RecordFacts]:
    from ..labels import page_title

    return {r.id: RecordFacts({lang: page_title(r, lang) for lang in routes.LANGS}, r.error.message) for r in records}
