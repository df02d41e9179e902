"""The catalog's check codes (CAT): one failing catalog folder per code, and `errdex validate` runs them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from generator.checks.catalog import check_catalog
from generator.cli import main
from generator.codes import CODES
from tests.pointers import set_at, text_leaves

CATALOG = Path(__file__).parent / "fixtures" / "catalog"
INVALID = sorted((CATALOG / "invalid").iterdir())
RE_EXTRACTED = {"CAT101", "CAT102"}  # need a cache of release sources: tests/test_harvest.py


@pytest.mark.parametrize("folder", INVALID, ids=lambda p: p.name)
def test_invalid_catalog_yields_exactly_its_code(folder: Path) -> None:
    code, line, col = re.fullmatch(r"(CAT\d{3}) (\d+):(\d+)\n", (folder / "expect.txt").read_text()).groups()
    assert folder.name.startswith(code)
    findings = check_catalog(folder)
    assert [f.code for f in findings] == [code]
    assert (findings[0].line, findings[0].col) == (int(line), int(col))
    assert findings[0].hint and findings[0].path.endswith("demo.jsonl")


def test_every_catalog_code_has_a_fixture() -> None:
    covered = {p.name.split("-")[0] for p in INVALID} | RE_EXTRACTED
    assert covered == {c for c in CODES if c.startswith("CAT")}


def test_the_valid_catalog_passes() -> None:
    assert check_catalog(CATALOG / "valid") == []


def test_validate_checks_catalog_paths(capsys) -> None:
    assert main(["validate", str(CATALOG / "valid")]) == 0
    assert main(["validate", str(CATALOG / "invalid" / "CAT003-catalog-duplicate-id")]) == 1
    assert "CAT003" in capsys.readouterr().out
    assert main(["validate", str(CATALOG / "invalid" / "CAT009-catalog-pattern-misses-template" / "demo.jsonl")]) == 1
    assert "CAT009" in capsys.readouterr().out


@pytest.mark.data
def test_the_repository_catalog_is_valid() -> None:
    root = Path(__file__).parent.parent / "data" / "catalog"
    if not root.is_dir():  # a catalog with a part missing is checked (and fails), never skipped
        pytest.skip("no catalog harvested yet")
    assert check_catalog(root) == []


def test_a_sites_lines_must_run_within_its_range(tmp_path) -> None:
    import json
    import shutil

    shutil.copytree(CATALOG / "valid", tmp_path / "c")
    lines = (tmp_path / "c" / "demo.jsonl").read_text().splitlines()
    entry = json.loads(lines[0])
    site = entry["sites"][0]
    releases = json.loads((tmp_path / "c" / "releases.json").read_text())["demo"]
    versions = [r["version"] for r in releases]
    site["from"], site["to"] = versions[0], versions[-1]
    entry["releases"], entry["first"], entry["last"] = [[versions[0], versions[-1]]], versions[0], versions[-1]

    def check(pairs) -> list[str]:
        site["lines"] = pairs
        lines[0] = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        (tmp_path / "c" / "demo.jsonl").write_text("\n".join(lines) + "\n")
        return [f"{f.code} {f.pointer}" for f in check_catalog(tmp_path / "c")]

    assert check([[versions[0], site["line"] + 5], [versions[1], site["line"]]]) == []
    assert check([[versions[1], site["line"] + 5], [versions[1], site["line"]]]) == ["CAT008 /sites/0/lines"]  # not at `from`
    assert check([[versions[0], site["line"] + 5], [versions[1], site["line"] + 6]]) == ["CAT008 /sites/0/lines"]  # last is not `line`
    assert check([[versions[0], site["line"]], [versions[1], site["line"]]]) == ["CAT008 /sites/0/lines"]  # no change of line
    # several sites (the message raised from several files) may overlap; a site that runs backward may not
    del site["lines"]
    other = {**site, "path": "servekit/other.py", "line": 7}
    entry["sites"] = [site, other]
    lines[0] = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    (tmp_path / "c" / "demo.jsonl").write_text("\n".join(lines) + "\n")
    assert check_catalog(tmp_path / "c") == []
    other["from"], other["to"] = versions[-1], versions[0]
    lines[0] = json.dumps(entry, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    (tmp_path / "c" / "demo.jsonl").write_text("\n".join(lines) + "\n")
    assert [f"{f.code} {f.pointer}" for f in check_catalog(tmp_path / "c")] == ["CAT008 /releases"]


# ---------------------------------------------------------------- every file, every string, every part

def _catalog(tmp_path: Path) -> Path:
    import shutil

    shutil.copytree(CATALOG / "valid", tmp_path / "c")
    return tmp_path / "c"


def _refused(findings, name: str) -> list[tuple[str, str]]:
    return [(f.code, f.pointer) for f in findings if Path(f.path).name == name]


def test_the_schema_files_are_fresh() -> None:
    from generator.checks.catalogschema import SCHEMA_DIR, SCHEMAS, schema_text

    for name in SCHEMAS:
        assert (SCHEMA_DIR / name).read_text(encoding="utf-8") == schema_text(name), f"{name}: run generator.checks.catalogschema.write_schemas()"


def test_every_unsafe_or_hidden_character_in_every_string_of_a_line_is_refused_by_name(tmp_path) -> None:
    import json

    from generator import chars

    folder = _catalog(tmp_path)
    lines = (folder / "demo.jsonl").read_text(encoding="utf-8").splitlines()
    entry = json.loads(lines[0])
    pointers = list(text_leaves(entry))
    assert len(pointers) >= 15
    hidden = [chr(c) for c in range(0x110000) if chars.HIDDEN.match(chr(c))]
    unsafe = [chr(c) for c in list(range(0x20)) + list(range(0x7F, 0xA0)) + list(range(0xFDD0, 0xFDF0)) + [0xFFFE, 0x10FFFF, 0xD800, 0xDFFF]
              if chars.UNSAFE.match(chr(c))]
    for i, char in enumerate(unsafe + hidden):
        pointer = pointers[i % len(pointers)]
        trial = json.loads(lines[0])
        set_at(trial, pointer, f"before{char}after")
        raw = i % 2 and not 0xD800 <= ord(char) <= 0xDFFF  # half as the character itself, half as a JSON escape
        line = json.dumps(trial, sort_keys=True, ensure_ascii=not raw)
        (folder / "demo.jsonl").write_text("\n".join([line, *lines[1:]]) + "\n", encoding="utf-8")
        findings = check_catalog(folder)
        assert [(f.code, f.pointer, f.line) for f in findings] == [("CAT002", pointer, 1)], (pointer, hex(ord(char)))
        assert chars.describe(char) in findings[0].message
    trial = json.loads(lines[0])
    trial["sites"][0]["line\x85"] = 1  # keys too
    (folder / "demo.jsonl").write_text(json.dumps(trial) + "\n", encoding="utf-8")
    assert [(f.code, f.pointer) for f in check_catalog(folder)] == [("CAT002", "/sites/0/line\x85")]


def test_every_unsafe_or_hidden_character_in_the_other_files_is_refused_by_name(tmp_path) -> None:
    import json

    import yaml

    from generator import chars

    folder = _catalog(tmp_path)
    releases = json.loads((folder / "releases.json").read_text(encoding="utf-8"))
    config = yaml.safe_load((folder / "projects.yaml").read_text(encoding="utf-8"))
    for i, char in enumerate(["\x1b", "\x85", "\u202e", "\u200b", "\ufeff", "\ufdd0", "\U0010ffff", "\x7f"]):
        for name, doc in (("releases.json", releases), ("projects.yaml", config), ("links.json", {"demo-x": ["demo/88c2e6e004f82f76"]})):
            pointers = list(text_leaves(doc))
            trial = json.loads(json.dumps(doc))
            pointer = pointers[i % len(pointers)]
            set_at(trial, pointer, f"before{char}after")
            text = yaml.safe_dump(trial, allow_unicode=False) if name == "projects.yaml" else json.dumps(trial)
            (folder / name).write_text(text, encoding="utf-8")
            found = [f for f in check_catalog(folder) if Path(f.path).name == name]
            assert [(f.code, f.pointer) for f in found] == [("CAT002", pointer)] or found[0].code == "YML001", (name, pointer, hex(ord(char)))
            assert chars.describe(char) in found[0].message or found[0].code == "YML001"
            (folder / name).unlink()
            if name != "links.json":
                (folder / name).write_text(json.dumps(doc) if name == "releases.json" else yaml.safe_dump(doc), encoding="utf-8")


MARKUP = ["<svg onload=alert(1)>", '"><img src=x onerror=alert(2)>', "a b", "../x", "x\n", "javascript:alert(1)", "{{ 7*7 }}", "x&amp;y", ""]
NAMES = {  # every field of a line that names something, each with a tight shape
    "/id", "/project", "/exception", "/function", "/first", "/last", "/releases/0/0", "/releases/0/1",
    "/sites/0/from", "/sites/0/to", "/sites/0/path",
}


@pytest.mark.parametrize("value", MARKUP)
def test_names_in_a_line_refuse_markup_spaces_and_climbs(tmp_path, value) -> None:
    import json

    folder = _catalog(tmp_path)
    lines = (folder / "demo.jsonl").read_text(encoding="utf-8").splitlines()
    for pointer in sorted(NAMES):
        if value == "a b" and pointer == "/function":
            continue  # `type name`: a C function with its return type
        trial = json.loads(lines[0])
        set_at(trial, pointer, value)
        (folder / "demo.jsonl").write_text(json.dumps(trial, sort_keys=True) + "\n", encoding="utf-8")
        assert ("CAT002", pointer) in _refused(check_catalog(folder), "demo.jsonl"), pointer


@pytest.mark.parametrize("value", MARKUP)
def test_names_in_releases_and_projects_refuse_markup(tmp_path, value) -> None:
    import json

    import yaml

    folder = _catalog(tmp_path)
    original = {name: (folder / name).read_text(encoding="utf-8") for name in ("releases.json", "projects.yaml")}
    git_row = {"version": "1.1", "source": "git", "repo": "example-org/demo", "tag": "v1.1", "commit": "0" * 40}
    cases = [("releases.json", f"/demo/0/{k}") for k in ("version", "artifact", "sha256")] + \
            [("releases.json", f"/demo/1/{k}") for k in ("repo", "tag", "commit")] + \
            [("projects.yaml", f"/projects/demo/{k}") for k in ("repo", "package", "source_url", "releases/0", "include/0")]
    for name, pointer in cases:
        doc = json.loads(original[name]) if name == "releases.json" else yaml.safe_load(original[name])
        if name == "releases.json":
            doc["demo"][1] = dict(git_row)
        set_at(doc, pointer, value)
        (folder / name).write_text(json.dumps(doc) if name == "releases.json" else yaml.safe_dump(doc), encoding="utf-8")
        assert ("CAT002", pointer) in _refused(check_catalog(folder), name), (name, pointer)
        (folder / name).write_text(original[name], encoding="utf-8")


def test_a_refused_value_is_found_at_its_line(tmp_path) -> None:
    import json

    folder = _catalog(tmp_path)
    releases = json.loads((folder / "releases.json").read_text(encoding="utf-8"))
    releases["demo"][1]["artifact"] = "<svg onload=alert(1)>"
    (folder / "releases.json").write_text(json.dumps(releases, indent=1), encoding="utf-8")
    (folder / "projects.yaml").write_text((folder / "projects.yaml").read_text(encoding="utf-8").replace("package: demo", "package: <b>demo</b>"), encoding="utf-8")
    found = {Path(f.path).name: f for f in check_catalog(folder)}
    lines = {name: (folder / name).read_text(encoding="utf-8").splitlines() for name in ("releases.json", "projects.yaml")}
    assert "<svg" in lines["releases.json"][found["releases.json"].line - 1] and found["releases.json"].pointer == "/demo/1/artifact"
    assert "<b>demo" in lines["projects.yaml"][found["projects.yaml"].line - 1] and found["projects.yaml"].hint


REAL_SHAPES = {
    "version": ["v3.3.7", "0.4.3.post2", "0.6.6.post1", "5.24.0", "0.9.0.1", "1.0", "v1.0.0", "2.0rc1"],
    "function": ["<module>", "<lambda>", "Foo.<lambda>", "operator()", "operator[]", "operator<", "llama_context::~llama_context",
                 "llama_model_lfm2::graph<iswa>::graph", "field_num<T>::eval", "ggml_backend_t ggml_backend_openvino_init", "~llama_io_read_device"],
    "exception": ["ValueError", "errors.BadRequest", "std::runtime_error", "vk::OutOfDeviceMemoryError", "std::ifstream::failure"],
    "path": ["vllm/worker/worker.py", "src/llama-model.cpp", "ggml/src/ggml-cuda/common.cuh", "server/text_generation_server/cli.py", "c++/x.hpp"],
}


def test_the_shapes_of_real_catalog_values_pass() -> None:
    import jsonschema_rs

    from generator.checks import catalogschema

    for kind, values in REAL_SHAPES.items():
        check = jsonschema_rs.validator_for(getattr(catalogschema, kind.upper()))
        assert [v for v in values if not check.is_valid(v)] == [], kind


def test_a_big_files_patterns_checked_in_two_processes_give_the_same_findings(monkeypatch, tmp_path) -> None:
    """From PARALLEL_PATTERNS patterns in a file, a second process checks half of them: the findings, and their
    order, are a single pass's (a file with pattern findings on both sides of the cut, and every invalid fixture)."""
    import json
    import shutil

    from generator.checks import catalog as checks

    folder = tmp_path / "catalog"
    shutil.copytree(CATALOG / "valid", folder)
    base = json.loads((folder / "demo.jsonl").read_text(encoding="utf-8").splitlines()[0])
    rows = []
    for i in range(40):
        template = f"Queue {i} is full: {{}} waiting"
        pattern = f"Queue {i} is full: (\\d+) waiting" if i % 3 else f"(?=Q)ueue {i} is full"  # CAT005, CAT009
        rows.append({**base, "template": template, "pattern": pattern, "literal": f"Queue {i} is full: ",
                     "id": checks.entry_id("demo", template)})
    rows.sort(key=lambda r: r["id"])
    (folder / "demo.jsonl").write_text("".join(json.dumps(r, sort_keys=True, separators=(",", ":")) + "\n" for r in rows), encoding="utf-8")

    def findings() -> list:
        return [f for f in check_catalog(folder)] + [f for path in INVALID for f in check_catalog(path)]

    monkeypatch.setenv("ERRDEX_NO_CACHE", "1")
    single = findings()
    monkeypatch.setattr(checks, "PARALLEL_PATTERNS", 1)
    _HALVES.clear()
    monkeypatch.setattr(checks, "_patterns_of", _counted)
    assert findings() == single and sum(f.code == "CAT005" for f in single) >= 10
    assert 20 in _HALVES  # the two-process path ran (this process's half is counted here)


_HALVES: list[int] = []


def _counted(path, jobs):
    from generator.checks import catalog as checks

    _HALVES.append(len(jobs))
    return [list(checks._check_pattern(path, entry, where)) for entry, where in jobs]


def test_the_quick_character_test_never_spares_a_line_that_holds_a_bad_character() -> None:
    """plain_json lets a line skip the walk over its strings only when no decoded string can hold an unsafe or
    hidden character; a pattern's escaped backslashes (`\\\\.`) do not stop it (most catalog lines have them)."""
    import json

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from generator.checks.catalogparts import bad_characters, plain_json

    @settings(max_examples=400, deadline=None)
    @given(st.lists(st.text(st.sampled_from("a\\.\"\t\n\x00\x1b\x7f\x85\u200b\u202e\ufeff\ufdd0\U0001fffe/u0"), max_size=12), max_size=4),
           st.booleans())
    def check(texts, ascii_only):
        line = json.dumps({"pattern": texts}, ensure_ascii=ascii_only)
        if plain_json(line):
            assert list(bad_characters(json.loads(line))) == []

    check()
    assert plain_json(json.dumps({"pattern": "No available memory for the cache blocks\\."}))
    assert not plain_json(json.dumps({"pattern": "\\\x1b"})) and not plain_json(json.dumps({"t": "\u202e"}, ensure_ascii=True))


def test_the_escape_test_finds_what_the_escape_pattern_finds() -> None:
    """catalogparts._escapes (escaped backslashes taken out, then one search) finds an escape exactly where the
    defining pattern _ESCAPES does, whatever the run of backslashes."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from generator.checks.catalogparts import _ESCAPES, _escapes

    @settings(max_examples=2000, deadline=None)
    @given(st.text(st.sampled_from('\\tn"u/a '), max_size=16))
    def check(text):
        assert _escapes(text) == (_ESCAPES.search(text) is not None)

    check()


def test_a_project_may_name_a_shared_call_table_that_exists(tmp_path) -> None:
    import yaml

    from generator.harvest.config import ConfigError, parse_config

    folder = _catalog(tmp_path)
    doc = yaml.safe_load((folder / "projects.yaml").read_text(encoding="utf-8"))
    doc.setdefault("defaults", {})["c_call_sets"] = {"torch": {"TORCH_CHECK": {"kind": "raise", "arg": 1, "joined": True, "checks": 0}}}
    doc["projects"]["demo"]["c_calls"] = "torch"
    (folder / "projects.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    assert _refused(check_catalog(folder), "projects.yaml") == []
    assert parse_config(doc)["demo"].c_calls["TORCH_CHECK"].checks == 0
    doc["projects"]["demo"]["c_calls"] = "cuda"
    (folder / "projects.yaml").write_text(yaml.safe_dump(doc), encoding="utf-8")
    assert ("CAT002", "/projects/demo/c_calls") in _refused(check_catalog(folder), "projects.yaml")
    with pytest.raises(ConfigError, match="no defaults.c_call_sets.cuda"):
        parse_config(doc)
