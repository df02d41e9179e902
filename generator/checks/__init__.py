"""Checks: the JSON Schema first, then a registry of coded semantic checks.

Every check reads the raw data defensively (a value of the wrong shape is skipped here: the schema check
already reported it), so one run reports every finding of every file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from ..cachedir import cached_findings
from ..findings import Finding, capped
from ..records.load import RawRecord

RecordCheck = Callable[[RawRecord], Iterable[Finding]]
DatasetCheck = Callable[[list[RawRecord]], Iterable[Finding]]

RECORD_CHECKS: list[RecordCheck] = []
DATASET_CHECKS: list[DatasetCheck] = []


def record_check(func: RecordCheck) -> RecordCheck:
    """Register a check that looks at one record at a time."""
    RECORD_CHECKS.append(func)
    return func


def dataset_check(func: DatasetCheck) -> DatasetCheck:
    """Register a check that looks across all records."""
    DATASET_CHECKS.append(func)
    return func


def get(data: Any, *keys: str | int, kind: type | tuple[type, ...] = object) -> Any:
    """Follow `keys` into raw data; None when a step is missing or the value is not of `kind`."""
    for key in keys:
        if isinstance(key, int):
            if not isinstance(data, list) or not 0 <= key < len(data):
                return None
        elif not isinstance(data, dict) or key not in data:
            return None
        data = data[key]
    if kind is not object and (isinstance(data, bool) and kind in (int, float, (int, float)) or not isinstance(data, kind)):
        return None
    return data


def strings(data: Any, *keys: str) -> Iterator[tuple[int, str]]:
    """(index, text) for every string in the list at `keys`."""
    items = get(data, *keys, kind=list) or []
    for i, item in enumerate(items):
        if isinstance(item, str):
            yield i, item


def check_each(records: list[RawRecord]) -> list[Finding]:
    """Findings that each record earns on its own: the schema, then every per-record check."""
    from . import crossrecord, record, regex, schema, source, translation  # noqa: F401  (registers the checks)

    findings: list[Finding] = []
    for raw in records:
        if raw.text:  # what decides its findings: its bytes, where it stands, and the day (no date in the future)
            inputs = json.dumps([raw.path, raw.id_from_path, raw.file, record.today().isoformat()])
            findings.extend(cached_findings("record", raw.path, inputs, lambda r=raw: _each(r, schema), raw.text.encode("utf-8", "surrogateescape")))
        else:
            findings.extend(_each(raw, schema))
    return findings


def _each(raw: RawRecord, schema) -> list[Finding]:
    mine = list(schema.check_schema(raw))
    for check in RECORD_CHECKS:
        mine.extend(check(raw))
    return capped(mine)


def check_across(records: list[RawRecord]) -> list[Finding]:
    """Findings across the dataset (ids, references, supersede chains)."""
    from . import crossrecord  # noqa: F401

    findings: list[Finding] = []
    for check in DATASET_CHECKS:
        findings.extend(check(records))
    return findings


def run_checks(records: list[RawRecord]) -> list[Finding]:
    """All findings for these records: schema, per-record checks, then dataset checks."""
    return check_each(records) + check_across(records)
