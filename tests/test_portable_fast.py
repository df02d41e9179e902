"""generator.match.portable.js_source_fast: the JavaScript form of the catalog's pattern shapes without a parse, the same
as `analyse` gives, over the repository's whole catalog and over shapes it must leave to `analyse`; and the text
shapes' own matcher (shape_match, generator.match.compiled), the same as RE2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from generator.match.portable import (analyse, js_source_fast, literal_text, prefilter_literal, shape_found, shape_literal,
                                      shape_match, text_shape)

CATALOG = Path(__file__).resolve().parent.parent / "data" / "catalog"


@pytest.mark.data
def test_the_whole_catalog_takes_the_fast_way_to_the_same_answer():
    patterns = [json.loads(line)["pattern"] for path in sorted(CATALOG.glob("*.jsonl")) for line in path.open(encoding="utf-8")]
    if not patterns:
        pytest.skip("no catalog harvested")
    slow = [p for p in patterns if js_source_fast(p) is None]
    assert len(slow) <= len(patterns) // 100, slow[:5]
    wrong = [p for p in patterns if (fast := js_source_fast(p)) is not None and fast != analyse(p, backtracking=False).js_source]
    assert wrong == []


@pytest.mark.data
def test_the_whole_catalog_holds_the_literals_the_harvest_writes():
    """Each entry's `literal` is its pattern's prefilter literal, and the shapes' literal read without a parse is
    the one `analyse` gives."""
    entries = [json.loads(line) for path in sorted(CATALOG.glob("*.jsonl")) for line in path.open(encoding="utf-8")]
    if not entries:
        pytest.skip("no catalog harvested")
    wrong = [e["id"] for e in entries if e["literal"] != prefilter_literal(analyse(e["pattern"], backtracking=False).literals)]
    assert wrong == []
    shaped = [(e, shape) for e in entries if (shape := text_shape(e["pattern"])) is not None]
    assert len(shaped) > len(entries) // 2
    assert [e["id"] for e, shape in shaped if shape_literal(shape) != e["literal"]] == []


@pytest.mark.parametrize("pattern, literal", [
    (r"Muon needs (.+?) are not\. the longer second text wins, and it is cut to sixty-four characters at most", None),
    (r"Value of `(.+?)` is wrong", "Value of `"),  # equals: the first
    (r"Failed to get the list: (.+)", "Failed to get the list: "),
    (r"plain text only", "plain text only"),
    (r"x (.+?) then longer", " then longer"),
])
def test_a_shapes_literal_is_the_one_analyse_gives(pattern, literal):
    shape = text_shape(pattern)
    assert shape is not None
    assert shape_literal(shape) == prefilter_literal(analyse(pattern).literals)
    if literal is not None:
        assert shape_literal(shape) == literal


@pytest.mark.parametrize("pattern", [
    r"Removing bias \(([^)\n]+?)\) from (.+?)\.", r"Could not parse ([^,\n]+?): (.+)", r"a/b \{x\} \|", "tab\\there",
    "ctl .x", r"ends ([^\]\n]+?)\]", r"dash ([^\-\n]+?)-", "caf\u00e9 \u2028 x",
])
def test_shapes_the_harvest_writes(pattern):
    fast = js_source_fast(pattern)
    assert fast is not None and fast == analyse(pattern).js_source


@pytest.mark.parametrize("pattern", [r"(?i)error", r"^start", r"end$", r"\d+ items", r"a{2}", r"(a|b)", r"x*", r"[abc]", "", r"\x41"])
def test_other_shapes_are_left_to_analyse(pattern):
    assert js_source_fast(pattern) is None


# -- literal_text: a pattern that is only text -------------------------------------------------------------------
PUNCTUATION = "".join(chr(c) for c in range(0x21, 0x7F) if not chr(c).isalnum() and chr(c) != "_")


@pytest.mark.parametrize("c", list(PUNCTUATION) + ["\\t", "\\n", "\\r", "\\f", "\\v"])
def test_each_escape_of_text_means_its_character_in_re2_and_analyse(c):
    import re2

    from generator.checks.regex import compile_error, compile_pattern

    pattern = f"before \\{c} after" if len(c) == 1 else f"before {c} after"
    text = literal_text(pattern)
    char = c if len(c) == 1 else {"\\t": "\t", "\\n": "\n", "\\r": "\r", "\\f": "\f", "\\v": "\v"}[c]
    assert text == f"before {char} after"
    analysis = analyse(pattern)
    assert analysis.portable and analysis.specificity == len(text) and analysis.literals == [text]
    assert compile_error(pattern) is None
    compiled = compile_pattern(pattern)
    for haystack in (f"x {text} y", text, f"before {char}after", f"before  after", text[:-1]):
        assert (compiled.search(haystack) is not None) == (text in haystack), haystack
    assert isinstance(compiled, re2._Regexp)


@pytest.mark.parametrize("pattern", [
    r"a\_b", "a\\\u00e9b", r"a\ab", r"a\db", "a\x01b", "a\u2028b", "a.b", "(ab)", "a[b]", "a{2}", "a+", "a|b", "^ab",
    "ab$", r"a\x41", "(?i)ab", "ab\\", "a}b", "a]b", "",
])
def test_anything_but_text_is_left_to_analyse(pattern):
    assert literal_text(pattern) is None


@pytest.mark.parametrize("pattern, shape", [
    (r"Unknown modality: (.+)", (("Unknown modality: ",), True)), (r"a\.b", (("a.b",), False)),
    (r"a\\(.+)", (("a\\",), True)), (r"Cannot (.+?) weights", (("Cannot ", " weights"), False)),
    (r"a\\(.+?)b", (("a\\", "b"), False)), (r"a\(.+)", None), (r"a(.+?)", None), (r"a(.+)b", None), ("(.+)", None),
    (r"a(.+)(.+)", None), (r"a(.+?)b(.+)", None), (r"a(.+?)b(.+?)c", None), (r"a\(.+?)b", None), (r"(.+?)b", None),
])
def test_text_shapes(pattern, shape):
    assert text_shape(pattern) == shape


@pytest.mark.parametrize("pattern", [r"Unknown modality: (.+)", r"Cannot (.+?) weights", r"ab(.+?)bc"])
@pytest.mark.parametrize("line", ["Unknown modality: x", "Unknown modality: ", "so Unknown modality: ", "Unknown modality:",
                                  "Unknown modality: Unknown modality: ", "Unknown modality: \r", "", "Cannot load weights",
                                  "Cannot  weights", "Cannot weights", "weights Cannot x", "Cannot x Cannot weights", "abbc",
                                  "ab-bc", "abc", "ab bc bc", "bc ab"])
def test_a_shape_matches_as_re2_does(pattern, line):
    from generator.checks.regex import compile_pattern

    assert shape_found(text_shape(pattern), line) == (compile_pattern(pattern).search(line) is not None)


def test_the_catalog_check_finds_the_same_in_text_as_the_full_analysis(tmp_path, monkeypatch):
    """Entries whose pattern is text, or text and a value, get without a parse or RE2 the findings the full
    analysis gives: ones that find ordinary text (CAT006), ones that do not find their template (CAT009), one too
    short to be read without the analysis, and good ones."""
    from generator.checks import catalog as checks
    from generator.checks.ordinary import ORDINARY_LINES

    ordinary = ORDINARY_LINES[0].split()[1] + " " + ORDINARY_LINES[0].split()[2]
    line_end = ORDINARY_LINES[0].split()[-1]  # "dog.": only at the end of its line
    entries = [
        {"id": "p/1", "pattern": ordinary.replace(".", "\\."), "template": f"{ordinary} failed: {{}}"},
        {"id": "p/2", "pattern": r"Cannot load \(weights\)", "template": "Cannot load weights: {}"},
        {"id": "p/3", "pattern": r"a\.b", "template": "a.b {}"},
        {"id": "p/4", "pattern": r"Cannot load \(weights\) for \{model\}", "template": "Cannot load (weights) for {model} at {}"},
        {"id": "p/5", "pattern": ordinary + "(.+)", "template": f"{ordinary} {{}}"},
        {"id": "p/6", "pattern": "lazy " + line_end.replace(".", "\\.") + "(.+)", "template": "{}: lazy dog. {}"},
        {"id": "p/7", "pattern": r"Cannot load weights(.+)", "template": "{} Cannot load weights"},
        {"id": "p/8", "pattern": r"Cannot load weights(.+)", "template": "{}\nCannot load weights"},
        {"id": "p/9", "pattern": r"Cannot load weights(.+)", "template": "Cannot load weights\n{}"},  # lines joined: found
        {"id": "p/10", "pattern": r"Cannot (.+?) weights", "template": "Cannot load {} weights"},
        {"id": "p/11", "pattern": r"Cannot (.+?) weights", "template": "Cannot weights {}"},
        {"id": "p/12", "pattern": "The (.+?) brown fox", "template": "The {} brown fox"},
    ]
    assert all(text_shape(e["pattern"]) is not None for e in entries)
    for e in entries:
        e["literal"] = shape_literal(text_shape(e["pattern"]))
    entries[9]["literal"] = "Cannot"  # spaces dropped: not the pattern's literal (CAT013)
    entries[11]["literal"] = "The"  # the shorter text
    fast = [[str(f) for f in checks._check_pattern(tmp_path / "p.jsonl", e, (i + 1, 1))] for i, e in enumerate(entries)]
    monkeypatch.setattr(checks, "text_shape", lambda pattern: None)
    full = [[str(f) for f in checks._check_pattern(tmp_path / "p.jsonl", e, (i + 1, 1))] for i, e in enumerate(entries)]
    assert fast == full
    assert ["CAT006" in " ".join(f) for f in full] == [True, False, True, False, True, False, False, False, False, False, False, True]  # p/3: short
    assert ["CAT009" in " ".join(f) for f in full] == [False, True, False, False, False, False, True, True, False, False, True, False]
    assert ["CAT013" in " ".join(f) for f in full] == [False] * 9 + [True, False, True]
    assert "no fixed text of 4 or more characters" in full[2][0] and full[3] == full[5] == full[8] == []


@pytest.mark.data
def test_the_catalogs_text_patterns_read_as_the_full_analysis_reads_them():
    from generator.checks.regex import compile_error, compile_pattern, text_too_broad, too_broad

    entries = [json.loads(line) for path in sorted(CATALOG.glob("*.jsonl")) for line in path.open(encoding="utf-8")]
    if not entries:
        pytest.skip("no catalog harvested")
    shaped = [(e, text_shape(e["pattern"])) for e in entries]
    shaped = [(e, shape) for e, shape in shaped if shape is not None]
    assert len(shaped) >= len(entries) // 2  # most of the catalog is text, or text and a value
    assert {(len(texts), tail) for _, (texts, tail) in shaped} == {(1, False), (1, True), (2, False)}
    for entry, shape in shaped[::7]:  # a seventh of them, spread over every project: each a full analysis and RE2
        pattern = entry["pattern"]
        analysis = analyse(pattern)
        assert analysis.portable and compile_error(pattern) is None and analysis.specificity == sum(map(len, shape[0])), pattern
        if max(map(len, shape[0])) >= 4:
            assert too_broad(pattern, analysis.literals) == text_too_broad(shape), pattern
        for part in [entry["template"].replace("\n", " ")] + entry["template"].split("\n"):
            filled = part.replace("{}", "x1")
            assert (compile_pattern(pattern).search(filled) is not None) == shape_found(shape, filled), pattern


# -- shape_match: RE2's match of a text shape, found without RE2 ------------------------------------------------
SHAPE_CHARS = "ab .\\("


def _escaped(text: str) -> str:
    return "".join("\\" + c if c in ".\\(" else c for c in text)


@settings(max_examples=600, deadline=None)
@given(texts=st.lists(st.text(SHAPE_CHARS, min_size=1, max_size=4), min_size=1, max_size=2), tail=st.booleans(),
       line=st.text(SHAPE_CHARS + "x\r\u00e9", max_size=24))
def test_a_shapes_match_is_re2s_span_and_values(texts, tail, line):
    """Over shapes of one or two texts (a value between them, or one after one text) and lines made of their
    characters: the same span and values as RE2, in text and (for an ASCII line) in bytes."""
    from generator.match.compiled import compile_pattern, first_span

    tail = tail and len(texts) == 1
    pattern = "(.+?)".join(_escaped(t) for t in texts) + ("(.+)" if tail else "")
    assert text_shape(pattern) == (tuple(texts), tail)
    expected = re2.compile(pattern).search(line)
    found = shape_match(tuple(texts), tail, line)
    assert (found is None) == (expected is None)
    if found is not None:
        assert found == (expected.start(), expected.end(), expected.groups())
    compiled = compile_pattern(pattern)
    m = compiled.search(line)
    assert (m is None) == (expected is None) and (m is None or (m.span(), m.groups()) == (expected.span(), expected.groups()))
    if line.isascii():
        assert first_span(compiled, line.encode()) == re2.compile(pattern)._regexp.Match(re2._Anchor.UNANCHORED, line.encode(), 0, len(line))[0]


def test_a_value_with_a_line_break_is_left_to_re2():
    from generator.match.compiled import compile_pattern

    compiled = compile_pattern(r"Cannot (.+?) weights")
    assert compiled.search("Cannot load\nthe weights") is None  # RE2's `.` does not take a line break
    assert compiled.search("x\nCannot load weights").groups() == ("load",)
    assert compiled.first(b"Cannot a\nb weights") == (-1, -1)


@pytest.mark.data
def test_the_whole_catalogs_shapes_match_as_re2_does():
    """Each shaped entry of the catalog on its own template (holes filled) and on lines around it: shape_match gives
    RE2's span and values."""
    entries = [json.loads(line) for path in sorted(CATALOG.glob("*.jsonl")) for line in path.open(encoding="utf-8")]
    if not entries:
        pytest.skip("no catalog harvested")
    wrong = []
    for e in entries:
        shape = text_shape(e["pattern"])
        if shape is None:
            continue
        compiled = re2.compile(e["pattern"])
        message = e["template"].replace("{}", "v 1")
        for line in (message, "x: " + message + " (y)", message[: len(message) // 2], (message + " ") * 2):
            line = line.replace("\n", " ")
            expected = compiled.search(line)
            found = shape_match(shape[0], shape[1], line)
            if (found is None) != (expected is None) or (found is not None and found != (expected.start(), expected.end(), expected.groups())):
                wrong.append((e["id"], line))
    assert wrong == []
