"""Feeds beside the site: an Atom feed per language, sitemap.xml and llms.txt. Pure functions of the records.

Record text passes `chars.scrub` (titles through `labels.page_title`) before it is escaped, so that every feed is
well-formed XML whatever the data holds; the build parses each XML file it writes to make sure.

Dates come from the records (`last_updated`, `first_seen`), never from the clock, so two builds of the same
data give the same bytes.
"""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from .. import chars
from ..labels import FEED_TITLES, page_title
from ..records.model import Record
from ..routes import LANGS, api_url, feed_path, lang_root, page_url

FEED_SIZE = 50
SITEMAP_URLS = 50_000  # the sitemaps protocol's limit on the URLs of one file
_SITEMAPS = '<?xml version="1.0" encoding="UTF-8"?>\n<{tag} xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n{rows}</{tag}>\n'


def _stamp(day: str) -> str:
    return f"{day}T00:00:00Z"


def _recent(records: list[Record]) -> list[Record]:
    return sorted(records, key=lambda r: (r.provenance.last_updated, r.id), reverse=True)[:FEED_SIZE]


def atom_feed(records: list[Record], site_url: str, lang: str) -> str:
    """The most recently updated records, newest first, as an Atom 1.0 document."""
    root = site_url + lang_root(lang)
    recent = _recent(records)
    updated = _stamp(recent[0].provenance.last_updated) if recent else "1970-01-01T00:00:00Z"
    entries = []
    for record in recent:
        url = site_url + page_url("error", record.id, lang)
        json_url = api_url("record", record.id, site_url)
        summary = record.explanation_zh if lang == "zh" and record.explanation_zh else record.explanation
        entries.append(
            "  <entry>\n"
            f"    <id>{escape(url)}</id>\n"
            f"    <title>{escape(page_title(record, lang))}</title>\n"
            f"    <link rel=\"alternate\" type=\"text/html\" href={quoteattr(url)}/>\n"
            f"    <link rel=\"alternate\" type=\"application/json\" href={quoteattr(json_url)}/>\n"
            f"    <updated>{_stamp(record.provenance.last_updated)}</updated>\n"
            f"    <category term={quoteattr(record.repo)}/>\n"
            f"    <summary>{escape(chars.scrub(summary))}</summary>\n"
            "  </entry>\n"
        )
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        f'<feed xmlns="http://www.w3.org/2005/Atom" xml:lang="{lang}">\n'
        f"  <id>{escape(site_url + feed_path('feed', lang))}</id>\n"
        f"  <title>{escape(FEED_TITLES[lang])}</title>\n"
        f'  <link rel="self" type="application/atom+xml" href={quoteattr(site_url + feed_path("feed", lang))}/>\n'
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
    rows += [(page_url("error", r.id), r.provenance.last_updated) for r in sorted(records, key=lambda r: r.id)]
    out = ['<?xml version="1.0" encoding="UTF-8"?>\n',
           '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9" xmlns:xhtml="http://www.w3.org/1999/xhtml">\n']
    for url, day in rows:
        for lang in LANGS:
            out.append(f"  <url>\n    <loc>{escape(site_url + lang_root(lang) + url)}</loc>\n    <lastmod>{day}</lastmod>\n")
            for alt in LANGS:
                href = quoteattr(site_url + lang_root(alt) + url)
                out.append(f'    <xhtml:link rel="alternate" hreflang="{alt}" href={href}/>\n')
            out.append("  </url>\n")
    out.append("</urlset>\n")
    return "".join(out)


# The record llms.txt shows as an example of a record's file.
EXAMPLE_ID = "vllm/block-manager-out-of-memory"


def llms_txt(records: list[Record], site_url: str) -> str:
    """What errdex is and how a program or an agent should read it (the llms.txt convention)."""
    projects = sorted({r.repo for r in records})

    def api(name: str, key: str | None = None) -> str:
        return api_url(name, key, site_url)

    return f"""# errdex

> An open, bilingual (English / Chinese) knowledge base of the errors that LLM inference and serving stacks
> raise ({", ".join(projects)}). Each record gives the message, a pattern to recognise it, the code that
> raises it pinned to a commit, what it means, fixes that work, dead ends, and affected versions.

Everything is static JSON; no key, no rate limit, no server logic. Record ids look like
`vllm/block-manager-out-of-memory`; old ids (aliases) keep resolving. The dataset holds {len(records)} records.

## API

- [Index of all records]({api("index")}): id, message, repo, category, severity, tags, last_updated, urls
- [One record]({api("record", EXAMPLE_ID)}): `/{api_url("record", "<id>")}`, the whole record in English and Chinese
- [Match file]({api("match")}): every record's regex and message, to recognise errors in a log offline
- [Full dataset]({api("ndjson")}): one record per line
- [Manifest]({api("manifest")}): dataset version and the sha256 of every file, to sync only what changed
- [Record schema]({api("schema")}) and [OpenAPI description]({api("openapi")})
- [Statistics]({api("stats")})

## Docs

- [API reference]({site_url}{page_url("api_docs")}): routes, shapes, versions and what will not break
- [About errdex]({site_url}{page_url("about")}): how records are made and checked
- [Chinese site]({site_url}{page_url("home", lang="zh")})

## Feeds

- [Atom feed of new and updated records]({site_url}{feed_path("feed")}) ([Chinese]({site_url}{feed_path("feed", "zh")}))
- [Sitemap]({site_url}{feed_path("sitemap")})
"""


def message_sitemaps(site_url: str, messages: list[str]) -> dict[str, str]:
    """The catalog entries' own pages (URLs relative to a language root) in every language, in files of at most
    SITEMAP_URLS; each page names its other languages itself (hreflang), so the files list addresses only."""
    urls = [site_url + lang_root(lang) + url for url in sorted(set(messages)) for lang in LANGS]
    files = {}
    for n, start in enumerate(range(0, len(urls), SITEMAP_URLS), 1):
        rows = "".join(f"  <url><loc>{escape(u)}</loc></url>\n" for u in urls[start:start + SITEMAP_URLS])
        files[feed_path("sitemap_messages").replace("{key}", str(n))] = _SITEMAPS.format(tag="urlset", rows=rows)
    return files


def feed_files(records: list[Record], site_url: str, other_pages: list[str], messages: list[str] = ()) -> dict[str, str]:
    """Relative path under the site root -> text, for every feed file. The sitemap is an index of the pages'
    sitemap and the catalog entries' pages' (`messages`)."""
    if not site_url.endswith("/"):
        site_url += "/"
    files = {feed_path("feed", lang): atom_feed(records, site_url, lang) for lang in LANGS}
    sitemaps = {feed_path("sitemap_pages"): sitemap(records, site_url, other_pages), **message_sitemaps(site_url, list(messages))}
    files.update(sitemaps)
    rows = "".join(f"  <sitemap><loc>{escape(site_url + name)}</loc></sitemap>\n" for name in sitemaps)
    files[feed_path("sitemap")] = _SITEMAPS.format(tag="sitemapindex", rows=rows)
    files[feed_path("llms")] = llms_txt(records, site_url)
    return files
