"""Property tests: any schema-valid record loads, checks, renders in both languages and exports, and the
exported JSON round-trips to the same record. Records are generated from the schema itself."""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from generator import routes
from generator.site import render
from generator.api.export import api_files
from generator.records.load import parse_text
from generator.records.model import Record
from generator.checks import run_checks
from generator import chars
from generator.site.feeds import atom_feed
from generator.records.load import RawRecord
from generator.records.schema import record_schema
from generator.yamlout import dump_record

# No shrinking phase: it can take minutes on these large values; a failure still prints its example.
# ERRDEX_PROPERTY_EXAMPLES=1000 runs a deeper search on demand.
SETTINGS = settings(max_examples=int(os.environ.get("ERRDEX_PROPERTY_EXAMPLES", "40")), deadline=None, suppress_health_check=list(HealthCheck),
                    phases=[Phase.explicit, Phase.reuse, Phase.generate])


# The whole of Unicode (every scalar value), with the characters that break parsers drawn often: every C0 and
# C1 control, DEL, non-characters and the hidden (invisible, direction-changing) ones. Surrogates are not
# characters and no YAML file can hold one (the loader refuses even the escape): the field test adds them.
_SPECIAL = (
    [chr(c) for c in range(0x20)] + [chr(c) for c in range(0x7F, 0xA0)] + ["\ufdd0", "\ufdef"]
    + [chr(p << 16 | 0xFFFE) for p in range(17)] + [chr(p << 16 | 0xFFFF) for p in range(17)]
    + ["\u200b", "\u202e", "\u2066", "\ufeff", "\u00ad", "\u2028", "\u2029"]
)
CHARACTERS = st.one_of(st.characters(exclude_categories=["Cs"]), st.sampled_from(_SPECIAL))


def _standalone(data: dict) -> dict:
    """One record on its own: no links to records that do not exist, no alias equal to its id."""
    data = dict(data)
    data.pop("related", None)
    data.pop("superseded_by", None)
    data["aliases"] = sorted({a for a in data.get("aliases", []) if a != data["id"]})
    return data


def from_schema(schema: dict, node: dict | None = None) -> st.SearchStrategy:
    """Values valid against our (generated) record schema: the subset of JSON Schema it uses.

    Kept here rather than taken from hypothesis-jsonschema, whose last release does not run on current
    Hypothesis; a schema keyword this does not know fails loudly, so the generator cannot drift silently."""
    node = schema if node is None else node
    if "$ref" in node:
        return from_schema(schema, schema["$defs"][node["$ref"].rsplit("/", 1)[-1]])
    known = {"type", "properties", "required", "additionalProperties", "propertyNames", "items", "enum", "pattern",
             "minLength", "maxLength", "minItems", "maxItems", "maxProperties", "minimum", "maximum", "format",
             "description", "title", "examples", "default", "$defs", "$schema", "$id"}
    assert set(node) <= known, f"unknown schema keywords {set(node) - known}"
    if "enum" in node:
        return st.sampled_from(node["enum"])
    kind = node.get("type")
    if kind == "string":
        low, high = node.get("minLength", 0), min(node.get("maxLength", 80), 80)
        if "pattern" in node:
            return st.from_regex(node["pattern"], fullmatch=True).filter(lambda s: low <= len(s) <= node.get("maxLength", 10**9))
        return st.text(CHARACTERS, min_size=max(low, 1) if low else 0, max_size=high)
    if kind == "integer":
        return st.integers(node.get("minimum", -(10**6)), node.get("maximum", 10**6))
    if kind == "number":
        return st.floats(node.get("minimum", -1e6), node.get("maximum", 1e6), allow_nan=False, allow_infinity=False)
    if kind == "boolean":
        return st.booleans()
    if kind == "array":
        return st.lists(from_schema(schema, node["items"]), min_size=node.get("minItems", 0), max_size=min(node.get("maxItems", 3), 3))
    if kind == "object" and "properties" in node:
        required = {k: from_schema(schema, v) for k, v in node["properties"].items() if k in node.get("required", [])}
        optional = {k: from_schema(schema, v) for k, v in node["properties"].items() if k not in node.get("required", [])}
        return st.fixed_dictionaries(required, optional=optional)
    if kind == "object":
        keys = from_schema(schema, {"type": "string", **node.get("propertyNames", {})})
        return st.dictionaries(keys, from_schema(schema, node["additionalProperties"]), max_size=min(node.get("maxProperties", 2), 2))
    raise AssertionError(f"no strategy for {node}")


records = from_schema(record_schema()).map(_standalone)


class _Scripts(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.elements: list[str] = []

    def handle_starttag(self, tag, attrs) -> None:
        if tag in {"script", "iframe", "object", "embed", "img", "svg"} or any(k.startswith("on") for k, _ in attrs):
            self.elements.append(tag)


@SETTINGS
@given(records)
def test_any_valid_record_survives_every_stage(data: dict) -> None:
    # load: the YAML we write reads back as the same data
    text = dump_record(data)
    loaded, _, findings = parse_text(text, "generated.yaml")
    assert findings == [] and loaded == data
    # check: never raises, whatever the semantic findings
    run_checks([RawRecord("generated.yaml", loaded, text)])
    record = Record.model_validate(loaded)
    # render: both languages; record text never becomes markup
    for lang in routes.LANGS:
        pages = render.render_site_pages([record], lang, render.SiteLinks("https://github.com/errdex/errdex", "edit/main/"))
        page = pages[routes.page_path("error", record.id)]
        body = page.split("---", 2)[-1]
        parser = _Scripts()
        parser.feed(body)
        assert parser.elements == []
    # export: the record's JSON file round-trips to the same record
    files = api_files([record])
    exported = json.loads(files[f"errors/{record.id}.json"])
    assert Record.model_validate(exported["record"]) == record
    for alias in record.aliases:
        assert files[f"errors/{alias}.json"] == files[f"errors/{record.id}.json"]


@SETTINGS
@given(st.text(st.one_of(CHARACTERS, st.sampled_from(["\ud800", "\udc00", "\udfff"])), min_size=1, max_size=200))
def test_any_text_in_a_field_is_refused_or_shown_literally(text: str) -> None:
    """Any text at all in a record's explanation: validation names the character it refuses, or the page, its
    metadata, the feed and the API all carry the text as text."""
    from mkdocs.utils.meta import get_data
    from xml.etree import ElementTree

    base = json.loads((Path(__file__).parent / "fixtures" / "property_base.json").read_text(encoding="utf-8"))
    base["explanation"] = text
    findings = run_checks([RawRecord("generated.yaml", base, "")])
    codes = {f.code for f in findings}
    unsafe = chars.UNSAFE.search(text)
    hidden = chars.HIDDEN.search(text)
    if unsafe:
        assert "REC007" in codes and any(f"U+{ord(unsafe.group()):04X}" in f.message for f in findings)
    if hidden:
        assert "REC006" in codes
    if unsafe or hidden or not text.strip():
        return
    record = Record.model_validate(base)
    for lang in routes.LANGS:
        page = render.render_site_pages([record], lang, render.SiteLinks())[routes.page_path("error", record.id)]
        body, meta = get_data(page)
        assert meta.get("errdex_id") == record.id and meta.get("description")
        parser = _Scripts()
        parser.feed(body)
        assert parser.elements == []
        ElementTree.fromstring(atom_feed([record], "https://errdex.dev/", lang).encode())
    assert json.loads(api_files([record])[f"errors/{record.id}.json"])["record"]["explanation"] == text


@SETTINGS
@given(st.text(st.one_of(CHARACTERS, st.sampled_from(["\ud800", "\udc00", "\udfff"])), max_size=200))
def test_scrub_replaces_exactly_the_unsafe_characters(text: str) -> None:
    """scrub's fast path (printable ASCII is returned as it is) gives what replacing every unsafe character does."""
    assert chars.scrub(text) == chars.UNSAFE.sub(chars.REPLACEMENT, text)
    ascii_text = "".join(c for c in text if c < "\x80")
    assert chars.scrub(ascii_text) == chars.UNSAFE.sub(chars.REPLACEMENT, ascii_text)
