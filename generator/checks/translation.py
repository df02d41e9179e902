"""TRN: each `<field>_zh` mirrors its English field, holds real Chinese, and is not a copy.

A missing translation is a warning (imported records often lack Chinese); `--strict` makes it fail.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from .. import model
from ..findings import Finding, make
from ..load import RawRecord, pointer_escape
from . import record_check

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]")

# Where translatable objects stand in a record ('*' is any list index). Provenance.origin keeps a foreign
# source's own fields as they were, so it is not held to our translation rule.
TRANSLATABLE: dict[str, type[BaseModel]] = {
    "": model.Record,
    "/error": model.ErrorInfo,
    "/example_fix": model.ExampleFix,
    "/dead_ends/*": model.DeadEnd,
    "/workarounds/*": model.Workaround,
    "/versions/*": model.Version,
    "/official_docs": model.OfficialDocs,
}


def translated_fields(cls: type[BaseModel]) -> list[str]:
    """The English fields of `cls` that have a `_zh` sibling."""
    return [name[:-3] for name in cls.model_fields if name.endswith("_zh")]


def is_chinese(text: str) -> bool:
    return _CJK.search(text) is not None


def _containers(data: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], type[BaseModel]]]:
    for where, cls in TRANSLATABLE.items():
        if where.endswith("/*"):
            items = data.get(where[1:-2])
            if isinstance(items, list):
                for i, item in enumerate(items):
                    if isinstance(item, dict):
                        yield f"{where[:-2]}/{i}", item, cls
        elif not where:
            yield "", data, cls
        elif isinstance(data.get(where[1:]), dict):
            yield where, data[where[1:]], cls


def _leaves(en: Any, zh: Any, pointer: str) -> Iterator[tuple[str, str, str] | str]:
    """(pointer, english, chinese) for each text pair; a bare pointer where the shapes differ."""
    if isinstance(en, str) and isinstance(zh, str):
        yield pointer, en, zh
    elif isinstance(en, list) and isinstance(zh, list):
        if len(en) != len(zh):
            yield pointer
            return
        for i, (a, b) in enumerate(zip(en, zh)):
            yield from _leaves(a, b, f"{pointer}/{i}")
    elif isinstance(en, dict) and isinstance(zh, dict):
        if sorted(en) != sorted(zh):
            yield pointer
            return
        for key in sorted(en):
            yield from _leaves(en[key], zh[key], f"{pointer}/{pointer_escape(key)}")
    # Other shapes are the schema's to report.


@record_check
def translations(raw: RawRecord) -> Iterator[Finding]:
    if not isinstance(raw.data, dict):
        return
    for where, container, cls in _containers(raw.data):
        for field in translated_fields(cls):
            en, zh = container.get(field), container.get(f"{field}_zh")
            en_ptr, zh_ptr = f"{where}/{field}", f"{where}/{field}_zh"
            if en is None and zh is None:
                continue
            if en is None:
                yield make("TRN002", raw.path, zh_ptr, f"{field}_zh has no English {field} beside it", raw.pos(zh_ptr, key=True))
                continue
            if zh is None:
                if en not in ([], {}):
                    yield make("TRN001", raw.path, zh_ptr, f"{field} has no Chinese translation", raw.pos(en_ptr, key=True))
                continue
            for leaf in _leaves(en, zh, zh_ptr):
                if isinstance(leaf, str):
                    yield make("TRN002", raw.path, leaf, f"{field}_zh does not have the shape of {field} (list length or keys differ)", raw.pos(leaf))
                    continue
                pointer, en_text, zh_text = leaf
                if zh_text.strip() == en_text.strip():
                    yield make("TRN004", raw.path, pointer, "the Chinese text is identical to the English", raw.pos(pointer))
                elif not is_chinese(zh_text):
                    yield make("TRN003", raw.path, pointer, "the Chinese text contains no Chinese characters", raw.pos(pointer))


def fingerprint(text: str) -> str:
    """A short hash of an English text, recorded when its translation is reviewed."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


def text_pairs(data: dict[str, Any]) -> Iterator[tuple[str, str, str, str]]:
    """(english pointer, chinese pointer, english, chinese) for every translated text of a record."""
    for where, container, cls in _containers(data):
        for field in translated_fields(cls):
            en, zh = container.get(field), container.get(f"{field}_zh")
            if en is None or zh is None:
                continue
            zh_ptr = f"{where}/{field}_zh"
            for leaf in _leaves(en, zh, zh_ptr):
                if not isinstance(leaf, str):
                    pointer, en_text, zh_text = leaf
                    yield f"{where}/{field}{pointer[len(zh_ptr):]}", pointer, en_text, zh_text


@record_check
def fresh_translations(raw: RawRecord) -> Iterator[Finding]:
    marks = raw.data.get("zh_fingerprints") if isinstance(raw.data, dict) else None
    if not isinstance(marks, dict):
        return
    for en_ptr, zh_ptr, en_text, _ in text_pairs(raw.data):
        mark = marks.get(en_ptr)
        if isinstance(mark, str) and mark != fingerprint(en_text):
            yield make("TRN005", raw.path, zh_ptr, f"translated from an older English text: {en_ptr} changed after the translation was reviewed", raw.pos(zh_ptr))
