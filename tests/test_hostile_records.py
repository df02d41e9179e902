"""Hostile records: each yields a precise finding at a precise place, never a traceback, never execution."""

from __future__ import annotations

import resource
from pathlib import Path

import pytest
import yaml

from generator.cli import main
from generator.checks.pipeline import check

MINIMAL_TEXT = (Path(__file__).parent / "fixtures/valid/demo/minimal.yaml").read_text(encoding="utf-8")


def _write(tmp_path: Path, text: str | bytes, name: str = "demo/minimal.yaml") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def _codes(tmp_path: Path, text: str | bytes, strict: bool = False) -> list[tuple[str, int, str]]:
    _write(tmp_path, text)
    result = check([tmp_path], tmp_path, strict)
    return [(f.code, f.line, f.pointer) for f in result.findings]


def _edit(old: str, new: str) -> str:
    assert old in MINIMAL_TEXT
    return MINIMAL_TEXT.replace(old, new, 1)


# --- YAML ---------------------------------------------------------------------------------------------------

def test_billion_laughs_is_refused_quickly(tmp_path) -> None:
    levels = ["a: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
    levels += [f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]" for i in range(8)]
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert _codes(tmp_path, "\n".join(levels) + "\n") == [("YML005", 2, "/a")]
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 50_000  # KiB: nothing was expanded


@pytest.mark.parametrize("tag", ["!!python/object/apply:os.system ['touch /tmp/errdex-pwned']", "!!python/name:os.system", "!!binary aGk=", "!!set {a}", "!custom x"])
def test_tags_are_refused_and_never_run(tmp_path, tag) -> None:
    marker = Path("/tmp/errdex-pwned")
    marker.unlink(missing_ok=True)
    assert _codes(tmp_path, _edit("domain: llm", f"domain: {tag}")) == [("YML006", 4, "/domain")]
    assert not marker.exists()


def test_duplicate_and_merge_keys(tmp_path) -> None:
    assert _codes(tmp_path, _edit("domain: llm\n", "domain: llm\ndomain: other\n")) == [("YML004", 5, "/domain")]
    assert _codes(tmp_path, _edit("domain: llm\n", "domain: llm\n<<: {category: x}\n"))[0][0] == "YML005"


def test_encoding_problems(tmp_path) -> None:
    assert _codes(tmp_path, MINIMAL_TEXT.encode("utf-8").replace(b"llm", b"ll\xc3")) == [("YML002", 4, "")]
    assert _codes(tmp_path, b"\xef\xbb\xbf" + MINIMAL_TEXT.encode("utf-8")) == [("YML010", 1, "")]
    assert _codes(tmp_path, MINIMAL_TEXT.encode("utf-16")) [0][0] in {"YML002", "YML010"}


def test_crlf_line_ends_load_like_lf(tmp_path) -> None:
    assert _codes(tmp_path, MINIMAL_TEXT.replace("\n", "\r\n"), strict=True) == []


def test_tab_indentation_is_a_syntax_finding(tmp_path) -> None:
    assert _codes(tmp_path, _edit("  severity: error", "\tseverity: error")) == [("YML001", 13, "")]


def test_a_50_mb_file_is_refused_without_reading_it_all(tmp_path) -> None:
    path = _write(tmp_path, b"")
    with path.open("wb") as handle:
        handle.write(MINIMAL_TEXT.encode())
        handle.write(b"# " + b"x" * (50 * 1024 * 1024) + b"\n")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert [(f.code, f.line) for f in check([tmp_path], tmp_path).findings] == [("YML003", 1)]
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 20_000  # KiB


def test_10000_levels_of_nesting(tmp_path) -> None:
    deep = "tags: " + "[" * 10_000 + "]" * 10_000
    assert _codes(tmp_path, _edit("tags: [kv-cache]", deep))[0][:1] == ("YML008",)
    deep_map = "tags:\n" + "".join("  " * i + f"k{i}:\n" for i in range(1, 200)) + "  " * 200 + "v\n"
    assert _codes(tmp_path, _edit("tags: [kv-cache]\n", deep_map))[0][:1] == ("YML008",)


@pytest.mark.parametrize("text,message", [("", "the file is empty"), ("# only a comment\n", "the file is empty"),
                                          ("- a\n- b\n", "a list"), ("just text\n", "a single value")])
def test_not_a_mapping(tmp_path, text, message) -> None:
    _write(tmp_path, text)
    findings = check([tmp_path], tmp_path).findings
    assert [f.code for f in findings] == ["YML007"] and message in findings[0].message


@pytest.mark.parametrize("old,new,pointer", [
    ("  line: 3", "  line: '3'", "/source/line"),
    ("last_updated: '2025-05-06'", "last_updated: 2025-05-06", None),  # a bare date stays text: fine
    ("domain: llm", "domain: 2024-01-01", None),  # the same text, never turned into a date object
    ("domain: llm", "domain: yes", "/domain"),
    ("domain: llm", "domain: 0.10", "/domain"),
    ("domain: llm", "domain: null", "/domain"),
])
def test_wrong_scalar_types(tmp_path, old, new, pointer) -> None:
    codes = _codes(tmp_path, _edit(old, new))
    if pointer is None:
        assert codes == []
    else:
        assert codes[0][0] in {"SCH003", "SCH005"} and codes[0][2] == pointer


# --- ids and paths --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("bad_id", ["../etc/passwd", "/etc/passwd", "demo/%2e%2e", "demo/\u0430bc", "Demo/Minimal",
                                    "demo//x", "demo/x/", "demo/\u200bx", "demo/x.yaml", "demo\\x"])
def test_hostile_ids_are_refused(tmp_path, bad_id) -> None:
    codes = _codes(tmp_path, _edit("id: demo/minimal", f"id: {yaml.safe_dump(bad_id).splitlines()[0]}"))
    assert ("SCH005", 2, "/id") in codes


def test_alias_equal_to_another_records_id(tmp_path) -> None:
    _write(tmp_path, _edit("id: demo/minimal", "id: demo/other").replace("repo:", "aliases: [demo/minimal]\nrepo:", 1), "demo/other.yaml")
    assert ("XRC001", 3, "/aliases/0") in _codes(tmp_path, MINIMAL_TEXT)


def test_related_to_missing_and_to_retired(tmp_path) -> None:
    _write(tmp_path, _edit("id: demo/minimal", "id: demo/old").replace("provenance:", "superseded_by: demo/minimal\nprovenance:"), "demo/old.yaml")
    text = _edit("source:\n", "related:\n  leads_to: [demo/old, demo/missing]\nsource:\n")
    assert sorted(_codes(tmp_path, text)) == [("XRC002", 25, "/related/leads_to/1"), ("XRC004", 25, "/related/leads_to/0")]


def test_supersede_cycle(tmp_path) -> None:
    _write(tmp_path, _edit("id: demo/minimal", "id: demo/b").replace("provenance:", "superseded_by: demo/minimal\nprovenance:"), "demo/b.yaml")
    codes = _codes(tmp_path, _edit("provenance:", "superseded_by: demo/b\nprovenance:"))
    assert [c[0] for c in codes] == ["XRC003"]


# --- text and urls --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("url", ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "JAVASCRIPT:alert(1)",
                                 "vbscript:x", "//evil.example/x", "https://ok.example/\"onmouseover=alert(1)", "file:///etc/passwd"])
def test_only_http_urls(tmp_path, url) -> None:
    text = _edit("source:\n", f"official_docs:\n  url: {yaml.safe_dump(url).splitlines()[0]}\nsource:\n")
    assert ("SCH005", 25, "/official_docs/url") in _codes(tmp_path, text)
    text = _edit("source:\n", f"dead_ends:\n  - why_fails: x\n    why_fails_zh: 中文\n    sources:\n      - {yaml.safe_dump(url).splitlines()[0]}\nsource:\n")
    assert [c[:1] for c in _codes(tmp_path, text)] == [("SCH005",)]


@pytest.mark.parametrize("char", ["\u200b", "\u202e", "\u2066", "\ufeff", "\u00ad"])
def test_invisible_and_bidi_characters_in_messages(tmp_path, char) -> None:
    text = _edit("  message: Failed to allocate {} blocks for request {}", f'  message: "Failed to allocate {{}}{char} blocks for request {{}}"')
    assert _codes(tmp_path, text) == [("REC006", 8, "/error/message")]


def test_ten_megabyte_strings_are_refused(tmp_path) -> None:
    text = _edit("explanation: The cache had fewer free blocks than the request needed.", "explanation: " + "x" * (10 * 1024 * 1024))
    assert [c[0] for c in _codes(tmp_path, text)] == ["YML003"]
    text = _edit("explanation: The cache had fewer free blocks than the request needed.", "explanation: " + "x" * 5000)
    assert _codes(tmp_path, text) == [("SCH007", 18, "/explanation")]


# --- patterns -------------------------------------------------------------------------------------------------

def test_catastrophic_patterns(tmp_path) -> None:
    import time

    # Nested unbounded repetition would hang browsers' backtracking engines: refused outright.
    text = _edit(r"regex: 'Failed to allocate (\d+) blocks for request (\S+)'", "regex: '(a+)+$'")
    assert [c[:2] for c in _codes(tmp_path, text)] == [("RGX005", 10)]
    # A repeated alternation whose branches overlap is exponential for a backtracking engine: refused too.
    text = _edit(r"regex: 'Failed to allocate (\d+) blocks for request (\S+)'", "regex: 'Failed (a|aa)*c'")
    text = text.replace("  examples:\n    - {text: 'ValueError: Failed to allocate 12 blocks for request req-7', seen: https://github.com/example-org/engine/issues/1}", "  examples:\n    - {text: 'Failed " + "a" * 1900 + "!', seen: https://github.com/example-org/engine/issues/1}")
    start = time.perf_counter()
    codes = _codes(tmp_path, text)
    assert time.perf_counter() - start < 5
    assert [c[:2] for c in codes] == [("RGX005", 10)]
    # Slow only with large bounds (no shape to name): running it finds it, and validation stays fast.
    text = _edit(r"regex: 'Failed to allocate (\d+) blocks for request (\S+)'", r"regex: 'Failed to allocate (\d{1,900}\d{1,900}) blocks'")
    text = text.replace("  examples:\n    - {text: 'ValueError: Failed to allocate 12 blocks for request req-7', seen: https://github.com/example-org/engine/issues/1}", "  examples:\n    - {text: 'Failed to allocate " + "1" * 1900 + "!', seen: https://github.com/example-org/engine/issues/1}")
    start = time.perf_counter()
    codes = _codes(tmp_path, text)
    assert time.perf_counter() - start < 5
    assert ("RGX007", 10, "/error/regex") in codes and ("RGX002", 15, "/error/examples/0/text") in codes


def test_invalid_and_huge_patterns(tmp_path) -> None:
    assert _codes(tmp_path, _edit(r"regex: 'Failed to allocate (\d+) blocks for request (\S+)'", "regex: '(abc'"))[0][0] == "RGX001"
    huge = _edit(r"regex: 'Failed to allocate (\d+) blocks for request (\S+)'", "regex: '" + "a" * 100_000 + "'")
    assert [c[0] for c in _codes(tmp_path, huge)][0] == "SCH007"  # RE2 still compiles it, in linear time


def test_cli_never_prints_a_traceback(tmp_path, capsys) -> None:
    for i, text in enumerate([b"\x00\x01\x02", b"{[", b"- - - -", b"id: [", "é: ü\n".encode("latin-1")]):
        _write(tmp_path, text, f"demo/bad{i}.yaml")
    assert main(["validate", "--root", str(tmp_path), str(tmp_path)]) == 1
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
