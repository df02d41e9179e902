"""The findings cache: a checked file's findings come back from the cache only for the same code, path, inputs and
bytes; anything else, or an entry that does not read back, is checked again."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from generator.cachedir import cached_findings, default_cache
from generator.checks.catalog import check_catalog
from generator.findings import make

CATALOG = Path(__file__).parent / "fixtures" / "catalog" / "valid"


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ERRDEX_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("ERRDEX_NO_CACHE", raising=False)
    return tmp_path / "cache"


def _counting(findings):
    calls = []

    def compute():
        calls.append(1)
        return iter(findings)

    return compute, calls


def test_the_same_file_is_checked_once(tmp_path: Path, cache: Path) -> None:
    target = tmp_path / "demo.jsonl"
    target.write_text('{"id": 1}\n', encoding="utf-8")
    finding = make("CAT002", str(target), "/id", "line 1: /id: 1 is not of type 'string'", (1, 1))
    compute, calls = _counting([finding])
    first = cached_findings("t", target, "[]", compute)
    second = cached_findings("t", target, "[]", compute)
    assert first == second == [finding] and len(calls) == 1 and default_cache() == cache
    assert len(list(cache.rglob("*.json"))) == 1


@pytest.mark.parametrize("change", ["bytes", "inputs", "kind", "path"])
def test_anything_that_decides_the_findings_is_another_key(tmp_path: Path, cache: Path, change: str) -> None:
    target = tmp_path / "demo.jsonl"
    target.write_text("{}\n", encoding="utf-8")
    compute, calls = _counting([])
    cached_findings("t", target, "[]", compute)
    kind, inputs = "t", "[]"
    if change == "bytes":
        target.write_text("{} \n", encoding="utf-8")
    elif change == "inputs":
        inputs = '["1.0"]'
    elif change == "kind":
        kind = "u"
    else:
        moved = tmp_path / "other.jsonl"
        shutil.copy(target, moved)
        target = moved
    cached_findings(kind, target, inputs, compute)
    assert len(calls) == 2


@pytest.mark.parametrize("junk", ["", "not json", "{}", "[{\"code\": \"CAT002\"}]", "[1]"])
def test_an_entry_that_does_not_read_back_is_checked_again(tmp_path: Path, cache: Path, junk: str) -> None:
    target = tmp_path / "demo.jsonl"
    target.write_text("{}\n", encoding="utf-8")
    finding = make("CAT001", str(target), "", "line 1 is not JSON", (1, 1))
    compute, calls = _counting([finding])
    cached_findings("t", target, "[]", compute)
    (entry,) = cache.rglob("*.json")
    entry.write_text(junk, encoding="utf-8")
    assert cached_findings("t", target, "[]", compute) == [finding] and len(calls) == 2
    assert json.loads(entry.read_text(encoding="utf-8"))[0]["code"] == "CAT001"  # and written anew


def test_no_cache_when_asked(tmp_path: Path, cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ERRDEX_NO_CACHE", "1")
    target = tmp_path / "demo.jsonl"
    target.write_text("{}\n", encoding="utf-8")
    compute, calls = _counting([])
    cached_findings("t", target, "[]", compute)
    cached_findings("t", target, "[]", compute)
    assert len(calls) == 2 and not cache.exists()


def test_a_catalog_checked_from_the_cache_has_the_same_findings(tmp_path: Path, cache: Path) -> None:
    folder = tmp_path / "catalog"
    shutil.copytree(CATALOG, folder)
    assert check_catalog(folder) == [] and list(cache.rglob("*.json"))
    project = next(folder.glob("*.jsonl"))
    broken = project.read_text(encoding="utf-8").replace('"tier":"user"', '"tier":"nobody"', 1)
    assert broken != project.read_text(encoding="utf-8")
    project.write_text(broken, encoding="utf-8")
    first = check_catalog(folder)
    assert [f.code for f in first] == ["CAT002"] and check_catalog(folder) == first


def test_a_record_is_checked_again_only_when_its_bytes_place_or_day_change(tmp_path: Path, cache: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import datetime as dt

    from generator import checks
    from generator.checks import record as record_checks
    from generator.checks.pipeline import check

    root = tmp_path / "errors"
    shutil.copytree(Path(__file__).parent / "fixtures" / "dataset", root)
    checked: list[str] = []
    monkeypatch.setattr(checks, "RECORD_CHECKS", [*checks.RECORD_CHECKS, lambda raw: checked.append(raw.path) or []])
    first = check([root], root).findings
    count = len(checked)
    assert count > 1 and check([root], root).findings == first and len(checked) == count  # all from the cache
    target = next(root.rglob("request-timeout.yaml"))
    target.write_text(target.read_text(encoding="utf-8") + "# one more line\n", encoding="utf-8")
    check([root], root)
    assert checked[count:] == [str(target)]  # only the record that changed
    monkeypatch.setattr(record_checks, "today", lambda: dt.date.today() + dt.timedelta(days=400))
    check([root], root)
    assert len(checked) == 2 * count + 1  # another day: every date is judged again


def test_a_file_is_known_by_its_bytes_and_read_again_only_after_a_write(tmp_path: Path, cache: Path,
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """file_digest remembers a file's sha256 under its stat: the memo is what is read while the file is not
    written, a write is seen even when the modification time is set back to what it was (the change time moves),
    a memo that is not a digest is made again, and a file written a moment ago is not remembered at all."""
    import hashlib
    import os
    import time

    from generator import cachedir
    from generator.cachedir import file_digest

    target = tmp_path / "demo.jsonl"
    target.write_bytes(b'{"a": 1}\n')
    assert file_digest(target) == hashlib.sha256(b'{"a": 1}\n').hexdigest()
    assert not (cache / "findings" / "stat").exists()  # just written: read again each time
    monkeypatch.setattr(cachedir, "SETTLED_NS", 0)
    assert file_digest(target) == hashlib.sha256(b'{"a": 1}\n').hexdigest()
    (memo,) = (cache / "findings" / "stat").iterdir()
    memo.write_text("0" * 64, encoding="ascii")
    assert file_digest(target) == "0" * 64  # the memo, not the file
    before = target.stat()
    time.sleep(0.05)  # past the kernel's tick, so that the write moves the change time
    target.write_bytes(b'{"a": 2}\n')  # the same size, and the same modification time set back
    os.utime(target, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert file_digest(target) == hashlib.sha256(b'{"a": 2}\n').hexdigest()
    for memo in (cache / "findings" / "stat").iterdir():
        memo.write_text("not a digest", encoding="ascii")
    assert file_digest(target) == hashlib.sha256(b'{"a": 2}\n').hexdigest()
    assert file_digest(tmp_path / "missing.jsonl") is None
