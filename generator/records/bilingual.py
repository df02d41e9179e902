"""The bilingual rule, in one place: which fields have a Chinese twin, where they stand, and how to walk them.

Every human-readable text field `K` of the record's models has an optional twin `K_zh` of the same shape (see
generator/records/model.py). The twins are found from the models themselves (a field named `K_zh` beside `K`), so a
new translatable field needs nothing but the pair in the model. The translation checks (checks/translation.py),
the translation marks (checks/marks.py), the API's coverage counts (api/export.py) and the pages (site/render.py) all
walk the fields through this module.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from . import model
from .load import pointer_escape

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
    """The English fields of `cls` that have a `_zh` twin."""
    return [name[:-3] for name in cls.model_fields if name.endswith("_zh")]


def containers(data: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], type[BaseModel]]]:
    """(JSON pointer, object, model) for each object of a record as data (parsed YAML or a dump) that holds
    translatable fields; objects of the wrong shape are skipped (the schema check reports them)."""
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


def twins(data: dict[str, Any]) -> Iterator[tuple[str, str, Any, Any]]:
    """(JSON pointer of the object, English field name, English value, Chinese value) for every translatable
    field of a record as data; either value may be None."""
    for where, container, cls in containers(data):
        for name in translated_fields(cls):
            yield where, name, container.get(name), container.get(f"{name}_zh")


def leaves(en: Any, zh: Any, pointer: str) -> Iterator[tuple[str, str, str] | str]:
    """(pointer, english, chinese) for each text pair under one field; a bare pointer where the shapes differ."""
    if isinstance(en, str) and isinstance(zh, str):
        yield pointer, en, zh
    elif isinstance(en, list) and isinstance(zh, list):
        if len(en) != len(zh):
            yield pointer
            return
        for i, (a, b) in enumerate(zip(en, zh)):
            yield from leaves(a, b, f"{pointer}/{i}")
    elif isinstance(en, dict) and isinstance(zh, dict):
        if sorted(en) != sorted(zh):
            yield pointer
            return
        for key in sorted(en):
            yield from leaves(en[key], zh[key], f"{pointer}/{pointer_escape(key)}")
    # Other shapes are the schema's to report.


def text_pairs(data: dict[str, Any]) -> Iterator[tuple[str, str, str, str]]:
    """(english pointer, chinese pointer, english, chinese) for every translated text of a record."""
    for where, name, en, zh in twins(data):
        if en is None or zh is None:
            continue
        zh_ptr = f"{where}/{name}_zh"
        for leaf in leaves(en, zh, zh_ptr):
            if not isinstance(leaf, str):
                pointer, en_text, zh_text = leaf
                yield f"{where}/{name}{pointer[len(zh_ptr):]}", pointer, en_text, zh_text


def translation_slots(data: dict[str, Any]) -> tuple[int, int]:
    """(English fields that have text, how many of them have their `_zh` twin) in one record as data."""
    total = translated = 0
    for _, _, en, zh in twins(data):
        if en in (None, "", [], {}):
            continue
        total += 1
        translated += zh is not None
    return total, translated


def in_language(obj: BaseModel, name: str, lang: str, index: int | str | None = None) -> tuple[Any, bool] | None:
    """Field `name` of a model object (item `index` of it, for a list or a mapping) as a `lang` page shows it:
    (value, fallback), where fallback is True when a Chinese page has to show the English. None when the
    English is absent."""
    en, zh = getattr(obj, name), getattr(obj, f"{name}_zh")
    if en is None:
        return None
    if index is not None:
        en = en[index]
        # A translation list of the wrong length (a TRN002 finding) shows the English, marked, not a crash.
        try:
            zh = zh[index] if zh is not None else None
        except (IndexError, KeyError):
            zh = None
    if lang == "zh":
        return (zh, False) if zh is not None else (en, True)
    return en, False
