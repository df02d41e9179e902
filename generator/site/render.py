"""Records -> page Markdown, per language (pure functions; nothing here knows about mkdocs).

Which pages exist, and where, is generator/routes.py's; the words are generator/labels.py's; making record
text safe for a page is generator/site/markup.py's. This module builds each page's context and renders its template.

Record text is untrusted: every record field reaches the page as escaped HTML inside raw HTML blocks, so neither
Markdown nor any template engine parses it. Only the section headings (fixed strings) are Markdown, for the contents.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from .. import routes
from ..labels import LABELS, VALUE_LABELS, category_label, page_title
from ..records.evidence import best_fix, overall, tallies
from .fixes import DATASETS, estimate_text, fix_items, tally_of, tally_view
from .markup import clean, code_block, diff_block, env, pick, pick_all, safe_url, snippet_block
from ..records.model import RELATIONS, Record
from ..records.vocabulary import SEVERITIES
from ..routes import PAGES, relative


@dataclass(frozen=True)
class SiteLinks:
    """Where a record's source file can be edited and problems reported (from mkdocs.yml's repo_url/edit_uri)."""

    repo_url: str | None = None
    edit_uri: str | None = None

    def edit_url(self, record_id: str) -> str | None:
        if not self.repo_url or self.edit_uri is None:
            return None
        base = self.repo_url.rstrip("/") + "/" + self.edit_uri.strip("/")
        return f"{base}/{routes.record_file(record_id)}"

    def report_url(self, record_id: str, page: str) -> str | None:
        """The correction form, with the record and the page filled in."""
        if not self.repo_url:
            return None
        labels = LABELS["en"]
        return routes.issue_form(self.repo_url, "correction", {
            "title": labels["report_title"].format(id=record_id),
            "record": record_id,
            "details": labels["report_body"].format(id=record_id, page=page),
        })

    def fix_report_url(self, record_id: str, fix: str, outcome: str, page: str) -> str | None:
        """The fix-report form for the fix at JSON pointer `fix` ("/solutions/0"), with the outcome filled in."""
        if not self.repo_url:
            return None
        return routes.issue_form(self.repo_url, "fix_report", {
            "title": f"Fix report: {record_id} {fix} {outcome}",
            "record": record_id,
            "fix": fix,
            "outcome": outcome,
            "page": page,
        })


@dataclass
class Dataset:
    """The records plus the lookup pages need: canonical ids for aliases."""

    records: list[Record]
    by_id: dict[str, Record] = field(default_factory=dict)
    canonical: dict[str, str] = field(default_factory=dict)
    same_failure: dict[str, list[str]] = field(default_factory=dict)  # id -> the other records of its same-failure group

    def __post_init__(self) -> None:
        self.by_id = {r.id: r for r in self.records}
        for r in self.records:
            self.canonical[r.id] = r.id
        for r in self.records:
            for alias in r.aliases:
                self.canonical.setdefault(alias, r.id)
        # same_failure links make groups: every record of a group shows all the others, whichever side listed them
        group = {r.id: {r.id} for r in self.records}
        for r in self.records:
            for name in r.related.same_failure:
                target = self.canonical.get(name)
                if target is not None and group[target] is not group[r.id]:
                    merged = group[r.id] | group[target]
                    for member in merged:
                        group[member] = merged
        for rid, members in group.items():
            if len(members) > 1:
                self.same_failure[rid] = sorted(members - {rid})

    def resolve(self, name: str) -> Record | None:
        target = self.canonical.get(name)
        return self.by_id.get(target) if target else None


class _Page:
    """Where a page is, and links from it to any route."""

    def __init__(self, route: str, key: str | None, lang: str):
        self.lang = lang
        self.url = routes.page_url(route, key, lang)

    def link(self, route: str, key: str | None = None) -> str:
        """A relative link to a page of this page's language."""
        return relative(self.url, routes.page_url(route, key, self.lang))

    def api(self, name: str, key: str | None = None) -> str:
        """A relative link to an API file."""
        return relative(self.url, routes.api_url(name, key))


# ---------------------------------------------------------------- the error page


def _description(record: Record, lang: str) -> str:
    text = pick(record, "explanation", lang)
    assert text is not None
    words = " ".join(text.text.split())
    return words if len(words) <= 200 else words[:199] + "…"


def _source(record: Record) -> dict[str, Any] | None:
    s = record.source
    if s is None:
        return None
    return {
        "where": f"{s.path}:{s.line}",
        "snippet": snippet_block(record),
        "permalink": safe_url(record.permalink()),
        "commit_short": s.commit[:10],
        "start": s.start_line,
        "end": s.end_line,
        "line": s.line,
    }


def _example_fix(record: Record, lang: str) -> dict[str, Any] | None:
    fix = record.example_fix
    if fix is None:
        return None
    return {
        "before": code_block(fix.before, fix.language or "python"),
        "after": code_block(fix.after, fix.language or "python"),
        "note": pick(fix, "note", lang),
        "diff": diff_block(fix.before, fix.after),
    }


def _handling(record: Record, lang: str) -> dict[str, Any] | None:
    h = record.handling
    if h is None:
        return None
    s = record.source
    lang_code = (s.language if s and s.language else None) or "python"
    return {
        # "validation" is also an error type, with another label
        "strategy": VALUE_LABELS[lang]["validation_strategy" if h.strategy == "validation" else h.strategy],
        "blocks": [
            (key, code_block(code, lang_code))
            for key, code in (("validate_before", h.validate_before), ("type_guard", h.type_guard), ("try_catch", h.try_catch))
            if code
        ],
    }


def _versions(record: Record, lang: str) -> list[dict[str, Any]]:
    return [
        {
            "version": clean(v.version),
            "status": VALUE_LABELS[lang][v.status],
            "introduced": clean(v.introduced) if v.introduced else "",
            "deprecated": clean(v.deprecated) if v.deprecated else "",
            "removed": clean(v.removed) if v.removed else "",
            "behavior_change": pick(v, "behavior_change", lang),
        }
        for v in record.versions
    ]


def _related(record: Record, page: _Page, data: Dataset) -> list[tuple[str, list[dict[str, str]]]]:
    def entries(names: Iterable[str]) -> list[dict[str, str]]:
        out = []
        for name in names:
            target = data.resolve(name)
            if target is None:  # checks guarantee references resolve; never emit a broken link
                continue
            out.append({"href": page.link("error", target.id), "message": clean(target.error.message), "repo": target.repo, "id": target.id})
        return out

    def names_of(kind: str) -> list[str]:
        if kind == "same_failure":  # the whole group, however it was listed
            return data.same_failure.get(record.id, [])
        return list(getattr(record.related, kind))

    return [(key, items) for key, items in ((key, entries(names_of(key))) for key in RELATIONS) if items]


def _checks(record: Record, lang: str) -> list[dict[str, Any]]:
    """What was mechanically checked, each with its date or count: what the verification tier stands on."""
    L = LABELS[lang]
    out = []
    release = record.source.release if record.source else None
    if release is not None and release.checked:
        where = release.artifact or release.tag or release.version
        text = L["check_snippet"].format(where=where, version=release.version)
        out.append({"text": clean(text), "date": release.checked, "sha256": release.sha256})
    seen = sum(1 for e in record.error.examples if e.seen)
    out.append({"text": L["check_examples"].format(k=seen, n=len(record.error.examples)), "date": None, "sha256": None})
    if record.reports:
        out.append({"text": L["check_reports"].format(n=len(record.reports)), "date": max(r.date for r in record.reports), "sha256": None})
    return out


def _provenance(record: Record, lang: str) -> dict[str, Any]:
    p = record.provenance
    return {
        "checks": _checks(record, lang),
        "confirmation": safe_url(p.confirmation),
        "tier": p.verification_tier,
        "tier_label": VALUE_LABELS[lang][p.verification_tier],
        "estimates": [
            {"field": e.field, "text": LABELS[lang]["estimate"].format(dataset=DATASETS[p.origin.dataset], pct=estimate_text(e))}
            for e in p.origin.estimates
        ] if p.origin else [],
        "estimates_title": LABELS[lang]["estimates"].format(dataset=DATASETS[p.origin.dataset]) if p.origin else "",
        "first_seen": p.first_seen,
        "last_confirmed": p.last_confirmed,
        "last_updated": p.last_updated,
        "analyzed_at": p.analyzed_at,
        "analyzed_commit": p.analyzed_commit,
        "analyzed_commit_short": p.analyzed_commit[:10] if p.analyzed_commit else None,
        "analyzed_commit_url": f"https://github.com/{record.repo}/commit/{p.analyzed_commit}" if p.analyzed_commit else None,
    }


def _error(record: Record, lang: str) -> dict[str, Any]:
    e = record.error
    return {
        "message": clean(e.message),
        "message_zh": clean(e.message_zh) if lang == "zh" and e.message_zh else None,
        "exception_class": e.exception_class,
        "type": VALUE_LABELS[lang][e.type],
        "code": clean(e.code) if e.code else None,
        "http_status": e.http_status,
        "severity": e.severity,
        "examples": [
            {"text": clean(x.text), "seen": safe_url(x.seen), "label": LABELS[lang]["seen_in" if x.seen else "constructed"]}
            for x in e.examples
        ],
        "unseen": LABELS[lang]["unseen"] if e.unseen and not any(x.seen for x in e.examples) else None,
    }


def error_page_context(record: Record, lang: str, data: Dataset, links: SiteLinks) -> dict[str, Any]:
    """Everything the error page template needs, already in the page's language."""
    page = _Page("error", record.id, lang)
    counted = tallies(record)
    everything = overall(record)
    successor = data.resolve(record.superseded_by) if record.superseded_by else None
    docs = None
    if record.official_docs is not None and safe_url(record.official_docs.url):
        docs = {"url": record.official_docs.url, "section": pick(record.official_docs, "section", lang)}
    return {
        "L": LABELS[lang],
        "V": VALUE_LABELS[lang],
        "lang": lang,
        "link": page.link,
        "id": record.id,
        "title": page_title(record, lang),
        "description": _description(record, lang),
        "successor": None if successor is None else {
            "href": page.link("error", successor.id),
            "message": clean(successor.error.message),
            "id": successor.id,
        },
        "error": _error(record, lang),
        "project": {"name": record.repo, "href": page.link("project", record.repo)},
        "category": {"name": category_label(record.category, lang), "href": page.link("category", record.category)},
        "tags": [{"name": t, "href": page.link("tag", t)} for t in record.tags],
        "severity_href": page.link("severity", record.error.severity),
        "explanation": pick(record, "explanation", lang),
        "root_cause": pick(record, "root_cause", lang),
        "source": _source(record),
        "solutions": [{"text": text, "tally": tally_of(record, f"/solutions/{i}", counted, lang), **{
            outcome: safe_url(links.fix_report_url(record.id, f"/solutions/{i}", outcome, "/" + page.url)) for outcome in ("worked", "failed")}}
            for i, text in enumerate(pick_all(record, "solutions", lang))],
        "best_fix": best_fix(record)[0],  # by counted evidence (generator.records.evidence)
        "applies_to": [clean(v.version) for v in record.versions if v.status == "active"],
        "fixes_overall": tally_view(everything, lang) if everything.reports else None,
        "resolvable": VALUE_LABELS[lang][record.resolvable] if record.resolvable else None,
        "example_fix": _example_fix(record, lang),
        "handling": _handling(record, lang),
        "prevention": pick_all(record, "prevention", lang),
        "triggers": pick(record, "triggers", lang),
        "common_situations": pick(record, "common_situations", lang),
        "dead_ends": fix_items(record, "dead_ends", "why_fails", lang, counted),
        "workarounds": fix_items(record, "workarounds", "how", lang, counted),
        "versions": _versions(record, lang),
        "os_notes": [(name, pick(record, "os_specific", lang, name)) for name in sorted(record.os_specific)],
        "docs": docs,
        "related": _related(record, page, data),
        "provenance": _provenance(record, lang),
        "links": {
            "json": page.api("record", record.id),
            "edit": safe_url(links.edit_url(record.id)),
            "report": safe_url(links.report_url(record.id, "/" + page.url)),
        },
    }


def render_error_page(record: Record, lang: str, data: Dataset, links: SiteLinks) -> str:
    """The Markdown source of one error page in one language."""
    return env().get_template(PAGES["error"].template).render(error_page_context(record, lang, data, links))


# ---------------------------------------------------------------- pages of many records


def _entry(record: Record, page: _Page) -> dict[str, Any]:
    return {
        "href": page.link("error", record.id),
        "message": clean(record.error.message),
        "message_zh": clean(record.error.message_zh) if page.lang == "zh" and record.error.message_zh else None,
        "repo": record.repo,
        "severity": record.error.severity,
        "id": record.id,
    }


def _sorted(records: Iterable[Record]) -> list[Record]:
    return sorted(records, key=lambda r: (SEVERITIES.index(r.error.severity), r.id))


def _key_label(grouping: str, key: str, lang: str) -> str:
    if grouping == "category":
        return category_label(key, lang)
    return VALUE_LABELS[lang][key] if routes.GROUPS[grouping].labelled else key


def list_page_context(found: routes.GeneratedPage, lang: str) -> dict[str, Any]:
    """A page of the records that share a key (a project's, a tag's...): `entries`, most severe first."""
    route = PAGES[found.route]
    page = _Page(found.route, found.key, lang)
    name = _key_label(route.each, found.key, lang)
    L = LABELS[lang]
    return {
        "L": L,
        "V": VALUE_LABELS[lang],
        "lang": lang,
        "key": found.key,
        "name": name,
        "title": L[route.title].format(name=name) if route.title else name,
        "back": {"href": page.link(route.up), "title": L[PAGES[route.up].title]} if route.up else None,
        "entries": [_entry(r, page) for r in _sorted(found.records)],
        "link": page.link,
    }


def index_page_context(found: routes.GeneratedPage, lang: str) -> dict[str, Any]:
    """A page linking every page of another route, with how many records each holds."""
    route = PAGES[found.route]
    page = _Page(found.route, found.key, lang)
    grouping = PAGES[route.lists].each
    items = [
        {"name": _key_label(grouping, key, lang), "key": key, "href": page.link(route.lists, key), "count": len(rs)}
        for key, rs in routes.grouped(found.records, grouping).items()
    ]
    return {"L": LABELS[lang], "lang": lang, "title": LABELS[lang][route.title], "items": items, "kind": grouping, "link": page.link}


def render_page(found: routes.GeneratedPage, lang: str, data: Dataset, links: SiteLinks) -> str:
    """The Markdown source of one generated page in one language."""
    route = PAGES[found.route]
    if route.each == "record":
        context = error_page_context(found.records[0], lang, data, links)
    elif route.lists:
        context = index_page_context(found, lang)
    else:
        context = list_page_context(found, lang)
    return env().get_template(route.template).render(context)


def render_browse_pages(records: list[Record], lang: str) -> dict[str, str]:
    """Source path -> Markdown for every generated page but the error pages (browse pages and their indexes)."""
    data = Dataset(records)
    return {
        path: render_page(found, lang, data, SiteLinks())
        for path, found in routes.generated_pages(records).items()
        if PAGES[found.route].each != "record"
    }


def render_site_pages(records: list[Record], lang: str, links: SiteLinks) -> dict[str, str]:
    """All generated pages of one language: source path -> Markdown. Raises routes.PageCollision when two
    pages would share a path."""
    data = Dataset(records)
    return {path: render_page(found, lang, data, links) for path, found in routes.generated_pages(records).items()}
