"""Write records as YAML the way a person would: schema key order, block scalars for multi-line text."""

from __future__ import annotations

import re
from typing import Any

import yaml

from . import chars

MODELINE = "# yaml-language-server: $schema={schema}\n"


class _Dumper(yaml.SafeDumper):
    pass


# Characters that YAML 1.1 reads as line breaks or cannot show in a plain or block scalar (the unsafe class,
# plus the line and paragraph separators and the byte-order mark): such text is written double-quoted with
# escapes, so that it reads back exactly as it was (and then meets REC006/REC007).
_UNSAFE = re.compile(f"{chars.UNSAFE.pattern}|[\u2028\u2029\ufeff]")


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    if _UNSAFE.search(value):
        style = '"'
    elif "\n" in value:
        style = "|"
    else:
        style = None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def schema_ref(record_id: str) -> str:
    """Relative path from data/errors/<id>.yaml to schema/error.schema.json."""
    return "../" * (record_id.count("/") + 2) + "schema/error.schema.json"


def dump_record(data: dict[str, Any]) -> str:
    """YAML text of a record (keys in the order given), headed by the editor modeline."""
    body = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110, default_flow_style=False)
    return MODELINE.format(schema=schema_ref(str(data.get("id", "")))) + body
