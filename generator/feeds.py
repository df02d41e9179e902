"""Feeds beside the site: an Atom feed per language, sitemap.xml and llms.txt. Pure functions of the records.

Record text passes `chars.scrub` (titles through `render.clean`) before it is escaped, so that every feed is
well-formed XML whatever the data holds; the build parses each XML file it writes to make sure.

Dates come from the records (`last_updated`, `first_seen`), never from the clock, so two builds of the same
data give the same bytes.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from . import chars, render
from .model import Record

FEED_SIZE = 50
TITLES = {"en": "errdex: new and updated errors", "zh": "errdex：新增与更新的错误"}


def _stamp(day: str) -> str:
    return f"{day}T00:00:00Z"


def _recent(records: list[Record]) -> list[Record]:
    return sorted(records, key=lambda r: (r.provenance.last_updated, r.id), reverse=True)[:FEED_SIZE]


def atom_feed(records: list[Record], site_url: str, lang: str) -> str:
    """The most recently updated records, newest first, as an Atom 1.0 document."""
    root = site_url + render.lang_root(lang)
    recent = _recent(records)
    updated = _stamp(recent[0].provenance.last_updated) if recent else "1970-01-01T00:00:00Z"
    entries = []
    for record in recent:
        url = root + render.error_page_url(record.id)
        summary = record.explanation_zh if lang == "zh" and record.explanation_zh else record.explanation
        entries.append(
            "  <entry>\n"
            f"    <id>{escape(url)}</id>\n"
            f"    <title>{escape(render.page_title(record, lang))}</title>\n"
            f"    <link rel=\"alternate\" type=\"text/html\" href={quoteattr(url)}/>\n"
            f"    <link rel=\"alternate\" type=\"application/json\" href={quoteattr(site_url + render.api_url(record.id))}/>\n"
            f"    <updated>{_stamp(record.provenance.last_updated)}</updated>\n"
            f"    <category term={quoteattr(record.repo)}/>\n"
            f"    <summary>{escape(chars.scrub(summary))}</summary>\n"
            "  </entry>\n"
        )
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        f'<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="{lang}">\n'
        f"  <id>{escape(root)}feed.xml</id>\n"
        f"  <title>{escape(TITLES[lang])}</title>\n"
        f'  <link rel="self" type="application/atom+xml" href={quoteattr(root + "feed.xml")}/>\n'
        f'  <link rel="alternate" type="text/html" href={quoteattr(root)}/>\n'
        f"  <updated>{updated}</updated>\n"
        "  <author><name>errdex contributors</name></author>\n"
        + "".join(entries)
        + "</feed>\n"
    )


def sitemap(records: list[Record], site_url: str, other_pages: list[str]) -> str:
    """Every page in both languages, each with its other-language alternate; error pages dated by the record."""
    latest = max((r.provenance.last_updated for r in records), default="1970-01-01")
    rows = [(url, latest) for url in sorted(set(other_pages))]
    rows += [(render.error_page_url(r.id), r.provenance.last_updated) for r in sorted(records, key=lambda r: r.id)]
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n',
           '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n']
    for url, day in rows:
        for lang in render.LANGS:
            out.append(f"  <url>\n    <loc>{escape(site_url + render.lang_root(lang) + url)}</loc>\n    <lastmod>{day}</lastmod>\n")
            for alt in render.LANGS:
                href = quoteattr(site_url + render.lang_root(alt) + url)
                out.append(f'    <xhtml:link rel="alternate" hreflang="{alt}" href={href}/>\n')
            out.append("  </url>\n")
    out.append("</urlset>\n")
    return "".join(out)


def llms_txt(records: list[Record], site_url: str) -> str:
    """What errdex is and how a program or an agent should read it (the llms.txt convention)."""
    projects = sorted({r.repo for r in records})
    return f"""# errdex

> An open, bilingual (English / Chinese) knowledge base of the errors that LLM inference and serving stacks
> raise ({", ".join(projects)}). Each record gives the message, a pattern to recognise it, the code that
> raises it pinned to a commit, what it means, fixes that work, dead ends, and affected versions.

Everything is static JSON; no key, no rate limit, no server logic. Record ids look like
`vllm/block-manager-out-of-memory`; old ids (aliases) keep resolving. The dataset holds {len(records)} records.

## API

- [Index of all records]({site_url}api/errors.json): id, message, repo, category, severity, tags, last_updated, urls
- [One record]({site_url}api/errors/vllm/block-manager-out-of-memory.json): `/api/errors/<id>.json`, the whole record in English and Chinese
- [Match file]({site_url}api/match.json): every record's regex and message, to recognise errors in a log offline
- [Full dataset]({site_url}api/errors.ndjson): one record per line
- [Manifest]({site_url}api/manifest.json): dataset version and the sha256 of every file, to sync only what changed
- [Record schema]({site_url}api/schema.json) and [OpenAPI description]({site_url}api/openapi.json)
- [Statistics]({site_url}api/stats.json)

## Docs

- [API reference]({site_url}api/): routes, shapes, versions and what will not break
- [About errdex]({site_url}about/): how records are made and checked
- [Chinese site]({site_url}zh/)

## Feeds

- [Atom feed of new and updated records]({site_url}feed.xml) ([Chinese]({site_url}zh/feed.xml))
- [Sitemap]({site_url}sitemap.xml)
"""


def feed_files(records: list[Record], site_url: str, other_pages: list[str]) -> dict[str, str]:
    """Relative path under the site root -> text, for every feed file."""
    if not site_url.endswith("/"):
        site_url += "/"
    files = {f"{render.lang_root(lang)}feed.xml": atom_feed(records, site_url, lang) for lang in render.LANGS}
    files["sitemap.xml"] = sitemap(records, site_url, other_pages)
    files["llms.txt"] = llms_txt(records, site_url)
    return files
