"""The catalog (data/catalog) as hostile input: its text never becomes markup, and the build publishes only a
catalog that passed its checks.

1. Every string of releases.json, projects.yaml, links.json and the entries carries markup: event handlers,
   attribute and script breakers, Markdown links, tables and blank lines, template syntax, comments, entities,
   line and paragraph separators, a path that climbs. The site is built from it with the catalog's checks
   switched off (an attacker's best case) and every HTML and XML file is parsed: no element or attribute of the
   payload is live, the text shows literally, nothing is written outside the site. Chromium loads every catalog
   page in both languages: no script runs.
2. The same catalog, checked: `errdex validate` refuses it field by field, and the build publishes nothing.
3. A catalog with a missing or broken part is a finding of `errdex validate` and stops the build.
"""

from __future__ import annotations

import contextlib
import copy
import json
import shutil
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml

from conftest import DATASET, serving
from generator import routes
from generator.checks import catalog as catalog_checks
from generator.checks.catalog import check_catalog, entry_id
from generator.cli import main

CATALOG = DATASET.parent / "catalog"
MARK = "data-pwned"  # every payload tries to make an element carrying this attribute
PAYLOADS = [
    f"<svg {MARK} onload=alert(1)>",
    f'"><img {MARK} src=x onerror=alert(2)>',
    f"'><img {MARK} src=x onerror=alert(3)>",
    f"</script><script {MARK}>alert(4)</script>",
    f'[x](javascript:alert(5)) <a {MARK} href="javascript:alert(5)">x</a>',
    f"\n\n<img {MARK} src=x onerror=alert(6)>\n\n# {{{{ 7*7 }}}} {{% raw %}}",
    f"| a | b |\n|---|---|\n| <img {MARK} src=x onerror=alert(7)> | {{: onerror=alert(8) }} |",
    f'&lt;img {MARK} src=x onerror=alert(9)&gt; <!-- <iframe {MARK} srcdoc="<script>alert(10)</script>">',
    f"../../../../outside\u2028\u2029`<img {MARK} src=x onerror=alert(11)>`",
]


@contextlib.contextmanager
def unchecked() -> Iterator[None]:
    """The catalog's checks switched off: what the pages make of data that should never pass them. Nothing of such
    a build is kept or read from the cache (a kept share is one made from a checked catalog)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(catalog_checks, "check_catalog", lambda folder: [])
        patch.setenv("ERRDEX_NO_CACHE", "1")
        yield


def _pick(i: int, k: int) -> str:
    return PAYLOADS[(i + k) % len(PAYLOADS)]


def _hostile_entry(i: int, releases: list[str]) -> dict:
    first, last = releases[i], releases[-1]
    site = {"from": first, "to": last, "path": f"servekit/{_pick(i, 1)}/{_pick(i, 2)}.py", "line": 10 + i, "statement": _pick(i, 3)}
    if first != last:
        site["lines"] = [[first, 5], [last, 10 + i]]
    return {
        "id": f"demo/{_pick(i, 0)} {i}", "project": "demo", "template": f"{_pick(i, 4)} {{}} {i}", "pattern": _pick(i, 5),
        "literal": _pick(i, 6), "specificity": 20, "kind": _pick(i, 7), "exception": None if i % 3 == 0 else _pick(i, 8),
        "level": _pick(i, 9), "tier": _pick(i, 10), "function": _pick(i, 11), "sites": [site], "releases": [[first, last]],
        "first": first, "last": last, "variants": [f"demo/{_pick(i + 1, 0)} {i + 1}"],
    }


def write_hostile_catalog(folder: Path) -> Path:
    """A catalog with markup in every string of every file (only the file name, the project slug, stays plain:
    the reader takes no other file)."""
    folder.mkdir(parents=True)
    releases = list(PAYLOADS)
    rows = [{"version": v, "source": _pick(i, 4) if i % 3 == 2 else "pypi", "artifact": _pick(i, 1), "sha256": _pick(i, 2)} if i % 2 else
            {"version": v, "source": "git", "repo": _pick(i, 1), "tag": _pick(i, 2), "commit": _pick(i, 3)} for i, v in enumerate(releases)]
    (folder / "releases.json").write_text(json.dumps({"demo": rows}, indent=1), encoding="utf-8")
    config = {"defaults": {"pip_platforms": PAYLOADS[:2], "pip_python": PAYLOADS[2]},
              "projects": {"demo": {"repo": PAYLOADS[0], "package": PAYLOADS[1], "source": PAYLOADS[2], "languages": PAYLOADS[3:5],
                                    "source_url": f"https://example.org/{{version}}/{{path}}#L{{line}}{PAYLOADS[1]}",
                                    "include": PAYLOADS[2:4], "skip": PAYLOADS[4:6], "user": PAYLOADS[6:8], "strip": PAYLOADS[8],
                                    "aliases": PAYLOADS[:2], "artifact": PAYLOADS[3], "c_calls": {PAYLOADS[4]: {"kind": PAYLOADS[5]}},
                                    "releases": releases}}}
    (folder / "projects.yaml").write_text(yaml.safe_dump(config, allow_unicode=True), encoding="utf-8")
    entries = [_hostile_entry(i, releases) for i in range(len(PAYLOADS))]
    (folder / "demo.jsonl").write_text("".join(json.dumps(e, sort_keys=True, ensure_ascii=False) + "\n" for e in entries), encoding="utf-8")
    links = {"demo/kv-cache-out-of-memory": [entries[0]["id"]], PAYLOADS[3]: [entries[1]["id"]]}
    (folder / "links.json").write_text(json.dumps(links), encoding="utf-8")
    return folder


def _records():
    from generator.checks.pipeline import check

    return check([DATASET], DATASET).records


class _Injected(HTMLParser):
    """Whatever a payload could have made live: its attribute, an event handler, a javascript: address, an
    inline script that calls alert, a frame."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.bad: list[str] = []
        self.text: list[str] = []
        self._script = False

    def handle_starttag(self, tag, attrs) -> None:
        names = [k for k, _ in attrs]
        if MARK in names or any(k.startswith("on") for k in names):
            self.bad.append(f"<{tag} {' '.join(names)}>")
        if any(k in ("href", "src", "action", "formaction", "srcdoc") and "javascript:" in (v or "").lower().replace(" ", "") for k, v in attrs):
            self.bad.append(f"<{tag}> with a javascript: address")
        if tag in ("iframe", "object", "embed"):
            self.bad.append(f"<{tag}>")
        self._script = tag == "script"

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag) -> None:
        self._script = False

    def handle_data(self, data) -> None:
        if self._script and "alert(" in data:
            self.bad.append("an inline script calling alert")
        self.text.append(data)


def live_parts(html: str) -> tuple[list[str], str]:
    parser = _Injected()
    parser.feed(html)
    parser.close()
    return parser.bad, "".join(parser.text)


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory) -> Path:
    from generator.site.build import build_site

    root = tmp_path_factory.mktemp("hostile-catalog")
    folder = write_hostile_catalog(root / "data" / "catalog")
    with unchecked():
        assert build_site(_records(), root / "out" / "site", quiet=True, catalog=folder) == 0
    return root / "out" / "site"


def test_the_hostile_catalog_reaches_the_pages_and_the_api(hostile_site) -> None:
    """The payload is really published (so the checks below are not vacuous), and the API carries it as it is."""
    index = json.loads((hostile_site / "api" / routes.api_path("catalog_index")).read_text(encoding="utf-8"))
    assert index["projects"][0]["releases"] == PAYLOADS and index["projects"][0]["repository"] == PAYLOADS[0]
    pages = [p for p in hostile_site.rglob("index.html") if "catalog" in p.relative_to(hostile_site).parts]
    assert len(pages) >= 2 * (3 + len(PAYLOADS))


def test_no_catalog_text_is_live_in_any_page_or_xml_file(hostile_site) -> None:
    shown = ""
    for path in sorted(hostile_site.rglob("*.html")):
        bad, text = live_parts(path.read_text(encoding="utf-8"))
        assert bad == [], path.relative_to(hostile_site)
        shown += text
    for payload in PAYLOADS:  # each payload is shown, as text, somewhere
        assert payload.strip().split("\n")[0] in shown, payload
    assert "{{ 7*7 }} {% raw %}" in shown  # no template engine saw it
    for path in hostile_site.rglob("*.xml"):
        tree = ElementTree.fromstring(path.read_bytes())
        assert not [el.tag for el in tree.iter() if MARK in el.attrib or el.tag.rsplit("}", 1)[-1] in ("img", "svg", "script")], path


@pytest.mark.parametrize("lang", routes.LANGS)
def test_the_catalog_home_shows_release_names_as_text(hostile_site, lang) -> None:
    home = (hostile_site / routes.catalog_page_url("catalog", lang=lang) / "index.html").read_text(encoding="utf-8")
    bad, text = live_parts(home)
    assert bad == []
    assert PAYLOADS[0] in text and PAYLOADS[-1] in text  # the first and the last release, as they are


def test_nothing_is_written_outside_the_site(hostile_site) -> None:
    root = hostile_site.parent.parent
    assert not [p for p in root.rglob("*") if p.name.startswith("outside")]
    assert {p.name for p in hostile_site.parent.iterdir()} == {"site"}


@pytest.mark.browser
def test_no_catalog_page_runs_a_script_in_chromium(hostile_site, browser) -> None:
    pages = sorted(p.parent.relative_to(hostile_site).as_posix() + "/" for p in hostile_site.rglob("index.html")
                   if "catalog" in p.relative_to(hostile_site).parts)
    assert {routes.catalog_page_url("catalog", lang=lang) for lang in routes.LANGS} <= set(pages)
    with serving(hostile_site) as url:
        context = browser.new_context()
        page = context.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        for rel in pages:
            page.goto(url + rel, wait_until="load")
            assert page.evaluate(f"document.querySelectorAll('[{MARK}], [onerror], [onload], iframe').length") == 0, rel
        page.goto(url + routes.catalog_page_url("catalog", lang="zh"), wait_until="load")
        page.wait_for_timeout(300)
        assert MARK in page.inner_text("body")  # shown as text
        assert dialogs == []
        context.close()


# ---------------------------------------------------------------- the same catalog, checked

def test_validate_refuses_the_hostile_catalog_field_by_field(tmp_path, capsys) -> None:
    folder = write_hostile_catalog(tmp_path / "catalog")
    refused = [(Path(f.path).name, f.pointer, f.line) for f in check_catalog(folder) if f.code == "CAT002"]
    assert {p.split("/")[2] for name, p, _ in refused if name == "releases.json"} == {str(i) for i in range(len(PAYLOADS))}
    assert {p for name, p, _ in refused if name == "projects.yaml"} >= {"/projects/demo/repo", "/projects/demo/package", "/projects/demo/source_url"}
    assert any(name == "links.json" for name, _, _ in refused)
    assert {line for name, _, line in refused if name == "demo.jsonl"} == set(range(1, len(PAYLOADS) + 1))  # every entry
    assert main(["validate", str(folder)]) == 1
    assert "error[CAT002]" in capsys.readouterr().out


def test_the_build_refuses_the_hostile_catalog_and_publishes_nothing(tmp_path, capsys) -> None:
    shutil.copytree(DATASET, tmp_path / "data" / "errors")
    write_hostile_catalog(tmp_path / "data" / "catalog")
    out = tmp_path / "site"
    assert main(["build", "--out", str(out), "--data", str(tmp_path / "data" / "errors"), "--quiet"]) == 1
    assert not out.exists() and "CAT002" in capsys.readouterr().err
    assert main(["build", "--out", str(out), "--data", str(tmp_path / "data" / "errors"), "--quiet", "--no-catalog"]) == 0
    assert not (out / "catalog").exists()


# ---------------------------------------------------------------- a missing or broken part

def _lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in (folder / "demo.jsonl").read_text(encoding="utf-8").splitlines()]


def _write_lines(path: Path, entries: list[dict]) -> None:
    lines = sorted(json.dumps(e, sort_keys=True, separators=(",", ":"), ensure_ascii=False) for e in entries)
    lines.sort(key=lambda line: json.loads(line)["id"])
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")


def _another_project(folder: Path, slug: str = "other") -> None:
    """`<slug>.jsonl`: the demo entries as another project's, valid in themselves."""
    entries = []
    for e in _lines(folder):
        e = {**e, "project": slug, "id": entry_id(slug, e["template"])}
        e.pop("variants", None)
        entries.append(e)
    _write_lines(folder / f"{slug}.jsonl", entries)


def _config(folder: Path, change: Callable[[dict], None]) -> None:
    doc = yaml.safe_load((folder / "projects.yaml").read_text(encoding="utf-8"))
    change(doc)
    (folder / "projects.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")


def _releases(folder: Path, change: Callable[[dict], None]) -> None:
    doc = json.loads((folder / "releases.json").read_text(encoding="utf-8"))
    change(doc)
    (folder / "releases.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")


def _exponential(folder: Path) -> None:
    entries = _lines(folder)
    entries[0]["pattern"] = "(a+)+$"
    _write_lines(folder / "demo.jsonl", entries)
    (folder / "releases.json").unlink()


def _append(folder: Path, line: bytes) -> None:
    with (folder / "demo.jsonl").open("ab") as stream:
        stream.write(line)


def _linked(folder: Path) -> None:
    (tmp := folder.parent / "elsewhere.jsonl").write_bytes((folder / "demo.jsonl").read_bytes())
    (folder / "demo.jsonl").unlink()
    (folder / "demo.jsonl").symlink_to(tmp)


BREAKS: dict[str, tuple[Callable[[Path], None], set[str]]] = {
    "no releases.json": (lambda c: (c / "releases.json").unlink(), {"CAT010"}),
    "no projects.yaml": (lambda c: (c / "projects.yaml").unlink(), {"CAT010"}),
    "a project file releases.json does not name": (lambda c: (_another_project(c), _config(c, lambda d: d["projects"].update(other=copy.deepcopy(d["projects"]["demo"])))), {"CAT010"}),
    "a project file projects.yaml does not name": (lambda c: (_another_project(c), _releases(c, lambda d: d.update(other=d["demo"]))), {"CAT010"}),
    "releases.json names a project with no file": (lambda c: _releases(c, lambda d: d.update(ghost=d["demo"])), {"CAT010"}),
    "an exponential pattern, releases.json missing": (_exponential, {"CAT005", "CAT010"}),
    "a line that is not JSON": (lambda c: _append(c, b"{not json\n"), {"CAT001"}),
    "a line that is not UTF-8": (lambda c: _append(c, b'{"id": "\xff"}\n'), {"CAT001"}),
    "a lone surrogate": (lambda c: _append(c, json.dumps({**_lines(c)[0], "function": "\ud800"}).encode() + b"\n"), {"CAT002"}),
    "a nesting too deep for the parser": (lambda c: _append(c, b"[" * 100_000 + b"\n"), {"CAT001"}),
    "releases.json that is not JSON": (lambda c: (c / "releases.json").write_text("{", encoding="utf-8"), {"CAT001"}),
    "projects.yaml that is not YAML": (lambda c: (c / "projects.yaml").write_text("projects: [", encoding="utf-8"), {"YML001"}),
    "a release name with markup": (lambda c: _releases(c, lambda d: d["demo"][0].update(version="0.1.0<svg onload=alert(1)>")), {"CAT002", "CAT008", "CAT012"}),  # CAT012: the symbol index's releases
    "a project file that is a symbolic link": (_linked, {"CAT010"}),
}


def _broken(tmp_path: Path, name: str) -> tuple[Path, Path]:
    shutil.copytree(DATASET, tmp_path / "data" / "errors")
    folder = tmp_path / "data" / "catalog"
    shutil.copytree(CATALOG, folder, ignore=shutil.ignore_patterns("valid", "invalid"))
    BREAKS[name][0](folder)
    return tmp_path / "data" / "errors", folder


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_a_missing_or_broken_part_is_a_finding(tmp_path, name, capsys) -> None:
    _, folder = _broken(tmp_path, name)
    codes = {f.code for f in check_catalog(folder)}
    assert codes == BREAKS[name][1]
    assert main(["validate", str(folder)]) == 1
    out = capsys.readouterr().out
    assert all(f"error[{code}]" in out for code in codes) and "Traceback" not in out


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_a_missing_or_broken_part_stops_the_build(tmp_path, name, capsys) -> None:
    data, _ = _broken(tmp_path, name)
    out = tmp_path / "site"
    assert main(["build", "--out", str(out), "--data", str(data), "--quiet"]) == 1
    err = capsys.readouterr().err
    assert "catalog" in err and "--no-catalog" in err and not out.exists()


def test_the_intact_fixture_catalog_validates_and_builds(tmp_path) -> None:
    shutil.copytree(DATASET, tmp_path / "data" / "errors")
    shutil.copytree(CATALOG, tmp_path / "data" / "catalog", ignore=shutil.ignore_patterns("valid", "invalid"))
    assert check_catalog(tmp_path / "data" / "catalog") == []
    assert main(["build", "--out", str(tmp_path / "site"), "--data", str(tmp_path / "data" / "errors"), "--quiet"]) == 0
    assert (tmp_path / "site" / routes.catalog_page_url("catalog_project", "demo") / "index.html").is_file()


def test_a_hostile_first_release_is_text_on_the_catalog_home(tmp_path) -> None:
    """The issue's report: a release name is markup; the first release has no page or file of its own, only its
    place on the catalog's home (and the project's page)."""
    from generator.site.build import build_site

    folder = tmp_path / "catalog"
    shutil.copytree(CATALOG, folder, ignore=shutil.ignore_patterns("valid", "invalid"))
    text = (folder / "demo.jsonl").read_text(encoding="utf-8").replace('"0.1.0"', json.dumps(PAYLOADS[0]))
    (folder / "demo.jsonl").write_text(text, encoding="utf-8")
    _releases(folder, lambda d: d["demo"][0].update(version=PAYLOADS[0]))
    with unchecked():
        assert build_site(_records(), tmp_path / "site", quiet=True, catalog=folder) == 0
    for lang in routes.LANGS:
        for url in (routes.catalog_page_url("catalog", lang=lang), routes.catalog_page_url("catalog_project", "demo", lang=lang)):
            bad, shown = live_parts((tmp_path / "site" / url / "index.html").read_text(encoding="utf-8"))
            assert bad == [] and PAYLOADS[0] in shown, url
