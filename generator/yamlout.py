"""Write records as YAML the way a person would: schema key order, block scalars for multi-line text.

Every YAML file errdex writes (`import`, `new`, `mark-translated`) comes from this emitter: whole records
(`dump_record`), single `key: value` lines inside a commented template (`mapping_lines`) and text in comments
(`comment_text`). No value, whatever it holds, can add a key, a list item, a document or a tag.

Plain YAML that errdex reads (mkdocs.yml, the catalog's projects.yaml) is read with `safe_load`, records with
generator.records.load's loader on the same `SafeLoader`.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from . import chars

# libyaml's safe loader when PyYAML was built with it (the same documents, about ten times faster than the
# pure-Python one: projects.yaml took 0.5 s), else PyYAML's own
SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
YAMLError = yaml.YAMLError


def safe_load(text: str) -> Any:
    """The data of a plain YAML document, as yaml.safe_load reads it."""
    return yaml.load(text, Loader=SafeLoader)


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


# What must never stand raw on a line we write: line breaks of any kind (YAML 1.1 also breaks at NEL, U+2028 and
# U+2029), the characters above, and the invisible and direction-changing ones (a line that shows one text
# and holds another).
_ONE_LINE_UNSAFE = re.compile(f"{_UNSAFE.pattern}|{chars.HIDDEN.pattern}|[\n\r\x85\u2028\u2029]")
_STR_TAG = "tag:yaml.org,2002:str"


def _scalar(value: str, style: str | None) -> yaml.ScalarNode:
    # Double-quoted is the one style that escapes every character, so the scalar stays on its line.
    return yaml.ScalarNode(_STR_TAG, value, style='"' if _ONE_LINE_UNSAFE.search(value) else style)


def _serialize(node: yaml.Node, escape_all: bool) -> str:
    # No line width: a long value is never folded onto a second line. Without Unicode, double-quoted text
    # escapes every non-ASCII character (so an invisible one shows as `\u200b`).
    return yaml.serialize(node, Dumper=_Dumper, allow_unicode=not escape_all, width=float("inf"))


def mapping_lines(items: list[tuple[str, str]], style: str | None = None) -> str:
    """`key: value` lines as the YAML emitter writes them (keys and values are strings): one per item (a key of
    128 characters or more takes two, `? key` and `: value`), and whatever a key or value holds, it reads back as
    exactly that string. `style` ("'" for the template's quoted examples) is a preference: the emitter quotes
    where it must, and text with a line break, a control or an invisible character is always double-quoted."""
    node = yaml.MappingNode("tag:yaml.org,2002:map", [(_scalar(k, None), _scalar(v, style)) for k, v in items])
    return _serialize(node, any(chars.HIDDEN.search(k + v) for k, v in items))


def comment_text(value: str) -> str:
    """`value` for a `#` comment: as it is when it holds no line break, control or hidden character, else as a
    double-quoted YAML scalar with those escaped, so that the comment cannot end early or hide text."""
    if not _ONE_LINE_UNSAFE.search(value):
        return value
    return _serialize(yaml.ScalarNode(_STR_TAG, value, style='"'), True).rstrip("\n")


def schema_ref(record_id: str) -> str:
    """Relative path from data/errors/<id>.yaml to schema/error.schema.json."""
    return "../" * (record_id.count("/") + 2) + "schema/error.schema.json"


def dump_record(data: dict[str, Any]) -> str:
    """YAML text of a record (keys in the order given), headed by the editor modeline."""
    body = yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=110, default_flow_style=False)
    return MODELINE.format(schema=schema_ref(str(data.get("id", "")))) + body
