"""SCH: the record against the JSON Schema, each violation mapped to a code and a position."""

from __future__ import annotations

from functools import lru_cache

import jsonschema_rs

from ..findings import Finding, make
from ..records.load import RawRecord, pointer_escape
from ..records.schema import record_schema

_CODE_BY_KIND = {
    "AdditionalProperties": "SCH001",
    "Required": "SCH002",
    "Type": "SCH003",
    "Enum": "SCH004",
    "Constant": "SCH004",
    "Pattern": "SCH005",
    "Format": "SCH005",
    "PropertyNames": "SCH005",
    "Minimum": "SCH006",
    "Maximum": "SCH006",
    "ExclusiveMinimum": "SCH006",
    "ExclusiveMaximum": "SCH006",
    "MinLength": "SCH007",
    "MaxLength": "SCH007",
    "MinItems": "SCH007",
    "MaxItems": "SCH007",
    "MinProperties": "SCH007",
    "MaxProperties": "SCH007",
}


@lru_cache(maxsize=1)
def _validator() -> jsonschema_rs.Draft202012Validator:
    return jsonschema_rs.Draft202012Validator(record_schema(), validate_formats=False)


def _pointer(parts) -> str:
    return "".join(f"/{pointer_escape(str(p))}" for p in parts)


def _brief(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_schema(raw: RawRecord) -> list[Finding]:
    """One finding per schema violation, positioned at the offending key or value."""
    findings = []
    for error in _validator().iter_errors(raw.data):
        kind = type(error.kind).__name__
        code = _CODE_BY_KIND.get(kind, "SCH005")  # any rule the schema may gain later: a value of the wrong form
        pointer = _pointer(error.instance_path)
        if kind == "AdditionalProperties":
            for key in error.kind.unexpected:
                child = f"{pointer}/{pointer_escape(key)}"
                findings.append(make(code, raw.path, child, f"unknown key {key!r}", raw.pos(child, key=True)))
            continue
        if kind == "Required":
            child = f"{pointer}/{pointer_escape(error.kind.property)}"
            where = pointer or "the record"
            findings.append(make(code, raw.path, child, f"missing required key {error.kind.property!r} in {where}", raw.pos(pointer, key=True)))
            continue
        hint = None
        if kind == "Type" and isinstance(error.instance, (int, float, bool)) and "string" in str(error.message):
            hint = f"YAML read this as {type(error.instance).__name__} {error.instance!r}: put the value in quotes to keep it as text"
        elif kind == "Type" and error.instance is None:
            hint = "leave the key out instead of writing null or an empty value"
        message = str(error.message)
        if len(message) > 200:
            message = f"value {_brief(error.instance)} violates the {kind} constraint"
        findings.append(make(code, raw.path, pointer, message, raw.pos(pointer), hint))
    return findings
