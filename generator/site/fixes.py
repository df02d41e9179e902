"""The fixes of an error page, with the numbers counted from their linked reports (generator.records.evidence).

A solution, workaround or dead end with reports reads "Worked in 3 of 4 reports" with each report linked; a bar and
its Wilson interval appear only from MIN_REPORTS_FOR_BAR reports; without reports there is no number.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..records.evidence import Tally
from ..labels import LABELS
from .markup import clean, percent, pick, safe_url
from ..records.model import Record


DATASETS = {"deadends": "deadends.dev", "errlookup": "ErrLookup"}


def tally_view(t: Tally, lang: str, reports: Iterable[Any] = ()) -> dict[str, Any]:
    """A tally as the page shows it: a sentence ("Worked in 3 of 4 reports"), the reports with their links, and
    a bar with its interval only from MIN_REPORTS_FOR_BAR reports (generator.records.evidence)."""
    L = LABELS[lang]
    failing = t.fix.startswith("/dead_ends/")
    words = L["report_one"] if t.reports == 1 else L["report_many"]
    sentence = L["failed_in" if failing else "worked_in"].format(k=t.counted, n=t.reports, reports=words)
    if t.partial:
        sentence += " " + L["partly"].format(p=t.partial)
    low, high = t.interval or (0.0, 0.0)
    return {
        "sentence": sentence,
        "drawn": t.drawn,
        "share": t.share or 0.0,
        "kind": "fail" if failing else "success",
        "interval": L["interval"].format(low=percent(low), high=percent(high)),
        "reports": [
            {"url": safe_url(r.url), "outcome": r.outcome, "outcome_label": L[f"outcome_{r.outcome}"], "date": r.date,
             "version": clean(r.version) if r.version else "", "quote": clean(r.quote) if r.quote else ""}
            for r in reports
        ],
    }


def tally_of(record: Record, fix: str, counted: dict[str, Tally], lang: str) -> dict[str, Any] | None:
    t = counted.get(fix)
    return None if t is None else tally_view(t, lang, (r for r in record.reports if r.fix == fix))


def fix_items(record: Record, kind: str, text: str, lang: str, counted: dict[str, Tally]) -> list[dict[str, Any]]:
    """Dead ends (explained by why_fails) or workarounds (how), each with the tally of its linked reports."""
    return [
        {
            "action": pick(d, "action", lang),
            "text": pick(d, text, lang),
            "condition": pick(d, "condition", lang),
            "tally": tally_of(record, f"/{kind}/{i}", counted, lang),
            "sources": [u for u in (safe_url(x) for x in d.sources) if u],
        }
        for i, d in enumerate(getattr(record, kind))
    ]


def estimate_text(e: Any) -> str:
    return str(int(e.value)) if e.kind == "evidence_count" else percent(min(e.value, 1.0))
