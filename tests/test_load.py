"""Loading: positions for every value, and YAML that records may not use."""

from __future__ import annotations

from pathlib import Path

from generator.records.load import RawRecord, load_file, parse_text


def test_positions_point_at_values_and_keys() -> None:
    text = "id: a/b\nerror:\n  examples:\n    - one\n    - two\n"
    data, _, findings = parse_text(text, "x.yaml")
    assert findings == []
    raw = RawRecord("x.yaml", data, text)
    assert data == {"id": "a/b", "error": {"examples": ["one", "two"]}}
    assert raw.pos("/error/examples/1") == (5, 7)
    assert raw.pos("/error/examples", key=True) == (3, 3)
    assert raw.pos("/error/missing/deeper") == (3, 3)  # the nearest parent that exists


def test_scalars_keep_yaml_meaning_but_dates_stay_text() -> None:
    data, *_ = parse_text("a: 2024-01-01\nb: 0.10\nc: yes\nd: ~\ne: '7'\n", "x.yaml")
    assert data == {"a": "2024-01-01", "b": 0.1, "c": True, "d": None, "e": "7"}


def test_crlf_and_tabs_in_quoted_text_load(tmp_path: Path) -> None:
    path = tmp_path / "r.yaml"
    path.write_bytes(b"id: a/b\r\nexplanation: \"tab\\there\"\r\n")
    raw, findings = load_file(path)
    assert findings == [] and raw.data == {"id": "a/b", "explanation": "tab\there"}
    assert raw.pos("/explanation") == (2, 14)


def test_billion_laughs_is_refused_at_the_first_alias() -> None:
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(20)
    )
    data, _, findings = parse_text(bomb, "bomb.yaml")
    assert data is None
    assert [(f.code, f.line) for f in findings] == [("YML005", 2)]


def test_python_tags_never_construct() -> None:
    data, _, findings = parse_text("a: !!python/object/apply:os.system ['true']\n", "x.yaml")
    assert data is None and findings[0].code == "YML006"
