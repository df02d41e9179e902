"""generator.site.render: pure functions from records to page Markdown."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator import routes
from generator.site import facts, markup, render
from generator.checks.pipeline import check

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


@pytest.mark.parametrize("lang", routes.LANGS)
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
    # The answer first: the fixes come before the snippet of the code that raises the error.
    anchors = ["the-error", "what-it-means", "solutions", "example-fix", "source", "defensive-patterns", "prevention",
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
    for lang in routes.LANGS:
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
    assert routes.relative("errors/a/b/", "api/errors/a/b.json") == "../../../api/errors/a/b.json"
    assert routes.relative("zh/errors/a/", "zh/browse/tag/x/") == "../../browse/tag/x/"
    assert routes.relative("", "errors/a/") == "errors/a/"
    # a URL that names a file (an entry's own catalog page): its links start in its folder, and links reach it
    page = routes.catalog_page_url("catalog_message", "p", "00000000000000a1")
    assert page == "catalog/p/messages/00000000000000a1.html" and routes.page_file(page) == page
    assert routes.relative(page, "catalog/p/modules/m/") == "../modules/m/"
    assert routes.relative(page, "catalog/p/messages/00000000000000a2.html") == "00000000000000a2.html"
    assert routes.relative("catalog/p/releases/1.0/", page) == "../../messages/00000000000000a1.html"
    assert routes.page_file("errors/a/") == "errors/a/index.html" and routes.page_file("") == "index.html"


def test_only_http_urls_are_links():
    assert markup.safe_url("https://example.org/x") == "https://example.org/x"
    for bad in ("javascript:alert(1)", "data:text/html,x", "//evil.example", "https://a b", None):
        assert markup.safe_url(bad) is None


def test_repo_names_are_safe_path_segments():
    assert routes.page_path("project", "a/..") == "browse/project/a/_2e__2e_/index.md"
    assert routes.page_path("project", "vllm-project/vllm") == "browse/project/vllm-project/vllm/index.md"


def test_control_characters_cannot_forge_markdown_placeholders():
    assert markup.clean("a\x02wzxhzdk:0\x03b\tc\n") == "a\ufffdwzxhzdk:0\ufffdb\tc\n"


def test_percentages():
    assert markup.percent(0.85) == "85%" and markup.percent(1) == "100%" and markup.percent(0) == "0%"


def test_browse_pages_list_every_record(records):
    pages = render.render_browse_pages(list(records.values()), "en")
    assert {"browse/projects.md", "browse/categories.md", "browse/tags.md", "browse/severities.md"} <= set(pages)
    servekit = pages["browse/project/example-org/servekit/index.md"]
    for r in records.values():
        assert f"../../../../errors/{r.id}/" in servekit
    assert "errdex-severity--critical" in pages["browse/severity/critical/index.md"]


def test_source_date_epoch_comes_from_the_data(records):
    assert facts.source_date_epoch(list(records.values())) == 1772323200  # 2026-03-01T00:00:00Z


# ---------------------------------------------------------------- the error page, section by section

FULL = "demo/kv-cache-out-of-memory"


@pytest.fixture(scope="module")
def pages(records, data):
    """(record id, lang) -> the error page's Markdown source, for every fixture record."""
    return {(rid, lang): render.render_error_page(r, lang, data, LINKS) for rid, r in records.items() for lang in routes.LANGS}


def section(page: str, name: str) -> str:
    """One section's raw HTML in a page's Markdown source (up to the next heading)."""
    m = re.search(rf'<div class="errdex-section errdex-{name}"[^>]*>(.*?)(?=\n## |\Z)', page, re.S)
    assert m, f"section {name} missing"
    return m.group(1)


def test_title_in_both_languages(pages):
    assert "<h1 class=\"errdex-title\" data-pagefind-meta=\"title\" data-pagefind-weight=\"10\">What causes &#34;Cannot allocate {} KV cache blocks: out of GPU memory&#34; in example-org/servekit?</h1>" in pages[FULL, "en"]
    assert "在 example-org/servekit 中，“Cannot allocate {} KV cache blocks: out of GPU memory” 是什么原因造成的？" in pages[FULL, "zh"]


@pytest.mark.parametrize("lang,labels", [("en", ["Class", "HTTP status", "critical"]), ("zh", ["异常类", "HTTP 状态码", "致命"])])
def test_error_section(pages, lang, labels):
    s = section(pages[FULL, lang], "error")
    for expected in ["Cannot allocate {} KV cache blocks: out of GPU memory", "servekit.CacheOOMError", "E_KV_OOM", "503",
                     "errdex-severity--critical", "example-org/servekit", "kv-cache", "memory", "cuda", *labels]:
        assert expected in s
    if lang == "zh":
        assert "无法分配 {} 个 KV 缓存块：显存不足" in s


def test_meaning_section(pages):
    assert "more KV cache blocks than the GPU has free" in section(pages[FULL, "en"], "meaning")
    assert "调度器向块分配器申请的 KV 缓存块" in section(pages[FULL, "zh"], "meaning")


@pytest.mark.parametrize("lang", routes.LANGS)
def test_source_section(pages, lang):
    s = section(pages[FULL, lang], "source")
    assert "servekit/cache/allocator.py:104" in s
    numbers = re.findall(r'<span class="normal">(\d+)</span>', s)
    assert numbers == ["101", "102", "103", "104", "105", "106"]
    hll = re.findall(r'<span class="hll">(.*?)</span>&#10;|<span class="hll">(.*?)\n</span>', s, re.S)
    highlighted = re.sub(r"<[^>]+>", "", "".join(a or b for a, b in hll))
    assert "raise CacheOOMError" in highlighted and "free = self" not in highlighted
    assert 'href="https://github.com/example-org/servekit/blob/0123456789abcdef0123456789abcdef01234567/servekit/cache/allocator.py#L101-L106"' in s
    label = "View on GitHub (pinned to 0123456789)" if lang == "en" else "在 GitHub 上查看（固定于 0123456789）"
    assert label in s


def test_solutions_fix_and_patterns(pages):
    en, zh = pages[FULL, "en"], pages[FULL, "zh"]
    assert "Lower max_model_len" in section(en, "solutions") and "Worked in 1 of 1 report<" in section(en, "solutions")
    assert 'href="https://example.org/issues/20"' in section(en, "solutions") and "lowering the batch fixed it" in section(en, "solutions")
    fix = section(en, "example-fix")
    assert "Before" in fix and "After" in fix and "32768" in fix and "8192" in fix
    handling = section(en, "handling")
    for expected in ["retry", "Validate before calling", "Type guard", "Try / catch", "CacheOOMError"]:
        assert expected in handling
    assert "降低 max_model_len" in section(zh, "solutions")
    assert "修改前" in section(zh, "example-fix") and "调用前校验" in section(zh, "handling")


def test_prevention_and_when(pages):
    assert "Size max_model_len" in section(pages[FULL, "en"], "prevention")
    when = section(pages[FULL, "en"], "when")
    assert "Long prompts with a large batch" in when and "70B model" in when


def test_zh_fallback_mark_per_section(pages):
    zh = pages[FULL, "zh"]
    prevention = section(zh, "prevention")
    assert prevention.count("尚未翻译") == 2 and "Size max_model_len" in prevention
    when = section(zh, "when")
    assert "长提示词配合大批量" in when and "尚未翻译" not in when.split("Serving a 70B")[0]
    assert 'lang="en">Serving a 70B model on a single 80 GB GPU. <span class="errdex-badge errdex-badge--untranslated" lang="zh">尚未翻译</span>' in when
    assert "not yet translated" not in pages[FULL, "en"]


@pytest.mark.parametrize("lang", routes.LANGS)
def test_rates_are_counted_from_reports(pages, lang):
    dead = section(pages[FULL, lang], "dead-ends")
    work = section(pages[FULL, lang], "workarounds")
    # Six linked reports on the dead end: a sentence, a bar (from 5 reports), the Wilson interval, every link.
    assert ("Failed in 5 of 6 reports" if lang == "en" else "6 份报告中有 5 份无效") in dead
    assert 'style="width: 83%"' in dead and 'aria-valuenow="83"' in dead
    assert ("95% interval 44%–97%" if lang == "en" else "95% 置信区间 44%–97%") in dead
    assert all(f'href="https://example.org/issues/{n}"' in dead for n in range(10, 16))
    # No reports on the workaround: the advice, and no number at all.
    assert "errdex-rate" not in work and "errdex-tally" not in work and "%" not in work
    assert ("Restart the server" if lang == "en" else "重启服务") in dead
    assert ("Enable prefix caching" if lang == "en" else "启用前缀缓存") in work


def test_versions_os_docs(pages):
    en, zh = pages[FULL, "en"], pages[FULL, "zh"]
    versions = section(en, "versions")
    assert versions.count("<tr>") == 3 and "servekit 0.4.2" in versions and "fixed" in versions
    assert "nvidia-smi" in section(en, "os")
    assert 'href="https://example.org/docs/memory"' in section(en, "docs") and "Memory planning" in section(en, "docs")
    assert "显存规划" in section(zh, "docs") and "以前这只是一条警告" in section(zh, "versions")


@pytest.mark.parametrize("lang", routes.LANGS)
def test_related_links_resolve_aliases(pages, lang):
    related = section(pages[FULL, lang], "related")
    # leads_to names the id, confused_with an alias of the same record: both link the canonical page.
    assert related.count('href="../request-timeout/"') == 2
    assert ("Leads to" if lang == "en" else "可能引发") in related
    assert ("Often confused with" if lang == "en" else "容易混淆") in related
    assert 'href="../kv-cache-out-of-memory/"' in section(pages["demo/request-timeout", lang], "related")


def test_provenance(pages):
    prov = section(pages[FULL, "en"], "provenance")
    assert "%" not in prov  # no typed confidence
    for expected in ["reproduced", "2025-03-01", "2026-02-10", "2026-03-01",
                     'href="https://github.com/example-org/servekit/commit/0123456789abcdef0123456789abcdef01234567"', "0123456789<"]:
        assert expected in prov
    zh = section(pages[FULL, "zh"], "provenance")
    assert "已复现" in zh


@pytest.mark.parametrize("lang", routes.LANGS)
def test_links_section(pages, lang):
    links = section(pages[FULL, lang], "links")
    assert f'class="errdex-json" href="../../../{"../" if lang == "zh" else ""}api/errors/{FULL}.json"' in links
    assert 'href="https://github.com/errdex/errdex/edit/main/data/errors/demo/kv-cache-out-of-memory.yaml"' in links
    # "Report a problem" opens the correction form with the record filled in.
    assert "https://github.com/errdex/errdex/issues/new?template=correction.yml&amp;title=Correction%3A+demo%2Fkv-cache-out-of-memory&amp;record=demo%2Fkv-cache-out-of-memory" in links


def test_each_solution_links_a_prefilled_fix_report(pages):
    solutions = section(pages[FULL, "en"], "solutions")
    assert solutions.count("template=fix-report.yml") == 2 * solutions.count("<li>")
    assert "fix=%2Fsolutions%2F0&amp;outcome=worked" in solutions and "fix=%2Fsolutions%2F0&amp;outcome=failed" in solutions
    assert ">Worked for me</a> · <a" in solutions and ">对我有效</a>" in section(pages[FULL, "zh"], "solutions")


def test_the_page_leads_with_the_answer(pages):
    page = pages[FULL, "en"]
    summary = page.index('class="errdex-summary"')
    best = page.index('class="errdex-best-fix"')
    assert page.index("<h1") < summary < best < page.index("{: #the-error }") < page.index("{: #solutions }") < page.index("{: #source }")
    assert "Seen in servekit 0.4.2" in page[summary:best]


def test_superseded_notice(pages):
    assert re.search(r'errdex-superseded.*?This record is retired.*?href="../kv-cache-out-of-memory/"', pages["demo/old-allocation-error", "en"], re.S)
    assert "此条目已停用" in pages["demo/old-allocation-error", "zh"]


# ---------------------------------------------------------------- browse pages


@pytest.fixture(scope="module")
def browse(records):
    return {lang: render.render_browse_pages(list(records.values()), lang) for lang in routes.LANGS}


@pytest.mark.parametrize("lang", routes.LANGS)
def test_browse_list_pages(browse, lang):
    listing = browse[lang]["browse/project/example-org/servekit/index.md"]
    assert listing.count('class="errdex-entry"') == 4
    assert "Cannot allocate {} KV cache blocks: out of GPU memory" in listing and "errdex-severity--critical" in listing
    assert browse[lang]["browse/tag/memory/index.md"].count('class="errdex-entry"') == 2
    assert 'href="../../../projects/"' in listing


def test_severity_index_uses_value_labels_in_order(browse):
    sev = browse["zh"]["browse/severities.md"]
    assert "致命" in sev
    shown = re.findall(r"errdex-severity--(\w+)", sev)
    assert shown == sorted(shown, key=["critical", "error", "warning", "info"].index)


def test_generated_pages_are_known_without_rendering(records, browse):
    """The routes table gives every generated page of a dataset; rendering gives exactly those."""
    known = routes.generated_pages(list(records.values()))
    assert set(browse["en"]) == {path for path, p in known.items() if p.route != "error"}
    assert {routes.page_path("error", rid) for rid in records} <= set(known)


@pytest.mark.parametrize("lang", routes.LANGS)
def test_browse_snapshot(browse, bless, lang):
    """One browse page's source; re-bless with ERRDEX_BLESS=1 after an intended change."""
    _check_snapshot(browse[lang]["browse/project/example-org/servekit/index.md"], SNAPSHOTS / f"browse-project-servekit.{lang}.md", bless)


def _check_snapshot(text: str, golden: Path, bless: bool) -> None:
    if bless or not golden.exists():
        golden.write_text(text, encoding="utf-8")
        if not bless:
            pytest.fail(f"wrote the missing snapshot {golden.name}; check it and run again")
    assert text == golden.read_text(encoding="utf-8"), f"{golden.name} differs; run with ERRDEX_BLESS=1 if intended"


@pytest.mark.parametrize("text", ["<script>alert(1)</script> --flag=<b>x</b> `<img src=x onerror=alert(1)>`",
                                  "`vllm serve <b>m</b> --max-model-len 8192 --x '\"'`", "pip install x<svg onload=1>  y"])
def test_rich_text_makes_only_its_own_tags(text):
    out = str(markup.rich(text))
    assert set(re.findall(r"</?([a-z]+)", out)) <= {"code", "pre"}
    assert "<b>" not in out and "<img" not in out and "<svg" not in out and "<script" not in out


def test_rich_text_marks_flags_code_and_commands():
    assert str(markup.rich("Raise --gpu-memory-utilization (e.g. 0.95)")) == 'Raise <code class="errdex-flag">--gpu-memory-utilization</code> (e.g. 0.95)'
    assert str(markup.rich("run `hf auth login` first")) == "run <code>hf auth login</code> first"
    assert str(markup.rich("Relaunch:\nvllm serve m --max-model-len 8192")) == 'Relaunch:\n<pre class="errdex-command"><code>vllm serve m --max-model-len 8192</code></pre>'
    assert markup.has_block("Relaunch:\nvllm serve m --max-model-len 8192") and not markup.has_block("a well-known re-run")


def test_example_fix_diff_marks_the_changed_words_and_escapes_everything():
    out = str(markup.diff_block("launch --max-batch-prefill-tokens 8192 <x>", "launch --max-batch-prefill-tokens 2048 <x>\n<script>"))
    assert '<span class="errdex-diff__del">- launch --max-batch-prefill-tokens <mark>8192</mark> &lt;x&gt;</span>' in out
    assert '<span class="errdex-diff__add">+ launch --max-batch-prefill-tokens <mark>2048</mark> &lt;x&gt;</span>' in out
    assert '<span class="errdex-diff__add">+ <mark>&lt;script&gt;</mark></span>' in out


def test_same_failure_links_make_groups_shown_on_every_member(records):
    from generator.records.model import Record

    def rec(rid: str, same: list[str]) -> Record:
        base = records["demo/kv-cache-out-of-memory"].model_dump()
        base.update(id=rid, aliases=[], related={"same_failure": same}, superseded_by=None)
        return Record.model_validate(base)

    group = [rec("demo/a", ["demo/b"]), rec("demo/b", []), rec("demo/c", ["demo/b"]), rec("demo/d", [])]
    data = render.Dataset(group)
    assert data.same_failure == {"demo/a": ["demo/b", "demo/c"], "demo/b": ["demo/a", "demo/c"], "demo/c": ["demo/a", "demo/b"]}
    page = render.render_error_page(group[1], "en", data, LINKS)
    related = section(page, "related")
    assert "The same failure in other stacks" in related and related.count("errdex-related--same_failure") == 2
    assert "其他框架中的同一故障" in render.render_error_page(group[1], "zh", data, LINKS)
