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


_READ = st.recursive(st.text(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, exclude_categories=()), max_size=20)
                     | st.integers(min_value=-(2**80), max_value=2**80) | st.integers(min_value=-(2**70), max_value=-(2**62))
                     | st.floats(allow_nan=True, allow_infinity=True) | st.booleans() | st.none(),
                     lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5), max_leaves=20)


def _same(a, b) -> bool:
    """Equal values of equal types all the way down (NaN equal to NaN, -0.0 not to 0.0)."""
    if isinstance(a, float) and isinstance(b, float):
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return a == b


@settings(max_examples=400)
@given(_READ, st.booleans())
def test_read_gives_what_json_loads_gives(value, ascii_only):
    """For any JSON text json.dumps writes (integers past 64 bits, NaN, a lone surrogate escaped or not), read gives
    json.loads's value, of the same types; from bytes and from text alike."""
    text = json.dumps(value, ensure_ascii=ascii_only, separators=(",", ":"))
    assert _same(read(text), json.loads(text))
    if ascii_only or not any(0xD800 <= ord(c) < 0xE000 for c in text):  # else no UTF-8 file holds it
        data = text.encode("utf-8")
        assert _same(read(data), json.loads(data))


def test_read_refuses_what_json_refuses_and_keeps_the_last_of_two_keys():
    assert _same(read('{"a": 1, "a": 2}'), {"a": 2}) and _same(read(b"[1e400, -0]"), json.loads(b"[1e400, -0]"))
    assert _same(read(b" 12345678901234567890 "), 12345678901234567890) and _same(read("1" * 40), int("1" * 40))
    for bad in (b"[1,]", b"\xff", '{"a": "\x01"}', b"", b"[" * 5000 + b"]" * 5000):
        try:
            expected = json.loads(bad)
        except (ValueError, RecursionError) as exc:
            expected = type(exc)
        try:
            got = read(bad)
        except (ValueError, RecursionError) as exc:
            got = type(exc)
        assert got == expected or (isinstance(got, type) and isinstance(expected, type) and issubclass(got, expected)), bad
