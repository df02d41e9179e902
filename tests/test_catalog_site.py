"""The catalog on the site and in the API (generator/site/catalogpages.py, generator/site/frames.py), its release changes
(generator/catalog/query.py) and the line of each release a site keeps (harvest, traceback fit).

The site is built from a copy of the fixture dataset whose catalog holds, besides tests/fixtures/catalog, one
hostile entry (markup in its template, path and statement) and one reworded message, with made-up ids: the
catalog's checks would refuse them, so this build has them switched off (tests/test_security_catalog.py builds
every field of a hostile catalog the same way, and shows that a checked build publishes none of it)."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from generator import routes
from generator.catalog.query import entry_title
from generator.catalog.reader import load_catalog
from generator.catalog.query import diff_errors, release_changes
from generator.cli import main
from generator.catalog.query import traceback_fit
from conftest import DATASET, serving
from test_security_catalog import unchecked

CATALOG = DATASET.parent / "catalog"
HOSTILE_ID = "demo/0123456789abcdef"
HOSTILE = "<script>alert(1)</script> {} </h3><img src=x onerror=alert(2)> ERRDEXFRAMEBODY"
OLD, NEW = "demo/1111111111111111", "demo/2222222222222222"  # one message, reworded in 0.3.0
# a guide of upstream text: markup, a label's own hole and a replacement pattern, in every part
HOSTILE_GUIDE = {"release": "0.3.0", "path": "servekit/x.py", "line": 30, "guard": {"kind": "else", "source": "<img src=x onerror=alert(5)> {release}"},
                 "comment": "</dd><script>alert(6)</script>", "doc": "<b>doc</b> $& $1",
                 "options": [{"kind": "flag", "name": "max_len", "flag": "--max-len", "default": "<i>4096</i> {value} $&", "help": "<a href=x>help</a>",
                              "path": "servekit/args.py", "line": 7}]}


def _entry(eid: str, template: str, releases: list, sites: list, **more) -> str:
    data = {"exception": "ValueError", "first": releases[0][0], "function": "f", "id": eid, "kind": "raise", "last": releases[-1][1],
            "level": None, "literal": "unusual literal", "pattern": "unusual literal (.+)", "project": "demo", "releases": releases,
            "sites": sites, "specificity": 20, "template": template, "tier": "user", **more}
    return json.dumps(data, sort_keys=True) + "\n"


@pytest.fixture(scope="module")
def catalog_dir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("catalog-site")
    shutil.copytree(DATASET, root / "dataset")
    shutil.copytree(CATALOG, root / "catalog", ignore=shutil.ignore_patterns("valid", "invalid"))
    with (root / "catalog" / "demo.jsonl").open("a", encoding="utf-8") as f:
        f.write(_entry(HOSTILE_ID, HOSTILE, [["0.1.0", "0.3.0"]], [
            {"from": "0.1.0", "to": "0.3.0", "path": "servekit/<b>x</b>.py", "line": 30, "statement": "raise ValueError('</pre><script>alert(3)</script>')",
             "lines": [["0.1.0", 10], ["0.2.0", 20], ["0.3.0", 30]]}], guide=HOSTILE_GUIDE))
        f.write(_entry(OLD, "Prefix cache is off for {}", [["0.1.0", "0.2.0"]],
                       [{"from": "0.1.0", "to": "0.2.0", "path": "servekit/sched.py", "line": 40, "statement": "raise ValueError(...)"}], variants=[NEW]))
        f.write(_entry(NEW, "Prefix cache is off for {}.", [["0.3.0", "0.3.0"]],
                       [{"from": "0.3.0", "to": "0.3.0", "path": "servekit/sched.py", "line": 44, "statement": "raise ValueError(...)"}], variants=[OLD]))
    return root / "catalog"


@pytest.fixture(scope="module")
def site(catalog_dir) -> Path:
    out = catalog_dir.parent / "site"
    with unchecked():
        assert main(["build", "--out", str(out), "--data", str(catalog_dir.parent / "dataset"), "--quiet"]) == 0
    return out


def test_release_changes_agree_with_diff_errors(catalog_dir):
    catalog = load_catalog(catalog_dir)
    project = catalog.projects["demo"]
    changes = release_changes(project)
    assert [(project.releases[c.before], project.releases[c.after]) for c in changes] == [("0.1.0", "0.2.0"), ("0.2.0", "0.3.0")]
    for c in changes:
        diff = diff_errors(catalog, "demo", project.releases[c.before], project.releases[c.after])
        got = {"added": [e.id for e in c.added], "removed": [e.id for e in c.removed], "moved": [e.id for e in c.moved],
               "reworded": [b.id for _, b in c.reworded]}
        want = {kind: [x["id"] for x in diff["changes"] if x["change"] == kind] for kind in got}
        assert got == {k: sorted(v) for k, v in want.items()}
    last = changes[-1]
    assert [(a.id, b.id) for a, b in last.reworded] == [(OLD, NEW)]  # not one removed and one added
    assert [e.id for e in changes[0].added] == ["demo/6c82ce52ae657a8f"] and [e.id for e in last.removed] == ["demo/ed3ec881d68f6430"]
    assert HOSTILE_ID in [e.id for e in changes[0].moved] and "demo/93b6920f7d0b9a6c" in [e.id for e in last.moved]


def test_release_changes_agree_with_diff_errors_on_any_one_site_entry():
    """An entry with one site moves where the site's line changes and the entry is in both releases: stretches one
    after another (as the reader makes them) or with a gap, ranges with gaps or not, as diff_errors (which asks
    each release's line) finds."""
    from itertools import product

    from generator.catalog.reader import Catalog, Entry, Project, Site

    project = Project("demo", releases=[f"0.{i}.0" for i in range(6)])
    shapes = [((0, 5, 10), ()), ((0, 5, 12), ((0, 1, 10), (2, 3, 11), (4, 5, 12))), ((1, 4, 11), ((1, 2, 10), (3, 4, 11))),
              ((1, 3, 11), ((0, 1, 10), (2, 5, 11))), ((0, 5, 10), ((0, 1, 10), (3, 5, 11))), ((0, 4, 10), ((0, 1, 10), (2, 3, 10), (4, 4, 11)))]
    for n, (((a, b, line), stretches), ranges) in enumerate(product(shapes, ([(0, 5)], [(0, 1), (3, 5)], [(1, 4)], []))):
        eid = f"demo/{n:016x}"
        site = Site(a, b, "servekit/x.py", line, "raise ValueError(...)", {}, stretches)
        project.entries.append(Entry({"id": eid, "template": f"message {n}", "pattern": f"message {n}"}, [site], ranges or [(a, b)]))
    catalog = Catalog({"demo": project})
    for c in release_changes(project):
        diff = diff_errors(catalog, "demo", project.releases[c.before], project.releases[c.after])
        assert [e.id for e in c.moved] == sorted(x["id"] for x in diff["changes"] if x["change"] == "moved"), c.after
    assert sum(len(c.moved) for c in release_changes(project)) > 10


def test_a_frame_fits_only_the_releases_with_the_statement_at_its_line(catalog_dir):
    catalog = load_catalog(catalog_dir)
    frame = 'Traceback (most recent call last):\n  File "/venv/lib/python3.12/site-packages/servekit/<b>x</b>.py", line {}, in f\n'
    for line, fits in ((10, [["0.1.0", "0.1.0"]]), (20, [["0.2.0", "0.2.0"]]), (30, [["0.3.0", "0.3.0"]])):
        got = traceback_fit(catalog, frame.format(line).encode())
        assert [f["releases"] for f in got] == [fits]
    assert traceback_fit(catalog, frame.format(15).encode()) == []
    # a frame that calls at line 20, where 0.2.0 raises: its source line is not the raise, so it says nothing
    assert traceback_fit(catalog, (frame.format(20) + "    self.check(x)\n").encode()) == []
    raised = frame.format(20) + "    raise ValueError('</pre><script>alert(3)</script>')\n"
    assert [f["releases"] for f in traceback_fit(catalog, raised.encode())] == [[["0.2.0", "0.2.0"]]]


def test_the_harvest_keeps_each_line_of_a_moving_statement():
    from generator.harvest.catalog import Fold
    from generator.harvest.config import Project
    from generator.harvest.sites import Site

    fold = Fold(Project("demo", "example-org/servekit", "pypi", ["python"], []))
    site = lambda line: Site("Cannot load the adapter {}", "raise", line, "raise ValueError(f'Cannot load the adapter {name}')", "load", "ValueError")  # noqa: E731
    for version, line in (("0.1.0", 10), ("0.2.0", 10), ("0.3.0", 12), ("0.4.0", 12)):
        fold.add_release(version, [("servekit/lora.py", site(line))])
    (entry,) = fold.entries.values()
    assert entry.sites == [{"from": "0.1.0", "to": "0.4.0", "path": "servekit/lora.py", "line": 12,
                            "statement": "raise ValueError(f'Cannot load the adapter {name}')", "lines": [["0.1.0", 10], ["0.3.0", 12]]}]


def test_every_release_pair_has_a_page_and_a_file(site):
    for lang in routes.LANGS:
        for release in ("0.2.0", "0.3.0"):
            assert (site / routes.page_file(routes.catalog_page_url("catalog_release", "demo", release, lang=lang))).is_file()
            assert (site / "api" / routes.api_path("catalog_changes", release, project="demo")).is_file()
        assert not (site / routes.catalog_page_url("catalog_release", "demo", "0.1.0", lang=lang)).exists()  # no release before it
        assert not (site / routes.lang_root(lang) / "catalog" / "_frame").exists()  # the frames are gone
    changes = json.loads((site / "api" / routes.api_path("catalog_changes", "0.3.0", project="demo")).read_text())
    assert changes["counts"] == {"added": 0, "removed": 1, "reworded": 1, "moved": 2}
    assert changes["reworded"][0]["before"]["template"] == "Prefix cache is off for {}"
    page = (site / routes.catalog_page_url("catalog_release", "demo", "0.3.0", lang="zh") / "index.html").read_text()
    assert "相对 0.2.0 新增、移除和改写的错误" in page and "Prefix cache is off for {}." in page and "原为" in page


def test_a_release_page_links_each_change_to_its_own_page(site):
    page = (site / routes.page_file(routes.catalog_page_url("catalog_release", "demo", "0.3.0", lang="en"))).read_text()
    reworded = page[page.index('id="reworded"'):]
    assert ('was: <code>Prefix cache is off for {}</code> → <a href="../../messages/2222222222222222.html">'
            "<code>Prefix cache is off for {}.</code></a>") in reworded
    assert 'class="errdex-cat-facts"' not in page  # the facts are on the entry's page, once


def test_a_release_page_counts_the_changes_in_internal_code_and_links_the_api_file(catalog_dir):
    from generator.site.catalogpages import CatalogSite

    with unchecked():
        view = CatalogSite.load(catalog_dir, [], None)
    project = view.catalog.projects["demo"]
    internal = next(e for e in project.entries if e.data["tier"] == "internal")
    view.changes["demo"][-1].added.append(internal)  # as if 0.3.0 added it
    page = view._release_page(project, len(view.changes["demo"]) - 1, ("en", "zh"))
    added = page["en"][2][page["en"][2].index('id="added"'):page["en"][2].index('id="removed"')]
    assert "Added (1)" in added and "block table corrupted" not in added
    assert '<a href="../../../../api/catalog/demo/changes/0.3.0.json">and 1 in internal code' in added
    assert '<a href="../../../../../api/catalog/demo/changes/0.3.0.json">另有 1 条位于内部代码' in page["zh"][2]


def test_each_user_facing_entry_has_a_lean_page_in_each_language(site):
    """What a search engine sends a person to: the short title and message in the page's title, the facts, the
    guide labelled as read from the code, the raise sites, the record or how to start one; in both languages,
    each naming the other; catalog text only ever as text. An internal entry has none (the entry view shows it)."""
    for lang in ("en", "zh"):
        page = (site / routes.page_file(routes.catalog_page_url("catalog_message", "demo", "6c82ce52ae657a8f", lang=lang))).read_text()
        title = re.search(r"<title>(.*?)</title>", page).group(1)
        assert title == ("Scheduler queue is full (… waiting) (demo error) - errdex" if lang == "en" else "Scheduler queue is full (… waiting)（demo 错误） - errdex")
        assert '<meta name="description" content="demo' in page and "Scheduler queue is full ({} waiting)" in page
        assert ("Read from the code of demo 0.3.0 (not a curated fix)" if lang == "en" else "读自 demo 0.3.0 的代码（并非人工整理的修复方法）") in page
        assert "<code>len(self.waiting) &gt;= self.max_waiting</code>" in page and "<code>--max-waiting</code>" in page
        assert "errdex new demo/scheduler-queue-is-full-waiting --from-catalog demo/6c82ce52ae657a8f" in page
        assert "servekit/sched.py:88" in page and "0.2.0" in page
        for other in ("en", "zh"):
            assert f'hreflang="{other}" href="https://errdex.dev/{routes.lang_root(other)}catalog/demo/messages/6c82ce52ae657a8f.html"' in page
        assert "<script" not in page and "data-pagefind-body" not in page  # a lean page: the theme's styles, none of its scripts; never indexed
    hostile = (site / routes.page_file(routes.catalog_page_url("catalog_message", "demo", HOSTILE_ID.split("/")[1], lang="en"))).read_text()
    for raw in ("<script>alert", "<img src=x", "</pre><script>", "</dd><script>", "<b>doc</b>", "<i>4096</i>", "<a href=x>", "ERRDEXFRAMEBODY</p>"):
        assert raw not in hostile, raw
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in hostile
    assert not (site / routes.catalog_page_url("catalog_message", "demo", "c9fb72e4f5596537")).exists()  # internal
    old = (site / routes.page_file(routes.catalog_page_url("catalog_message", "demo", "1111111111111111"))).read_text()
    assert '<h2 id="variants">Other wordings of this message</h2><ul><li><a href="2222222222222222.html"><code>Prefix cache is off for {}.</code>' in old
    module = (site / routes.catalog_page_url("catalog_module", "demo", "servekit.v2") / "index.html").read_text()
    assert '<h3 id="e-93b6920f7d0b9a6c"><a href="../../messages/93b6920f7d0b9a6c.html">' in module
    internal = (site / routes.catalog_page_url("catalog_module", "demo", "servekit.cache") / "index.html").read_text()
    assert '<h3 id="e-c9fb72e4f5596537"><code>' in internal and "entry/?id=demo/c9fb72e4f5596537" in internal


@pytest.mark.browser
def test_a_lean_page_shows_its_entry_in_the_browser(browser, site):
    with serving(site) as url:
        pg = browser.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        pg.goto(url + routes.catalog_page_url("catalog_message", "demo", HOSTILE_ID.split("/")[1], lang="zh"))
        assert pg.inner_text("h1").startswith("<script>alert(1)</script>")  # text, not markup
        assert pg.evaluate("document.querySelectorAll('article script, article img').length") == 0
        assert pg.evaluate("getComputedStyle(document.querySelector('.md-header')).backgroundColor") != "rgba(0, 0, 0, 0)"  # the theme's styles
        pg.click("a.errdex-lang")
        assert pg.url.endswith("/catalog/demo/messages/0123456789abcdef.html") and "/zh/" not in pg.url
        pg.close()
    assert errors == []


def test_framed_pages_carry_no_layout_white_space(site):
    page = (site / routes.catalog_page_url("catalog_module", "demo", "servekit") / "index.html").read_text(encoding="utf-8")
    assert "\n\n" not in page and not re.search(r"\n[ \t]", page)
    assert 'id="e-2222222222222222"' in page


def test_catalog_text_never_becomes_markup(site):
    pages = [p for p in site.rglob("*.html") if "/catalog/" in p.as_posix()]
    assert len(pages) >= 2 * 7
    for p in pages:
        text = p.read_text(encoding="utf-8")
        assert "<script>alert" not in text and "<img src=x" not in text and "<b>x</b>" not in text, p
    # its folder, "servekit/<b>x<", is a module whose page path escapes every character but letters, digits and '-'
    module = (site / routes.catalog_page_url("catalog_module", "demo", "servekit._3c_b_3e_x_3c_") / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in module and "ERRDEXFRAMEBODY" in module  # a marker in data stays text
    assert re.search(r'<h3 id="e-0123456789abcdef"><a href="../../messages/0123456789abcdef.html"><code>&lt;script&gt;', module)


def test_the_api_files(site):
    api = site / "api"
    index = json.loads((api / routes.api_path("catalog_index")).read_text())
    assert [p["project"] for p in index["projects"]] == ["demo"] and index["projects"][0]["releases"] == ["0.1.0", "0.2.0", "0.3.0"]
    project = json.loads((api / routes.api_path("catalog_project", project="demo")).read_text())
    manifest = json.loads((api / routes.api_path("manifest")).read_text())
    import hashlib

    # the entries files: one line per entry (in id order) in the file named by its hash's first two digits, each
    # line the entry's document; each project's index lists the sha256 of every line
    shards = sorted((api / "catalog" / "demo" / "entries").iterdir())
    assert [p.name for p in shards] == sorted({e["id"].split("/")[1][:2] + ".ndjson" for e in project["entries"]})
    lines = {}
    for path in shards:
        body = path.read_bytes()
        assert body.endswith(b"\n") and path == api / routes.api_path("catalog_entries", path.stem, project="demo")
        for line in body.splitlines(keepends=True):
            doc = json.loads(line)
            assert doc["id"].split("/")[1].startswith(path.stem)
            lines[doc["id"]] = line
        assert list(lines) == sorted(lines)
    assert json.loads(lines[HOSTILE_ID])["guide"] == HOSTILE_GUIDE  # an entry's guide is in its line, as the catalog has it
    assert {e["id"]: e["sha256"] for e in project["entries"]} == {k: hashlib.sha256(v).hexdigest() for k, v in lines.items()}
    assert not [f for f in manifest["files"] if "/entries/" in f] and routes.api_path("catalog_project", project="demo") in manifest["files"]
    doc = json.loads(lines[HOSTILE_ID])
    assert doc["template"] == HOSTILE and doc["new_record"]["command"].startswith("errdex new demo/script-alert")
    assert doc["sites"][0]["lines"] == [["0.1.0", 10], ["0.2.0", 20], ["0.3.0", 30]]
    openapi = json.loads((api / routes.api_path("openapi")).read_text())
    for name, key in (("catalog_index", None), ("catalog_project", None), ("catalog_entries", "{shard}"), ("catalog_changes", "{release}")):
        assert "/" + routes.api_path(name, key, project="{project}") in openapi["paths"], name
    entries = openapi["paths"]["/" + routes.api_path("catalog_entries", "{shard}", project="{project}")]["get"]["responses"]["200"]["content"]
    assert entries["application/x-ndjson"]["examples"]["first"]["value"].encode() == next(iter(lines.values()))
    sitemap = (site / "sitemap-pages.xml").read_text()
    assert "/catalog/demo/releases/0.3.0/" in sitemap and "/zh/catalog/demo/modules/servekit/" in sitemap
    messages = (site / "sitemap-messages-1.xml").read_text()
    assert "/catalog/demo/messages/2222222222222222.html" in messages and "/zh/catalog/demo/messages/2222222222222222.html" in messages
    assert "c9fb72e4f5596537" not in messages  # internal: no page of its own


@pytest.mark.browser
def test_the_entry_view_renders_an_entry_as_text(browser, site):
    with serving(site) as url:
        context = browser.new_context()
        pg = context.new_page()
        dialogs = []
        pg.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        pg.goto(url + routes.catalog_page_url("catalog_entry", lang="zh") + "?id=" + HOSTILE_ID)
        pg.wait_for_selector(".errdex-cat-view p code")
        assert pg.locator(".errdex-cat-view p code").first.inner_text() == HOSTILE  # the message, as text
        assert pg.locator(".errdex-cat-view h2").inner_text() == entry_title(HOSTILE)  # its title, as text too
        assert pg.locator(".errdex-cat-view script, .errdex-cat-view img").count() == 0 and not dialogs
        view = pg.locator(".errdex-cat-view").inner_text()
        assert "尚无记录解释它" in view
        # its guide: read from the code, every part as text
        assert "读自 demo 0.3.0 的代码（并非人工整理的修复方法）" in view
        code = pg.locator(".errdex-cat-code")
        assert code.locator("code").first.inner_text() == HOSTILE_GUIDE["guard"]["source"]
        text = code.inner_text()
        assert "以下条件不成立时触发" in text and HOSTILE_GUIDE["comment"] in text and "<b>doc</b> $& $1" in text
        assert "--max-len (默认值 <i>4096</i> {value} $&): <a href=x>help</a>" in text
        assert code.locator("script, img, i, b, a").count() == 0
        issue = pg.locator(".errdex-cat-view a", has_text="在 issue 中提出").get_attribute("href")
        assert "template=new-error.yml" in issue and "message=%3Cscript%3Ealert" in issue
        pg.goto(url + routes.catalog_page_url("catalog_entry", lang="en") + "?id=demo/ffffffffffffffff")
        pg.wait_for_selector("text=No catalog entry has this id")
        context.close()


@pytest.mark.browser
@pytest.mark.parametrize("lang", routes.LANGS)
def test_site_search_finds_a_catalog_message(browser, site, lang):
    with serving(site) as url:
        context = browser.new_context()
        pg = context.new_page()
        pg.goto(url + routes.lang_root(lang), wait_until="networkidle")
        pg.keyboard.press("/")
        pg.keyboard.type("block table corrupted")
        pg.wait_for_selector(".errdex-search-catalog")
        link = pg.locator(".errdex-search-catalog a").first
        assert "block table corrupted at slot" in link.inner_text()
        assert link.get_attribute("href").endswith(routes.catalog_page_url("catalog_module", "demo", "servekit.cache", lang=lang) + "#e-c9fb72e4f5596537")
        context.close()


@pytest.mark.browser
@pytest.mark.parametrize("lang", routes.LANGS)
def test_the_paste_page_answers_version_drift_from_the_symbol_index(browser, site, lang):
    line = "ImportError: cannot import name 'Scheduler' from 'servekit' (/venv/lib/python3.11/site-packages/servekit/__init__.py)"
    with serving(site) as url:
        context = browser.new_context()
        pg = context.new_page()
        pg.goto(url + routes.lang_root(lang) + routes.page_url("match") + "?version=demo==0.1.0")
        pg.wait_for_selector("[data-errdex-matcher][data-state=ready]", timeout=15000)
        pg.fill("[data-errdex-matcher] textarea", line)
        pg.wait_for_selector("[data-errdex-matcher][data-state=done]", timeout=15000)
        drift = pg.locator("[data-errdex-drift=import]")
        assert drift.count() == 1 and drift.is_visible()
        answer = drift.locator("[data-errdex-drift-verdict=added]")
        assert answer.locator(".errdex-drift__symbol code").inner_text() == "servekit.Scheduler"
        text = answer.inner_text()
        if lang == "zh":
            assert "servekit.Scheduler 在 servekit 0.2.0 中加入" in text and "你的 servekit 0.1.0 没有它。" in text
        else:
            assert "servekit.Scheduler was added in servekit 0.2.0" in text and "Your servekit 0.1.0 does not have it." in text
        assert drift.locator("[data-errdex-copy]").get_attribute("data-errdex-copy") == "pip install 'servekit>=0.2.0'"
        # the status line says a drift line was answered, though no record or catalog entry matched
        assert ("版本漂移：1 行" if lang == "zh" else "Version drift: 1 line answered") in pg.locator("[data-errdex-matcher-status]").inner_text()
        # a line of no drift shape leaves the drift list empty and hidden
        pg.fill("[data-errdex-matcher] textarea", "RuntimeError: something else entirely")
        pg.wait_for_function("document.querySelector('[data-errdex-matcher]').dataset.input === '37' && "
                             "document.querySelector('[data-errdex-matcher]').dataset.state === 'done'", timeout=15000)
        assert pg.locator("[data-errdex-drift]").count() == 0 and not pg.locator("[data-errdex-matcher-drift]").is_visible()
        context.close()


def _list_project(folder: Path, slug: str) -> None:
    """List `slug` in releases.json and projects.yaml as demo is listed."""
    import copy

    import yaml

    releases = json.loads((folder / "releases.json").read_text(encoding="utf-8"))
    (folder / "releases.json").write_text(json.dumps({**releases, slug: releases["demo"]}), encoding="utf-8")
    config = yaml.safe_load((folder / "projects.yaml").read_text(encoding="utf-8"))
    config["projects"][slug] = copy.deepcopy(config["projects"]["demo"])  # no shared node: YAML would write an alias
    (folder / "projects.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")


def test_a_project_without_releases_or_messages_gets_no_pages(tmp_path):
    from generator.site.catalogpages import CatalogSite

    shutil.copytree(CATALOG, tmp_path / "catalog", ignore=shutil.ignore_patterns("valid", "invalid"))
    (tmp_path / "catalog" / "empty.jsonl").write_text("", encoding="utf-8")
    _list_project(tmp_path / "catalog", "empty")  # listed in releases.json and projects.yaml, with no message
    view = CatalogSite.load(tmp_path / "catalog", [], None)
    assert sorted(view.catalog.projects) == ["demo"]
    assert all(url.startswith("catalog/demo/") for url in view.html_pages("en"))
    (tmp_path / "catalog" / "demo.jsonl").write_text("", encoding="utf-8")
    assert CatalogSite.load(tmp_path / "catalog", [], None) is None  # no message at all: a site without the catalog


def test_a_releases_changes_give_the_line_in_that_release(tmp_path):
    from generator.site.catalogpages import CatalogSite

    shutil.copytree(CATALOG, tmp_path / "catalog", ignore=shutil.ignore_patterns("valid", "invalid"))
    moving = "demo/3333333333333333"  # added in 0.2.0 at line 50; its statement moves to line 52 in 0.3.0
    with (tmp_path / "catalog" / "demo.jsonl").open("a", encoding="utf-8") as f:
        f.write(_entry(moving, "Adapter {} is not loaded", [["0.2.0", "0.3.0"]], [
            {"from": "0.2.0", "to": "0.3.0", "path": "servekit/lora.py", "line": 52, "statement": "raise ValueError(...)",
             "lines": [["0.2.0", 50], ["0.3.0", 52]]}]))
    with unchecked():  # a made-up id
        files = CatalogSite.load(tmp_path / "catalog", [], None).api_files("/")
    added = json.loads(files[routes.api_path("catalog_changes", "0.2.0", project="demo")])["added"]
    assert {e["id"]: e["site"]["line"] for e in added}[moving] == 50


def test_a_big_module_is_split_by_folder_then_by_file_and_no_message_is_lost():
    from types import SimpleNamespace

    from generator.site.catalogmodules import MODULE_ENTRIES, MODULE_MIN, split_modules

    paths = (["p/q/r/layers/x.py"] * (MODULE_MIN + 5) + ["p/q/r/layers/y.py"] * (MODULE_MIN + 1)  # a folder: its own page
             + ["p/q/r/models/m%03d.py" % i for i in range(MODULE_ENTRIES + 50) for _ in range(2)]  # many small files
             + ["p/q/r/tiny/t.py"] * 3 + ["p/q/s/z.py"] * 7)
    entries = [SimpleNamespace(path=p, n=i) for i, p in enumerate(paths)]
    modules = split_modules(entries, lambda e: e)
    assert sorted(e.n for part in modules.values() for e in part) == list(range(len(entries)))  # each once
    assert modules["p/q/s"] == entries[-7:]  # under the limit: as before
    assert len(modules["p/q/r/layers"]) == 2 * MODULE_MIN + 6
    models = [name for name in modules if name.startswith("p/q/r/models (")]  # files, in order, pages of at most the limit
    assert len(models) >= 2 and all(len(modules[n]) <= MODULE_ENTRIES for n in models)
    assert models[0] == "p/q/r/models (m000.py – m%03d.py)" % (MODULE_ENTRIES // 2 - 1)
    assert [e.path for e in modules["p/q/r"]] == ["p/q/r/tiny/t.py"] * 3  # a small part stays with its module


def test_a_rebuild_links_the_pages_and_api_files_it_would_write_again(catalog_dir, site, tmp_path, capsys):
    """A build that replaces an earlier one takes the catalog's pages and API files of the same bytes from it (links,
    not writes: generator.safefs.Reuse) and gives the same site, byte for byte; an earlier page whose bytes differ,
    or that is a link, is written anew."""
    out = tmp_path / "site"
    shutil.copytree(site, out)
    page = routes.page_file(routes.catalog_page_url("catalog_message", "demo", "6c82ce52ae657a8f"))
    (out / page).write_bytes((out / page).read_bytes().replace(b"<h1>", b"<h2>", 1))  # same size, other bytes
    other = routes.page_file(routes.catalog_page_url("catalog_message", "demo", "2222222222222222"))
    (tmp_path / "elsewhere.html").write_bytes((out / other).read_bytes())
    (out / other).unlink()
    (out / other).symlink_to(tmp_path / "elsewhere.html")
    capsys.readouterr()
    with unchecked():
        assert main(["build", "--out", str(out), "--data", str(catalog_dir.parent / "dataset")]) == 0
    said = capsys.readouterr().err
    assert re.search(r"wrote 13 catalog pages \(en\); linked 11 files of the same bytes from the last build", said), said
    assert re.search(r"wrote the JSON API with the catalog's \d+ files; linked \d+ files of the same bytes", said), said
    files = sorted(p.relative_to(site).as_posix() for p in site.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    for rel in files:
        assert (out / rel).read_bytes() == (site / rel).read_bytes(), rel
    assert not (out / other).is_symlink() and (tmp_path / "elsewhere.html").stat().st_nlink == 1


def test_a_language_whose_pages_fail_in_the_second_process_fails_the_build_cleanly(catalog_dir, site, tmp_path, monkeypatch, capsys):
    """The languages' catalog pages are written side by side, the second in a forked process
    (catalogbuild.fill_pages): a problem there (here a frame the theme would have changed) fails the build with its
    message, and the site the build would replace is left as it was."""
    from generator.site import frames

    real = frames.fill_pages

    def fragile(site_dir, pages, lean=None, lang="en", *args, **kwargs):
        if lang == "zh":
            raise frames.FrameError("the frame catalog/_frame/ has no ERRDEXFRAMETITLE")
        return real(site_dir, pages, lean, lang, *args, **kwargs)

    monkeypatch.setattr(frames, "fill_pages", fragile)
    out = tmp_path / "site"
    shutil.copytree(site, out)
    before = sorted(p.relative_to(out).as_posix() for p in out.rglob("*"))
    with unchecked():
        assert main(["build", "--out", str(out), "--data", str(catalog_dir.parent / "dataset"), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "writing the catalog pages: the frame catalog/_frame/ has no ERRDEXFRAMETITLE" in err, err
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*")) == before
    assert not list(tmp_path.glob(".site.build-*"))  # nothing half-written left beside it
