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
    for name in ("feed.xml", "zh/feed.xml", "sitemap.xml"):
        ET.fromstring(files[name])  # well-formed whatever the records hold
    assert "<script>" not in files["feed.xml"]


def test_built_site_has_feeds_whose_links_resolve(built_site: Path) -> None:
    for name in ("feed.xml", "zh/feed.xml", "sitemap.xml", "llms.txt"):
        assert (built_site / name).is_file(), name
    assert not (built_site / "sitemap.xml.gz").exists() and not (built_site / "zh/sitemap.xml").exists()
    urls = [loc.text for loc in ET.parse(built_site / "sitemap.xml").getroot().iter(f"{SM}loc")]
    assert urls and len(urls) == len(set(urls))
    for url in urls:
        rel = url.split("://", 1)[1].split("/", 1)[1]
        assert (built_site / rel / "index.html").is_file() or (built_site / rel).is_file(), url
    llms = (built_site / "llms.txt").read_text(encoding="utf-8")
    for route in ("api/errors.json", "api/match.json", "api/errors.ndjson", "api/manifest.json", "api/openapi.json", "feed.xml"):
        assert route in llms and (built_site / route).is_file(), route
