"""Atom feeds, the sitemap and llms.txt: dated by the data, escaped, and pointing at pages that exist."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from generator.site.feeds import feed_files
from generator.checks.pipeline import check

DATASET = Path(__file__).parent / "fixtures" / "dataset"
ATOM = "{http://www.w3.org/2005/Atom}"
SM = "{http://www.sitemaps.org/schemas/sitemap/0.9}"


def _records():
    return check([DATASET], DATASET).records


def test_feeds_are_deterministic_and_dated_by_the_data() -> None:
    records = _records()
    first = feed_files(records, "https://example.org/kb", ["", "about/"])
    assert first == feed_files(list(reversed(records)), "https://example.org/kb/", ["about/", ""])
    feed = ET.fromstring(first["feed.xml"])
    newest = max(r.provenance.last_updated for r in records)
    assert feed.find(f"{ATOM}updated").text == f"{newest}T00:00:00Z"
    updated = [e.find(f"{ATOM}updated").text for e in feed.findall(f"{ATOM}entry")]
    assert updated == sorted(updated, reverse=True) and len(updated) == len(records)
    zh = ET.fromstring(first["zh/feed.xml"])
    assert zh.get("{http://www.w3.org/XML/1998/namespace}lang") == "zh"
    assert all(e.find(f"{ATOM}link").get("href").startswith("https://example.org/kb/zh/errors/") for e in zh.findall(f"{ATOM}entry"))


def test_record_text_is_escaped_in_feeds() -> None:
    files = feed_files(_records(), "https://example.org/", [])
    for name in ("feed.xml", "zh/feed.xml", "sitemap.xml", "sitemap-pages.xml"):
        ET.fromstring(files[name])  # well-formed whatever the records hold
    assert "<script>" not in files["feed.xml"]


def test_the_sitemap_is_an_index_of_files_within_the_protocols_limit(monkeypatch) -> None:
    """The catalog entries' pages in every language, in files of at most SITEMAP_URLS addresses, each listed by the
    index after the pages' own sitemap."""
    from generator.site import feeds

    monkeypatch.setattr(feeds, "SITEMAP_URLS", 3)
    messages = ["catalog/p/messages/00000000000000a1.html", "catalog/p/messages/00000000000000a2.html"]
    files = feeds.feed_files(_records(), "https://example.org/", [], messages + messages[:1])
    index = ET.fromstring(files["sitemap.xml"])
    assert [loc.text for loc in index.iter(f"{SM}loc")] == [
        "https://example.org/sitemap-pages.xml", "https://example.org/sitemap-messages-1.xml", "https://example.org/sitemap-messages-2.xml"]
    listed = [loc.text for name in ("sitemap-messages-1.xml", "sitemap-messages-2.xml") for loc in ET.fromstring(files[name]).iter(f"{SM}loc")]
    assert listed == ["https://example.org/catalog/p/messages/00000000000000a1.html", "https://example.org/zh/catalog/p/messages/00000000000000a1.html",
                      "https://example.org/catalog/p/messages/00000000000000a2.html", "https://example.org/zh/catalog/p/messages/00000000000000a2.html"]
    assert "sitemap-messages-1.xml" not in feeds.feed_files(_records(), "https://example.org/", [])


def test_built_site_has_feeds_whose_links_resolve(built_site: Path) -> None:
    for name in ("feed.xml", "zh/feed.xml", "sitemap.xml", "llms.txt"):
        assert (built_site / name).is_file(), name
    assert not (built_site / "sitemap.xml.gz").exists() and not (built_site / "zh/sitemap.xml").exists()
    index = ET.parse(built_site / "sitemap.xml").getroot()  # a sitemap index: the pages', then the catalog entries'
    assert index.tag == f"{SM}sitemapindex"
    names = [loc.text.rsplit("/", 1)[1] for loc in index.iter(f"{SM}loc")]
    assert names == ["sitemap-pages.xml", "sitemap-messages-1.xml"]
    urls = [loc.text for name in names for loc in ET.parse(built_site / name).getroot().iter(f"{SM}loc")]
    assert urls and len(urls) == len(set(urls)) and any("/messages/" in url for url in urls)
    for url in urls:
        rel = url.split("://", 1)[1].split("/", 1)[1]
        assert (built_site / rel / "index.html").is_file() or (built_site / rel).is_file(), url
    llms = (built_site / "llms.txt").read_text(encoding="utf-8")
    for route in ("api/errors.json", "api/match.json", "api/errors.ndjson", "api/manifest.json", "api/openapi.json", "feed.xml"):
        assert route in llms and (built_site / route).is_file(), route
