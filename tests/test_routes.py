"""generator/routes.py and generator/labels.py: the one table of addresses, and the words shared by pages,
the API and the matcher."""

from __future__ import annotations

import re
from pathlib import Path
from typing import get_args

import pytest
import yaml

from generator import labels, routes
from generator.records import model, vocabulary
from generator.site.markup import TEMPLATES

ROOT = Path(__file__).resolve().parents[1]


def test_page_paths_and_urls_per_language():
    assert routes.page_path("error", "vllm/x") == "errors/vllm/x/index.md"
    assert routes.page_url("error", "vllm/x") == "errors/vllm/x/"
    assert routes.page_url("error", "vllm/x", lang="en") == "errors/vllm/x/"
    assert routes.page_url("error", "vllm/x", lang="zh") == "zh/errors/vllm/x/"
    assert routes.page_url("projects", lang="zh") == "zh/browse/projects/"
    assert routes.page_url("home", lang="zh") == "zh/" and routes.page_url("home") == ""
    assert routes.page_url("api_docs") == "api/"


def test_project_keys_are_safe_path_segments():
    assert routes.page_path("project", "ggml-org/llama.cpp") == "browse/project/ggml-org/llama_2e_cpp/index.md"
    assert routes.page_path("project", "a/_2e_") == "browse/project/a/_5f_2e_5f_/index.md"


def test_api_and_feed_paths():
    assert routes.api_path("record", "vllm/x") == "errors/vllm/x.json"
    assert routes.api_url("record", "vllm/x") == "api/errors/vllm/x.json"
    assert routes.api_url("match", base="/errdex/") == "/errdex/api/match.json"
    assert routes.feed_path("feed") == "feed.xml" and routes.feed_path("feed", "zh") == "zh/feed.xml"
    assert routes.feed_path("sitemap", "zh") == "sitemap.xml"
    assert routes.record_file("vllm/x") == "data/errors/vllm/x.yaml"


def test_language_roots():
    assert routes.to_site_root("en") == "" and routes.to_site_root("zh") == "../"
    assert routes.to_lang_root("en", "zh") == "zh/" and routes.to_lang_root("zh", "en") == "../"
    assert routes.to_lang_root("zh", "zh") == ""


def test_links_under_a_base():
    links = routes.Links("/errdex/")
    assert links.pages("a/b") == {"html": "/errdex/errors/a/b/", "html_zh": "/errdex/zh/errors/a/b/", "json": "/errdex/api/errors/a/b.json"}
    for bad in ("errdex/", "/errdex", "/../", "//x/"):
        with pytest.raises(ValueError):
            routes.Links(bad)


def test_client_routes():
    assert routes.client_routes() == {
        "error_page": "errors/{id}/", "api_record": "api/errors/{id}.json", "api_match": "api/match.json", "search": "pagefind/pagefind.js",
        "paste_page": "match/", "issue_new_error": "issues/new?template=new-error.yml",
        "api_catalog_match_index": "api/catalog/match/index.json", "api_catalog_match_shard": "api/catalog/match/{key}.json.gz",
        "api_drift_index": "api/drift/index.json", "api_drift_shard": "api/drift/{key}.json.gz", "api_drift_registry": "api/drift/{project}/{key}.json.gz",
        "api_catalog_entries": "api/catalog/{project}/entries/{key}.ndjson", "catalog_entry_page": "catalog/entry/", "catalog_message_page": "catalog/{project}/messages/{key}.html",
        "catalog_project_page": "catalog/{project}/",
        "moved": [["catalog/{project}/messages/{key}/", "catalog/{project}/messages/{key}.html"]], "lang_roots": ["", "zh/"],
    }
    assert routes.catalog_page_url("catalog_release", "vllm", "0.11.0", lang="zh") == "zh/catalog/vllm/releases/0.11.0/"
    assert routes.api_url("catalog_entries", "00", "/", project="vllm") == "/api/catalog/vllm/entries/00.ndjson"
    assert (routes.ISSUE_FORMS.keys() == {"correction", "new_error", "fix_report"}
            and all((Path(__file__).parent.parent / ".github" / "ISSUE_TEMPLATE" / f).is_file() for f in routes.ISSUE_FORMS.values()))


def test_the_table_is_consistent():
    for name, page in routes.PAGES.items():
        if page.template:
            assert (TEMPLATES / page.template).is_file(), name
            assert bool(page.each) != bool(page.lists), f"{name}: a generated page is either one per key or an index"
        for ref in (page.up, page.lists):
            assert ref is None or ref in routes.PAGES, name
        assert page.each is None or page.each in routes.GROUPS, name
        if page.title:
            assert all(page.title in labels.LABELS[lang] for lang in routes.LANGS), name


def test_labels_cover_every_enum_value():
    enums = [model.Severity, model.ErrorType, model.VerificationTier, model.Resolvable, model.VersionStatus]
    values = {v for e in enums for v in get_args(e)} | {"validation_strategy"} | (set(get_args(model.HandlingStrategy)) - {"validation"})
    for lang in routes.LANGS:
        assert values <= set(labels.VALUE_LABELS[lang]), lang
        assert set(labels.LABELS[lang]) == set(labels.LABELS["en"]), lang
    assert vocabulary.SEVERITIES == ("critical", "error", "warning", "info")


def test_hand_written_routes_name_existing_pages():
    from generator.site.build import DOCS

    for name, page in routes.PAGES.items():
        if page.template is None:
            for lang in routes.LANGS:
                assert (DOCS / lang / routes.page_path(name)).is_file(), (name, lang)


def _matcher_scripts() -> dict[str, str]:
    folder = ROOT / "overrides" / "assets" / "javascripts"
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(folder.glob("errdex-match*.js"))}


def test_the_matcher_scripts_spell_no_route():
    """The page gets its routes from data the build writes (data-route-match, data-route-error-page), never from
    a literal: no API or error-page path is written in the matcher's scripts, comments included."""
    scripts = _matcher_scripts()
    assert set(scripts) == {"errdex-match.js", "errdex-match-worker.js", "errdex-match-catalog.js"}
    for name, text in scripts.items():
        for literal in (routes.API_ROOT, "errors/"):
            assert literal not in text, f"{name} spells {literal!r}: ask routes.client_routes() through the page's data"
    page = scripts["errdex-match.js"]
    assert 'getAttribute("data-route-match")' in page and 'getAttribute("data-route-error-page")' in page


def test_the_matcher_has_every_word_in_both_languages():
    """Every data-msg-<name> the page script asks for is in extra.errdex.matcher.messages, in both languages."""
    script = _matcher_scripts()["errdex-match.js"]
    asked = set(re.findall(r'\b(?:msg|fmt)\("([a-z]+(?:-[a-z]+)*)"', script)) | {"one", "other"}  # those two by count
    # why-<rule>: one per kind of reason a score gives (generator.match.output.explain words the same kinds)
    asked |= {"why-" + kind for kind in ("specificity", "exception", "anchored", "repeated", "retired", "same-line", "partial", "requoted")}
    # a record's checked versions by status (the record format's statuses), and the catalog heading (the template's)
    asked |= {"status-" + kind for kind in ("active", "changed", "fixed", "unknown")} | {"catalog-heading"}
    # and the reasons a catalog entry gets from the release chosen (generator.bundle.answers._version_check)
    asked |= {"why-release-" + kind for kind in ("has", "lacks", "unknown")}
    assert {"loading", "ready", "none", "score", "why"} <= asked
    configs = {"en": ROOT / "mkdocs.yml", "zh": ROOT / "mkdocs.zh.yml"}
    found = {}
    for lang, path in configs.items():
        matcher = yaml.safe_load(path.read_text(encoding="utf-8"))["extra"]["errdex"]["matcher"]
        found[lang] = matcher
        assert set(matcher["messages"]) == asked, lang
        assert matcher["label"], lang
    assert found["en"]["placeholder"] and "placeholder" not in found["zh"]  # a sample log: the same in both
    assert found["en"]["messages"] != found["zh"]["messages"]
