"""The security round, class by class: each test covers a whole class of hostile input, not one payload.

1. unsafe characters (every C0/C1 control, DEL, surrogates, non-characters) in every text field: refused by
   validate, and harmless in pages, metadata, feeds and the API even when validation is bypassed;
3. highlighting: only allow-listed lexers, each proven fast on adversarial text of the largest highlighted size;
4. dates: none in the future; 5. every XML file the build writes parses; 6. symbolic links are never followed;
7. findings are indexed once and capped per code; 8. no two pages share a path; 9. repository paths cannot
   leave the repository; 10. workflows and macros are locked down.
(2, exponential patterns, lives with the matcher: tests/test_match*.py and tests/test_regex_safety.py.)
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import os
import random
import re
import time
from html.parser import HTMLParser
from pathlib import Path
from xml.etree import ElementTree

import pytest
import yaml
from mkdocs.utils.meta import get_data

from generator import chars, routes, safefs
from generator.site import facts, markup, render
from generator.checks import run_checks
from generator.cli import main
from generator.api.export import api_files
from generator.site.feeds import feed_files
from generator.findings import MAX_PER_CODE
from generator.languages import EXTENSIONS, LANGUAGES, MAX_HIGHLIGHT, MAX_HIGHLIGHT_LINE, highlightable, language_of
from generator.records.load import RawRecord
from generator.records.model import Record
from generator.checks.pipeline import check
from generator.records.schema import record_schema
from tests.pointers import set_at, text_leaves

ROOT = Path(__file__).parent.parent
MINIMAL = ROOT / "tests/fixtures/valid/demo/minimal.yaml"
MINIMAL_TEXT = MINIMAL.read_text(encoding="utf-8")
# A full record with every optional section, so that every text field is exercised.
PROPERTY_BASE = yaml.safe_load((ROOT / "data/errors/vllm/block-manager-out-of-memory.yaml").read_text(encoding="utf-8"))
PROPERTY_BASE.pop("zh_fingerprints", None)
PROPERTY_BASE.update({
    "example_fix": {"before": "a = 1", "after": "a = 2", "note": "n", "note_zh": "注"},
    "handling": {"strategy": "retry", "validate_before": "x", "type_guard": "y", "try_catch": "z"},
    "os_specific": {"linux": "l"}, "os_specific_zh": {"linux": "中"},
    "common_situations": "c", "common_situations_zh": "常",
})

UNSAFE_CHARACTERS = (
    [chr(c) for c in range(0x20) if c not in (0x09, 0x0A)] + ["\x7f"] + [chr(c) for c in range(0x80, 0xA0)]
    + [chr(c) for c in range(0xFDD0, 0xFDF0)] + [chr(p << 16 | low) for p in range(17) for low in (0xFFFE, 0xFFFF)]
    + ["\ud800", "\udbff", "\udc00", "\udfff"]
)
ATTR_PAYLOAD = "![x](https://invalid.invalid/x.png){: onerror=alert(document.domain) }"


def _free_text(pointer: str) -> bool:
    """True when the model takes any text at `pointer` (ids, enums, dates, urls and commits have fixed forms)."""
    from pydantic import ValidationError

    data = copy.deepcopy(PROPERTY_BASE)
    set_at(data, pointer, "free \x85 text")
    try:
        Record.model_validate(data)
    except ValidationError:
        return False
    return not pointer.startswith(("/error/regex", "/error/examples", "/error/counter_examples", "/source/snippet"))


TEXT_FIELDS = [p for p in text_leaves(PROPERTY_BASE) if _free_text(p)]


def test_the_base_record_has_many_text_fields() -> None:
    assert len(TEXT_FIELDS) >= 25, TEXT_FIELDS


# ---------------------------------------------------------------- 1. unsafe characters

def test_the_unsafe_class_is_exactly_controls_surrogates_and_noncharacters() -> None:
    expected = {c for c in range(0x110000) if (c < 0x20 and c not in (9, 10)) or 0x7F <= c <= 0x9F
                or 0xD800 <= c <= 0xDFFF or 0xFDD0 <= c <= 0xFDEF or c & 0xFFFE == 0xFFFE}
    found = {c for c in range(0x110000) if chars.UNSAFE.match(chr(c))}
    assert found == expected and len(found) == 30 + 33 + 2048 + 66


def test_every_unsafe_character_in_every_text_field_is_refused_by_name() -> None:
    # Every character meets a field, and every field meets many characters.
    for i, char in enumerate(UNSAFE_CHARACTERS):
        pointer = TEXT_FIELDS[i % len(TEXT_FIELDS)]
        data = copy.deepcopy(PROPERTY_BASE)
        set_at(data, pointer, f"before {char} after")
        findings = [f for f in run_checks([RawRecord("r.yaml", data, "")]) if f.code == "REC007"]
        assert [(f.pointer, f.message.split(" at ")[0]) for f in findings] == [(pointer, chars.describe(char))], (pointer, hex(ord(char)))
        assert f"U+{ord(char):04X}" in findings[0].message


def test_unsafe_characters_in_keys_are_refused_too() -> None:
    data = copy.deepcopy(PROPERTY_BASE)
    data["os_specific"] = {"linux\x85": "text"}
    assert any(f.code == "REC007" and f.pointer == "/os_specific/linux\x85" for f in run_checks([RawRecord("r.yaml", data, "")]))


@pytest.mark.parametrize("escape", ["\\x85", "\\x9f", "\\x01", "\\x7f", "\\uFFFE", "\\uFFFF", "\\uFDD0", "\\U0001FFFE", "\\U0010FFFF", "\\x1b"])
def test_validate_refuses_escaped_unsafe_characters_in_yaml(tmp_path, escape, capsys) -> None:
    path = tmp_path / "demo/minimal.yaml"
    path.parent.mkdir(parents=True)
    text = MINIMAL_TEXT.replace("explanation: ", f'explanation: "x{escape}y" # was: ', 1)
    path.write_text(text, encoding="utf-8")
    assert main(["validate", "--root", str(tmp_path), str(path)]) == 1
    out = capsys.readouterr().out
    assert "error[REC007] /explanation: U+" in out and ":1" not in out.split("REC007")[0][-3:]


def test_raw_unsafe_characters_in_a_file_get_a_finding_not_a_traceback(tmp_path, capsys) -> None:
    for char in ["\x85", "\x9f", "\ufffe", "\x1b"]:
        path = tmp_path / "demo/minimal.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(MINIMAL_TEXT.replace("explanation: ", f"explanation: x{char}y ", 1), encoding="utf-8")
        assert main(["validate", "--root", str(tmp_path), str(path)]) == 1
        out = capsys.readouterr().out
        assert re.search(r"error\[(YML001|REC007)\]", out), out


class _Live(HTMLParser):
    """Elements a record could have made live: event handlers, scripts, images from the record."""

    def __init__(self) -> None:
        super().__init__()
        self.bad: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if any(k.startswith("on") for k, _ in attrs):
            self.bad.append(f"<{tag}> with {[k for k, _ in attrs if k.startswith('on')]}")
        if tag == "img" and any("invalid.invalid" in (v or "") for _, v in attrs):
            self.bad.append("<img> from the record")


def _unchecked_record() -> Record:
    """A record that never went through validation: every text field holds every unsafe character (but
    surrogates, which no UTF-8 file can carry) and the attribute payload."""
    data = copy.deepcopy(PROPERTY_BASE)
    poison = "".join(c for c in UNSAFE_CHARACTERS if not 0xD800 <= ord(c) <= 0xDFFF)
    unvalidated = {}  # top-level fields whose bounds refuse even the short payload (`title`): set past validation
    for pointer in TEXT_FIELDS:
        trial = copy.deepcopy(data)
        set_at(trial, pointer, f"{ATTR_PAYLOAD} {poison} {pointer}")
        try:
            Record.model_validate(trial)
        except Exception:  # a length bound: the field still gets the payload and a sample of the characters
            set_at(trial, pointer, f"{ATTR_PAYLOAD} \x85\x01\ufffe {pointer}")
            try:
                Record.model_validate(trial)
            except Exception:
                unvalidated[pointer.strip("/")] = f"{ATTR_PAYLOAD} {poison} {pointer}"
                continue
        data = trial
    return Record.model_validate(data).model_copy(update=unvalidated)


def test_unchecked_text_never_breaks_page_metadata_feeds_or_the_api() -> None:
    record = _unchecked_record()
    for lang in routes.LANGS:
        pages = render.render_site_pages([record], lang, render.SiteLinks())
        for rel, page in pages.items():
            body, meta = get_data(page)
            assert "title" in meta, rel  # mkdocs read the metadata: it is never rendered as Markdown
            parser = _Live()
            parser.feed(body)
            assert parser.bad == [], rel
            assert not chars.UNSAFE.search(page), rel
        meta = get_data(pages[routes.page_path("error", record.id)])[1]
        assert meta["errdex_id"] == record.id and ATTR_PAYLOAD.replace("&", "&amp;") in meta["description"]
    for rel, text in feed_files([record], "https://errdex.dev/", ["about/"]).items():
        if rel.endswith(".xml"):
            ElementTree.fromstring(text.encode("utf-8"))
        assert not chars.UNSAFE.search(text), rel
    exported = json.loads(api_files([record])[f"errors/{record.id}.json"])
    assert exported["record"] == record.model_dump(mode="json", exclude_none=True)  # the API carries the text as it is


def test_front_matter_round_trips_every_code_point() -> None:
    chunk: list[str] = []
    for code in range(0x110000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        chunk.append(chr(code))
        if len(chunk) == 4096 or code == 0x10FFFF:
            text = "".join(chunk)
            chunk = []
            _, meta = get_data(f"---\ntitle: {markup.yaml_quoted(text)}\n---\n")
            assert meta.get("title") == text


@pytest.fixture(scope="module")
def unchecked_site(tmp_path_factory):
    """A real build of the unchecked record (validation bypassed), as an attacker's best case."""
    from generator.site.build import build_site

    out = tmp_path_factory.mktemp("unchecked") / "site"
    assert build_site([_unchecked_record()], out, quiet=True) == 0
    return out


@pytest.mark.parametrize("lang", ["", "zh/"])
def test_a_built_page_of_unchecked_text_has_its_metadata_and_nothing_live(unchecked_site, lang) -> None:
    record = _unchecked_record()
    html = (unchecked_site / lang / routes.page_url("error", record.id) / "index.html").read_text(encoding="utf-8")
    parser = _Live()
    parser.feed(html)
    assert parser.bad == []
    assert "onerror=alert" not in html.replace("{: onerror=alert", "")  # only ever as text
    assert '<meta name="description"' in html and "title: " not in html  # metadata used, not shown
    assert '<h2 id="solutions">' in html and "{: #" not in html  # fixed anchors, no attr_list text left
    for xml in unchecked_site.rglob("*.xml"):
        ElementTree.fromstring(xml.read_bytes())


def test_a_built_page_of_unchecked_text_runs_nothing_in_chromium(unchecked_site, browser) -> None:
    import functools
    import http.server
    import threading

    from conftest import _Quiet

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(unchecked_site)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        page = browser.new_page()
        dialogs: list[str] = []
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        for lang in ("", "zh/"):
            page.goto(f"http://127.0.0.1:{server.server_port}/{lang}{routes.page_url('error', _unchecked_record().id)}")
            page.wait_for_timeout(300)
            assert page.evaluate("document.querySelectorAll('img[onerror], [onerror], [onclick]').length") == 0
            assert "onerror" in page.inner_text("body")  # shown as text
        assert dialogs == []
        page.close()
    finally:
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------- 3. highlighting

def _adversarial(size: int) -> list[str]:
    """Texts of `size` characters made to make a lexer go back over them, each in lines as long as the highlighter
    takes (MAX_HIGHLIGHT_LINE): every one of them is really lexed."""
    rng = random.Random(7)
    punct = "\\\"'`()[]{}<>/*#$%&|;:,.!?@^~=+-_\a\t\n "
    seeds = ['"\\a', "\\a", "(", "[", "{", "<", "/*", "'", '"', "`", "$(", "#", "\\", "a(", "${", "<!--", "r#\"", "/**/", "\"\"\"", "\\\n"]
    texts = [(s * (size // len(s) + 1))[:size] for s in seeds]
    texts.append("".join(rng.choice(punct) for _ in range(size)))
    texts.append("".join(rng.choice(punct + "abcXYZ019") for _ in range(size)))
    line = MAX_HIGHLIGHT_LINE
    texts = [t if highlightable(t) else "\n".join(t[i:i + line - 1] for i in range(0, size - size // line, line - 1)) for t in texts]
    assert all(highlightable(t) and len(t) >= size * 0.85 for t in texts)
    return texts


@pytest.mark.parametrize("language", sorted(LANGUAGES))
def test_every_allowed_lexer_is_fast_on_adversarial_text(language) -> None:
    # Not a timing test of our code: a proof that the allow-list holds no lexer that backtracks; the bound is
    # generous (a runaway lexer takes minutes on far shorter text).
    for text in _adversarial(MAX_HIGHLIGHT):
        markup._highlight.cache_clear()
        started = time.process_time()
        markup._highlight(text, language, None)
        assert time.process_time() - started < 5, (language, text[:20])


def test_the_allow_list_is_closed() -> None:
    schema = record_schema()
    enums = [node.get("enum") for node in schema["$defs"].values() for prop in [node.get("properties", {})] for node in [prop.get("language", {})] if node]
    assert all(set(e) == set(LANGUAGES) for e in enums if e) and enums
    assert set(EXTENSIONS.values()) <= set(LANGUAGES)
    for name in ["maple", "autoit", "fantom", "Python", "python3", "", None, "../x"]:
        assert language_of(name, None) == "text"
    for path in ["x.mpl", "x.au3", "x.fan", "x", ".py", "a/b.PY", "CMakeLists.txt", "Dockerfile"]:
        assert language_of(None, path) in LANGUAGES
    assert language_of(None, "x.mpl") == "text" and language_of(None, "a/b.PY") == "python"
    source = (ROOT / "generator/site/markup.py").read_text(encoding="utf-8")
    assert "get_lexer_for_filename" not in source and "guess_lexer" not in source


def test_a_record_naming_another_language_is_refused(tmp_path, capsys) -> None:
    path = tmp_path / "demo/minimal.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(MINIMAL_TEXT + "example_fix:\n  before: '\"\\\\a\\\\a'\n  after: x\n  language: maple\n", encoding="utf-8")
    assert main(["validate", "--root", str(tmp_path), str(path)]) == 1
    assert "SCH004] /example_fix/language" in capsys.readouterr().out


def test_code_past_the_bound_is_plain_text() -> None:
    long = "x = 1\n" * (MAX_HIGHLIGHT // 6 + 10)
    assert '<span class="n">' not in markup._highlight(long, "python", None)
    assert '<span class="n">' in markup._highlight("x = 1\n", "python", None)
    wide = "x = 1\n" + "y = " + "1" * (MAX_HIGHLIGHT_LINE - 4)  # short enough; its last line as long as it may be
    assert len(wide) <= MAX_HIGHLIGHT and '<span class="n">' not in markup._highlight(wide + "1", "python", None)
    assert '<span class="n">' in markup._highlight(wide, "python", None)


# ---------------------------------------------------------------- 4. dates

def test_future_dates_are_refused_relative_to_today(tmp_path, monkeypatch, capsys) -> None:
    from generator.checks import record as record_checks

    monkeypatch.setattr(record_checks, "today", lambda: dt.date(2026, 6, 1))
    path = tmp_path / "demo/minimal.yaml"
    path.parent.mkdir(parents=True)
    for day, ok in [("2026-06-02", True), ("2026-06-03", False), ("2200-01-01", False), ("9999-12-31", False)]:
        path.write_text(re.sub(r"last_updated: '[0-9-]+'", f"last_updated: '{day}'", MINIMAL_TEXT), encoding="utf-8")
        assert (main(["validate", "--root", str(tmp_path), str(path)]) == 0) is ok, day
        assert ("REC008" in capsys.readouterr().out) is not ok


def test_the_latest_valid_date_gives_a_build_timestamp_gzip_can_hold() -> None:
    from generator.checks.record import FUTURE_MARGIN, today

    data = copy.deepcopy(PROPERTY_BASE)
    data["provenance"]["last_updated"] = (today() + FUTURE_MARGIN).isoformat()
    assert 0 < facts.source_date_epoch([Record.model_validate(data)]) < 2**32


# ---------------------------------------------------------------- 5. XML

def test_the_xml_check_names_a_file_that_does_not_parse(tmp_path) -> None:
    from generator.site.build import check_xml

    (tmp_path / "good.xml").write_text("<a>x</a>", encoding="utf-8")
    (tmp_path / "zh").mkdir()
    (tmp_path / "zh/feed.xml").write_text("<a>\x01</a>", encoding="utf-8")
    assert [line.split(":")[0] for line in check_xml(tmp_path)] == ["zh/feed.xml"]


# ---------------------------------------------------------------- 6. symbolic links

SECRET = "s3cr3t-value-that-must-never-be-published"


@pytest.fixture
def data_with_links(tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text(f"id: {SECRET}\n", encoding="utf-8")
    (outside / "demo2").mkdir()
    (outside / "demo2/other.yaml").write_text(MINIMAL_TEXT.replace("demo/minimal", "demo2/other"), encoding="utf-8")
    root = tmp_path / "data"
    (root / "demo").mkdir(parents=True)
    (root / "demo/minimal.yaml").write_text(MINIMAL_TEXT, encoding="utf-8")
    (root / "demo/leak.yaml").symlink_to(outside / "secret.yaml")
    (root / "demo2").symlink_to(outside / "demo2", target_is_directory=True)
    (root / "demo/dangling.yaml").symlink_to(tmp_path / "nothing.yaml")
    return root, outside


def test_links_under_the_data_root_are_findings_and_never_read(data_with_links) -> None:
    root, _ = data_with_links
    result = check([root], root)
    links = sorted(f.path.rsplit("/", 1)[-1] for f in result.findings if f.code == "YML011")
    assert links == ["dangling.yaml", "demo2", "leak.yaml"]
    assert [r.path.rsplit("/", 1)[-1] for r in result.raws] == ["minimal.yaml"]
    assert not any(SECRET in f.message or "other" in f.message for f in result.findings)
    assert result.failed


def test_a_named_link_or_a_path_through_a_linked_folder_is_not_read(data_with_links) -> None:
    root, _ = data_with_links
    for named in [root / "demo/leak.yaml", root / "demo2/other.yaml", root / "demo2"]:
        result = check([named], root)
        assert [f.code for f in result.findings] == ["YML011"] and result.raws == [], named


def test_a_linked_data_root_is_not_read(tmp_path) -> None:
    real = tmp_path / "real"
    (real / "demo").mkdir(parents=True)
    (real / "demo/minimal.yaml").write_text(MINIMAL_TEXT, encoding="utf-8")
    (tmp_path / "root").symlink_to(real, target_is_directory=True)
    result = check([tmp_path / "root"], tmp_path / "root")
    assert [f.code for f in result.findings] == ["YML011"] and result.raws == []


def test_the_build_publishes_nothing_from_a_link(data_with_links, tmp_path) -> None:
    root, _ = data_with_links
    assert main(["build", "--data", str(root), "--out", str(tmp_path / "site"), "--quiet"]) == 1
    assert not (tmp_path / "site").exists()


def test_writers_refuse_to_write_through_links(data_with_links, tmp_path, capsys) -> None:
    root, outside = data_with_links
    before = sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*"))
    assert main(["new", "demo2/fresh", "--root", str(root)]) == 1  # demo2 is a linked folder
    assert main(["new", "demo/leak", "--root", str(root)]) == 1  # an existing link
    entry = {"signature": "Fixture failure happened", "regex": "Fixture failure happened", "id": "demo2/imported",
             "domain": "llm", "category": "resource_error", "explanation": "x", "resolvable": "true"}
    src = tmp_path / "in.json"
    src.write_text(json.dumps(entry), encoding="utf-8")
    main(["import", str(src), "--root", str(root), "--force", "--repo", "example-org/engine"])
    (root / "demo/minimal.yaml").unlink()
    (root / "demo/minimal.yaml").symlink_to(outside / "demo2/other.yaml")
    assert main(["mark-translated", "--root", str(root), str(root / "demo/minimal.yaml")]) == 1
    assert sorted(p.relative_to(outside).as_posix() for p in outside.rglob("*")) == before
    assert (outside / "demo2/other.yaml").read_text(encoding="utf-8") == MINIMAL_TEXT.replace("demo/minimal", "demo2/other")


def test_safe_write_refuses_a_link_swapped_in_for_the_file(tmp_path) -> None:
    from generator import safefs

    (tmp_path / "root").mkdir()
    (tmp_path / "target.txt").write_text("keep", encoding="utf-8")
    (tmp_path / "root/x.yaml").symlink_to(tmp_path / "target.txt")
    with pytest.raises(safefs.UnsafePath):
        safefs.write_text(tmp_path / "root/x.yaml", "overwritten", tmp_path / "root")
    with pytest.raises(safefs.UnsafePath):
        safefs.write_text(tmp_path / "elsewhere.yaml", "x", tmp_path / "root")
    assert (tmp_path / "target.txt").read_text(encoding="utf-8") == "keep"


# ---------------------------------------------------------------- 7. findings at scale

def test_many_findings_of_one_code_are_capped_with_a_summary(tmp_path) -> None:
    path = tmp_path / "demo/minimal.yaml"
    path.parent.mkdir(parents=True)
    path.write_text(MINIMAL_TEXT + "".join(f"k{i}: v\n" for i in range(45_000)), encoding="utf-8")  # 440 KB, under the size limit
    findings = [f for f in check([path], tmp_path).findings if f.code == "SCH001"]
    assert len(findings) == MAX_PER_CODE + 1
    assert "44980 more SCH001 findings" in findings[-1].message or any("44980 more" in f.message for f in findings)
    lines = sorted(f.line for f in findings if "more" not in f.message)
    first = MINIMAL_TEXT.count("\n") + 1
    assert lines == list(range(first, first + MAX_PER_CODE))  # real positions, from the index


def test_positions_come_from_one_index(monkeypatch) -> None:
    import functools

    from generator.records.load import RawRecord as Raw, parse_text

    walks: list[int] = []
    original = Raw.__dict__["_places"].func
    counted = functools.cached_property(lambda self: walks.append(1) or original(self))
    counted.__set_name__(Raw, "_places")
    monkeypatch.setattr(Raw, "_places", counted)
    text = MINIMAL_TEXT + "".join(f"k{i}: v\n" for i in range(2000))
    data, _, _ = parse_text(text, "r.yaml")
    raw = Raw("r.yaml", data, text)
    first = MINIMAL_TEXT.count("\n") + 1
    assert [raw.pos(f"/k{i}", key=True) for i in range(0, 2000, 20)] == [(first + i, 1) for i in range(0, 2000, 20)]
    assert raw.pos("/k5/deeper/still") == (first + 5, 5)  # the nearest parent
    assert walks == [1]


# ---------------------------------------------------------------- 8. one path, one page

def test_project_paths_never_collide() -> None:
    names = ["llama.cpp", "llama-2e-cpp", "llama_2e_cpp", "llama_cpp", "llama-cpp", "a..b", "a.-b", "a-.b", "..", ".", "_", "-", "__", "_5f_"]
    paths = {routes.page_path("project", f"ggml-org/{n}") for n in names}
    assert len(paths) == len(names)
    rng = random.Random(3)
    alphabet = "ab.-_"
    seen: dict[str, str] = {}
    for _ in range(20_000):
        name = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 6)))
        path = routes.page_path("project", f"o/{name}")
        assert seen.setdefault(path, name) == name
        assert all(seg not in (".", "..", "") for seg in path.split("/")[:-1])


def test_the_build_refuses_two_pages_at_one_path(tmp_path) -> None:
    from generator.site.build import BuildError, _write_pages

    (tmp_path / "about.md").write_text("---\ntitle: x\n---\n", encoding="utf-8")
    page = "---\ntitle: \"t\"\n---\nbody\n"
    with pytest.raises(BuildError, match="one path"):
        _write_pages(tmp_path, {"browse/project/NVIDIA/x/index.md": page, "browse/project/nvidia/x/index.md": page})
    with pytest.raises(BuildError, match="one path"):
        _write_pages(tmp_path, {"About.md": page})
    with pytest.raises(BuildError, match="metadata"):
        _write_pages(tmp_path, {"errors/x/index.md": "---\ntitle: \"\ufffe\"\n---\nbody\n"})


def test_one_project_spelled_two_ways_is_a_finding(tmp_path) -> None:
    (tmp_path / "demo").mkdir()
    (tmp_path / "demo/minimal.yaml").write_text(MINIMAL_TEXT, encoding="utf-8")
    (tmp_path / "demo/other.yaml").write_text(MINIMAL_TEXT.replace("demo/minimal", "demo/other").replace("repo: example-org/engine", "repo: Example-Org/Engine", 1), encoding="utf-8")
    findings = [f for f in check([tmp_path], tmp_path).findings if f.code == "XRC006"]
    assert [f.path.rsplit("/", 1)[-1] for f in findings] == ["other.yaml"]


# ---------------------------------------------------------------- 9. repository paths

@pytest.mark.parametrize("path, ok", [
    ("vllm/core/block_manager_v1.py", True), (".github/workflows/x.yml", True), ("src/llama.cpp", True),
    ("..x/y", True), (".../y", True),
    ("vllm/../../../../attacker/evil/x.py", False), ("..", False), (".", False), ("./a.py", False), ("a/./b.py", False),
    ("a//b.py", False), ("a/", False), ("/etc/passwd", False), ("a?raw=1", False), ("a#L1", False), ("a\\b.py", False),
    ("a b.py", False), ("a/..", False),
])
def test_source_paths_stay_in_the_repository(tmp_path, path, ok) -> None:
    data = copy.deepcopy(PROPERTY_BASE)
    data["source"]["path"] = path
    codes = [(f.code, f.pointer) for f in run_checks([RawRecord("r.yaml", data, "")]) if f.pointer == "/source/path"]
    assert (codes == []) is ok, codes


# ---------------------------------------------------------------- 10. workflows and macros

WORKFLOWS = sorted((ROOT / ".github/workflows").glob("*.yml"))


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda p: p.name)
def test_workflows_are_locked_down(workflow) -> None:
    doc = yaml.safe_load(workflow.read_text(encoding="utf-8"))
    top = doc.get("permissions")
    assert top in ({}, {"contents": "read"}), "top-level permissions are read-only or empty"
    for name, job in doc["jobs"].items():
        assert isinstance(job.get("timeout-minutes"), int), f"{name}: no timeout-minutes"
        perms = job.get("permissions", {})
        steps = job["steps"]
        runs_code = any("run" in s for s in steps)
        writes = {k for k, v in perms.items() if v == "write"}
        assert not (writes and runs_code), f"{name}: write permissions on a job that runs the repository's code"
        for step in steps:
            uses = step.get("uses")
            if uses:
                assert re.fullmatch(r"[\w.-]+/[\w.-]+(/[\w./-]+)?@[0-9a-f]{40}", uses), f"{name}: {uses} is not pinned by commit"
                if uses.startswith("actions/checkout@"):
                    assert step.get("with", {}).get("persist-credentials") is False, f"{name}: checkout keeps its token"
            assert "${{" not in step.get("run", ""), f"{name}: a context value pasted into a run script"


def test_the_harvest_workflow_tolerates_only_a_fetch_failure() -> None:
    """`errdex harvest` exits 3 when, and only when, some release could not be fetched while the rest was
    harvested; a crash (1) or bad usage (2) must fail the job. The job that may write runs no repository code."""
    doc = yaml.safe_load((ROOT / ".github/workflows/harvest.yml").read_text(encoding="utf-8"))
    harvest, pull_request = doc["jobs"]["harvest"], doc["jobs"]["pull-request"]
    assert harvest["permissions"] == {"contents": "read"} and "continue-on-error" not in harvest
    scripts = []
    for step in harvest["steps"]:
        assert "continue-on-error" not in step and step.get("shell", "bash") == "bash"
        script = step.get("run", "").replace("\\\n", " ")  # one line per command
        assert not re.search(r"set \+e|\|\|\s*(true|:)\s*$", script, re.M), script
        for tolerated in re.findall(r"\|\|([^\n]*)", script):
            assert tolerated.strip() == "test $? -eq 3", f"the harvest job tolerates `{tolerated.strip()}`"
        scripts += script.splitlines()
    call = [line for line in scripts if "errdex harvest" in line]
    assert len(call) == 1 and call[0].rstrip().endswith("|| test $? -eq 3")
    assert "|" not in call[0].split("||")[0], "a pipe would hide the harvest's exit status"
    for step in pull_request["steps"]:
        assert "run" not in step and not step["uses"].startswith("./"), "the pull-request job runs only pinned actions"


def test_only_listed_docs_pages_use_macros() -> None:
    users = sorted(p.relative_to(ROOT / "docs").as_posix() for p in (ROOT / "docs").rglob("*.md")
                   if re.search(r"^render_macros:\s*true\s*$", p.read_text(encoding="utf-8"), re.M))
    assert users == ["en/index.md", "zh/index.md"]
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "render_by_default: false" in text
    extensions = re.search(r"^markdown_extensions:\n((?:  .*\n)+)", text, re.M).group(1)
    names = re.findall(r"^  - ([\w.]+)", extensions, re.M)
    assert names == ["generator.site.mdext", "toc", "admonition", "tables"]  # nothing that writes attributes
    assert "markdown_extensions" not in (ROOT / "mkdocs.zh.yml").read_text(encoding="utf-8")


def test_headings_get_fixed_ids_and_nothing_else() -> None:
    import markdown

    html = markdown.markdown("## Solutions {: #solutions }\n\n## X {: onerror=alert(1) }\n\n## Y {: .cls #y }\n\ntext {: #para }",
                             extensions=["generator.site.mdext", "toc"])
    assert '<h2 id="solutions">Solutions</h2>' in html
    assert "onerror=" not in html.replace("{: onerror=alert(1) }", "") and "class=" not in html
    assert "{: #para }" in html
    html = markdown.markdown("## Records: `/api/x.json` {#record-docs}\n\n## 快速上手 {#quick-start}", extensions=["generator.site.mdext", "toc"])
    assert '<h2 id="record-docs">Records: <code>/api/x.json</code></h2>' in html and '<h2 id="quick-start">快速上手</h2>' in html


def test_no_built_heading_shows_an_id_marker(built_site) -> None:
    """Every heading of the built site (hand-written pages included, both languages) has its id set, no marker left."""
    marker = re.compile(r"<h[1-6][^>]*>(?:(?!</h[1-6]>).)*\{:?\s*#[a-z]", re.S)
    shown = [str(p.relative_to(built_site)) for p in built_site.rglob("*.html") if marker.search(p.read_text(encoding="utf-8"))]
    assert shown == []


def test_every_date_a_record_holds_is_checked_for_the_future(monkeypatch) -> None:
    from generator.checks import record as record_checks

    monkeypatch.setattr(record_checks, "today", lambda: dt.date(2026, 6, 1))
    data = copy.deepcopy(PROPERTY_BASE)
    data["reports"] = [{"fix": "/solutions/0", "url": "https://example.org/1", "outcome": "worked", "date": "2200-01-01"}]
    data["provenance"]["origin"]["first_seen"] = "2199-01-01"
    data["source"]["release"] = {"version": "1.0", "checked": "2201-01-01"}
    data["provenance"]["analyzed_at"] = "2202-01-01T00:00:00Z"
    found = {f.pointer for f in run_checks([RawRecord("r.yaml", data, "")]) if f.code == "REC008"}
    assert {"/reports/0/date", "/provenance/origin/first_seen", "/source/release/checked", "/provenance/analyzed_at"} <= found


def test_reuse_links_only_a_regular_file_of_the_same_bytes_from_under_the_old_tree(tmp_path) -> None:
    """generator.safefs.Reuse: a file of the earlier build with the bytes to be written is linked (no data written);
    other bytes (same size or not), a symbolic link to the same bytes, a path through a linked folder, or no
    earlier file: written as a new file; an existing target is never written through."""
    old, new, outside = tmp_path / "old", tmp_path / "new", tmp_path / "outside"
    for folder in (old / "a", new / "a", new / "b", outside):
        folder.mkdir(parents=True)
    (old / "a" / "same.html").write_bytes(b"page one")
    (old / "a" / "other.html").write_bytes(b"page ONE")  # same size, other bytes
    (old / "a" / "short.html").write_bytes(b"page")
    (outside / "secret.html").write_bytes(b"page one")
    (old / "a" / "linked.html").symlink_to(outside / "secret.html")
    (old / "b").symlink_to(outside, target_is_directory=True)  # a folder on the way that is a link
    reuse = safefs.Reuse(old)
    for name in ("same", "other", "short", "linked", "missing"):
        reuse.write(new / "a" / f"{name}.html", f"a/{name}.html", b"page one")
    reuse.write(new / "b" / "secret.html", "b/secret.html", b"page one")
    assert reuse.linked == 1
    assert os.path.samefile(new / "a" / "same.html", old / "a" / "same.html")
    for path in [new / "a" / f"{n}.html" for n in ("other", "short", "linked", "missing")] + [new / "b" / "secret.html"]:
        assert path.read_bytes() == b"page one" and not path.is_symlink() and os.stat(path).st_nlink == 1, path
    assert (old / "a" / "other.html").read_bytes() == b"page ONE"  # the earlier build is never changed
    assert (outside / "secret.html").stat().st_nlink == 1
    with pytest.raises(FileExistsError):
        reuse.write(new / "a" / "same.html", "a/same.html", b"page one")
    fresh = safefs.Reuse(None)  # no earlier build: every file written
    fresh.write(new / "a" / "none.html", "a/none.html", b"page one")
    assert fresh.linked == 0 and (new / "a" / "none.html").read_bytes() == b"page one"
    assert safefs.Reuse(tmp_path / "absent").old is None
