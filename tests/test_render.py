"""generator.render: pure functions from records to page Markdown."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator import render
from generator.pipeline import check

DATASET = Path(__file__).parent / "fixtures" / "dataset"
SNAPSHOTS = Path(__file__).parent / "snapshots"
LINKS = render.SiteLinks("https://github.com/errdex/errdex", "edit/main/")


@pytest.fixture(scope="module")
def records():
    result = check([DATASET], DATASET)
    assert not result.failed
    return {r.id: r for r in result.records}


@pytest.fixture(scope="module")
def data(records):
    return render.Dataset(list(records.values()))


@pytest.mark.parametrize("lang", render.LANGS)
def test_golden_snapshot(records, data, bless, lang):
    """The generated page source of one full record; re-bless with ERRDEX_BLESS=1 after an intended change."""
    page = render.render_error_page(records["demo/kv-cache-out-of-memory"], lang, data, LINKS)
    golden = SNAPSHOTS / f"demo-kv-cache-out-of-memory.{lang}.md"
    if bless or not golden.exists():
        golden.write_text(page, encoding="utf-8")
        if not bless:
            pytest.fail(f"wrote the missing snapshot {golden.name}; check it and run again")
    assert page == golden.read_text(encoding="utf-8"), f"{golden.name} differs; run with ERRDEX_BLESS=1 if intended"


def test_sections_in_order(records, data):
    page = render.render_error_page(records["demo/kv-cache-out-of-memory"], "en", data, LINKS)
    anchors = ["the-error", "what-it-means", "source", "solutions", "example-fix", "defensive-patterns", "prevention",
               "when-it-happens", "dead-ends", "workarounds", "versions", "os-notes", "official-docs", "related",
               "provenance", "links"]
    positions = [page.index("{: #" + a + " }") for a in anchors]
    assert positions == sorted(positions)


def test_empty_sections_are_omitted(records, data):
    page = render.render_error_page(records["demo/request-timeout"], "en", data, LINKS)
    for anchor in ("source", "example-fix", "defensive-patterns", "prevention", "dead-ends", "workarounds", "versions", "os-notes", "official-docs"):
        assert "{: #" + anchor + " }" not in page
    assert "{: #related }" in page


def test_front_matter_is_json_escaped_html(records, data):
    page = render.render_error_page(records["demo/hostile-text"], "en", data, LINKS)
    front = page.split("---\n")[1]
    assert "<script>" not in front
    assert 'title: "What causes &#34;&lt;script&gt;alert(1)&lt;/script&gt; {{ 7*7 }}' in front


def test_record_text_never_reaches_markdown_unescaped(records, data):
    for lang in render.LANGS:
        page = render.render_error_page(records["demo/hostile-text"], lang, data, LINKS)
        body = page.split("---\n", 2)[2]
        assert "<script>" not in body and "<img src=x" not in body and "<b>" not in body
        # Markdown structure comes only from our headings: no record line starts a heading or a fence.
        for line in body.splitlines():
            assert not line.startswith("```")
            if line.startswith("#"):
                assert line.startswith("## ") and "{: #" in line


def test_zh_fallback_is_marked(records, data):
    page = render.render_error_page(records["demo/kv-cache-out-of-memory"], "zh", data, LINKS)
    assert page.count("尚未翻译") == 3  # common_situations and both prevention items
    assert "errdex-untranslated" in page and 'lang="en">Size max_model_len' in page
    en = render.render_error_page(records["demo/kv-cache-out-of-memory"], "en", data, LINKS)
    assert "not yet translated" not in en and "尚未翻译" not in en


def test_relative_links():
    assert render.relative("errors/a/b/", "api/errors/a/b.json") == "../../../api/errors/a/b.json"
    assert render.relative("zh/errors/a/", "zh/browse/tag/x/") == "../../browse/tag/x/"
    assert render.relative("", "errors/a/") == "errors/a/"


def test_only_http_urls_are_links():
    assert render.safe_url("https://example.org/x") == "https://example.org/x"
    for bad in ("javascript:alert(1)", "data:text/html,x", "//evil.example", "https://a b", None):
        assert render.safe_url(bad) is None


def test_repo_names_are_safe_path_segments():
    assert render.project_page("a/..") == "browse/project/a/_2e__2e_/index.md"
    assert render.project_page("vllm-project/vllm") == "browse/project/vllm-project/vllm/index.md"


def test_control_characters_cannot_forge_markdown_placeholders():
    assert render.clean("a\x02wzxhzdk:0\x03b\tc\n") == "a\ufffdwzxhzdk:0\ufffdb\tc\n"


def test_percentages():
    assert render.percent(0.85) == "85%" and render.percent(1) == "100%" and render.percent(0) == "0%"


def test_browse_pages_list_every_record(records):
    pages = render.render_browse_pages(list(records.values()), "en")
    assert {"browse/projects.md", "browse/categories.md", "browse/tags.md", "browse/severities.md"} <= set(pages)
    servekit = pages["browse/project/example-org/servekit/index.md"]
    for r in records.values():
        assert f"../../../../errors/{r.id}/" in servekit
    assert "errdex-severity--critical" in pages["browse/severity/critical/index.md"]


def test_source_date_epoch_comes_from_the_data(records):
    assert render.source_date_epoch(list(records.values())) == 1772323200  # 2026-03-01T00:00:00Z
