"""The record format's fixed words and shapes that readers need without its models: a record id's shape and the
severities, in order. generator/records/model.py builds the models from them; the tools that only read compiled
knowledge (errdex match, the MCP server) import this, not pydantic."""

from __future__ import annotations

from typing import Literal, get_args

ID_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*(?:/[a-z0-9]+(?:-[a-z0-9]+)*){0,3}$"

Severity = Literal["critical", "error", "warning", "info"]
SEVERITIES: tuple[str, ...] = get_args(Severity)
