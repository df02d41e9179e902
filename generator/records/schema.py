"""The record JSON Schema (draft 2020-12), generated from the pydantic models in `model.py`.

`schema/error.schema.json` is this function's output, committed so that editors and other tools can use it;
`errdex schema --write` refreshes it and a test fails when it is stale.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

from pydantic.json_schema import GenerateJsonSchema

from .model import Record

SCHEMA_ID = "https://errdex.dev/schema/error.schema.json"
SCHEMA_PATH = Path("schema/error.schema.json")


class _RecordSchema(GenerateJsonSchema):
    """An optional field is written by leaving it out: `null` is not a value a record may hold."""

    def nullable_schema(self, schema: Any) -> dict[str, Any]:
        return self.generate_inner(schema["schema"])

    def dict_schema(self, schema: Any) -> dict[str, Any]:
        # pydantic writes a constrained key as patternProperties, which lets any other key through unchecked;
        # say it as propertyNames + additionalProperties, so that a bad key is an error here as in the model.
        result = super().dict_schema(schema)
        patterns = result.pop("patternProperties", None)
        if patterns:
            ((pattern, values),) = patterns.items()
            result["propertyNames"] = {**result.get("propertyNames", {}), "pattern": pattern}
            result["additionalProperties"] = values
        return result

    def default_schema(self, schema: Any) -> dict[str, Any]:
        result = super().default_schema(schema)
        if result.get("default", ...) in (None, [], {}):
            result.pop("default")
        return result


@lru_cache(maxsize=1)
def record_schema() -> dict[str, Any]:
    """Return the record schema as a dict (cached; treat it as read-only)."""
    body = Record.model_json_schema(schema_generator=_RecordSchema)
    body.pop("title", None)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "errdex error record",
        **body,
    }


def schema_text() -> str:
    """The schema file's exact text."""
    return json.dumps(record_schema(), indent=2, ensure_ascii=False, sort_keys=False) + "\n"
