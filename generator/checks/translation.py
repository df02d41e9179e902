"""TRN: each `<field>_zh` mirrors its English field, holds real Chinese, and is not a copy.

Which fields have twins, and the walk over them, are generator/records/bilingual.py's.

A missing translation is a warning (imported records often lack Chinese); `--strict` makes it fail.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator

from ..records.bilingual import leaves, text_pairs, twins
from ..findings import Finding, make
from ..records.load import RawRecord
from . import record_check

_CJK = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ffff]")


def is_chinese(text: str) -> bool:
    return _CJK.search(text) is not None


@record_check
def translations(raw: RawRecord) -> Iterator[Finding]:
    if not isinstance(raw.data, dict):
        return
    for where, field, en, zh in twins(raw.data):
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
        for leaf in leaves(en, zh, zh_ptr):
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


@record_check
def fresh_translations(raw: RawRecord) -> Iterator[Finding]:
    marks = raw.data.get("zh_fingerprints") if isinstance(raw.data, dict) else None
    if not isinstance(marks, dict):
        return
    for en_ptr, zh_ptr, en_text, _ in text_pairs(raw.data):
        mark = marks.get(en_ptr)
        if isinstance(mark, str) and mark != fingerprint(en_text):
            yield make("TRN005", raw.path, zh_ptr, f"translated from an older English text: {en_ptr} changed after the translation was reviewed", raw.pos(zh_ptr))
