"""The catalog's canonical line (generator.jsonline.canonical) is the text json.dumps gives, compact with sorted keys
and UTF-8 as it is, for every value the catalog's schemas admit; the harvest writes it and the checks ask for it."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from generator.checks.catalogschema import SCHEMA_DIR
from generator.jsonline import canonical, read


def _json(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


_SCALARS = (st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()), max_size=20)  # lone surrogates too
            | st.integers(min_value=-(2**70), max_value=2**70)  # past 64 bits too
            | st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: f.is_integer()).map(float)
            | st.booleans() | st.none())
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
                       max_leaves=30)


@settings(max_examples=400, deadline=None)
@given(_VALUES)
def test_a_canonical_line_is_the_text_json_dumps_gives(value):
    assert canonical(value) == _json(value)


def test_the_edges_of_the_two_writers():
    for value in ["\x00\x01\x1f\x7f\u2028\u2029\"\\/\b\f\n\r\t", "\ud800", "\U0001f600", 2**63 - 1, -(2**63), 2**64,
                  -(2**63) - 1, 1e16, 1e300, -0.0, {"\u00e9": 1, "e": 2, "\U0001f600": 3, "\uffff": 4, "": 5}]:
        assert canonical(value) == _json(value), value
    assert math.isclose(json.loads(canonical(1e-05)), 1e-05)  # a fraction, which no schema admits, still reads back


def _types(node) -> set[str]:
    found: set[str] = set()
    if isinstance(node, dict):
        kind = node.get("type")
        found |= set(kind) if isinstance(kind, list) else {kind} if isinstance(kind, str) else set()
        for value in node.values():
            found |= _types(value)
    elif isinstance(node, list):
        for value in node:
            found |= _types(value)
    return found


def test_the_catalog_schemas_admit_no_fraction():
    """Why a canonical line is json.dumps's text for every line the checks compare: their schemas take integers
    and no other number."""
    for name in ("catalog.schema.json", "catalog-symbols.schema.json"):
        types = _types(json.loads((SCHEMA_DIR / name).read_text(encoding="utf-8")))
        assert "number" not in types and types, (name, types)


_DERIVED = st.recursive(st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()), max_size=20)
                        | st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.booleans() | st.none(),
                        lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5), max_leaves=20)


@settings(max_examples=300)
@given(_DERIVED, st.booleans())
def test_read_gives_what_json_gives_for_what_errdex_derives(value, ascii_only):
    """The bundle writes its tables with ensure_ascii (a lone surrogate as an escape orjson refuses, json reads),
    the API its documents as UTF-8: both read back as json reads them, integers within 64 bits."""
    text = json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"))
    if not ascii_only and any(0xD800 <= ord(c) < 0xE000 for c in text):
        return  # not UTF-8: no file holds it
    data = text.encode("utf-8")
    assert read(data) == json.loads(data) and type(read(data)) is type(json.loads(data))
    assert read(text) == json.loads(text)


def test_read_is_not_for_integers_past_64_bits():
    """Why catalog entries and records as they came are read with json: orjson reads a longer integer as a float."""
    assert json.loads("18446744073709551616") == 2**64 and isinstance(json.loads("18446744073709551616"), int)
    assert isinstance(read("18446744073709551616"), float)
