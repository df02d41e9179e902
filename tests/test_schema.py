"""One source of truth: the committed schema is generated from the models, and both agree on records."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from pydantic import ValidationError

from generator.records.model import Record
from generator.records.schema import schema_text

SCHEMA_FILE = Path(__file__).parent.parent / "schema/error.schema.json"
MINIMAL = Path(__file__).parent / "fixtures/valid/demo/minimal.yaml"


def test_committed_schema_is_current() -> None:
    assert SCHEMA_FILE.read_text(encoding="utf-8") == schema_text(), "run `errdex schema --write` and commit"


def test_schema_is_valid_draft_2020_12() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_schema_is_strict_everywhere() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    objects = [schema] + list(schema["$defs"].values())
    assert all(obj.get("additionalProperties") is False for obj in objects)
    assert "null" not in SCHEMA_FILE.read_text(encoding="utf-8").replace("nullable", "")


def test_every_translatable_field_has_its_zh_twin_in_the_schema() -> None:
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    for obj in [schema] + list(schema["$defs"].values()):
        for name in obj.get("properties", {}):
            if name.endswith("_zh"):
                assert name[:-3] in obj["properties"]


@pytest.mark.parametrize(
    "change",
    [
        {"soluton": ["typo"]},
        {"error": {"severity": "fatal"}},
        {"provenance": {"confidence": 1.5}},
        {"id": "Demo/Upper"},
        {"official_docs": {"url": "javascript:alert(1)"}},
    ],
)
def test_models_and_schema_reject_the_same_records(change) -> None:
    import yaml

    data = yaml.safe_load(MINIMAL.read_text(encoding="utf-8"))
    for key, value in change.items():
        if isinstance(value, dict) and isinstance(data.get(key), dict):
            data[key] = {**data[key], **value}
        else:
            data[key] = value
    schema = json.loads(SCHEMA_FILE.read_text(encoding="utf-8"))
    assert list(jsonschema.Draft202012Validator(schema).iter_errors(data))
    with pytest.raises(ValidationError):
        Record.model_validate(data)
