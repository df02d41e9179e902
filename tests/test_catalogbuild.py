"""The catalog's build outputs that depend on its files alone (the browser's match and drift data) are kept in the
cache and read back by the next build of the same files (generator/site/catalogbuild.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.site import catalogbuild


@pytest.fixture
def inputs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    monkeypatch.setenv("ERRDEX_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("ERRDEX_NO_CACHE", raising=False)
    files = [tmp_path / "a.jsonl", tmp_path / "b.jsonl"]
    files[0].write_text('{"id": "a"}\n', encoding="utf-8")
    files[1].write_text('{"id": "b"}\n', encoding="utf-8")
    return files


def _maker(made: list[int]):
    def make() -> dict[str, bytes]:
        made.append(1)
        return {"catalog/match/index.json": b'{"shards": 2}', "catalog/match/m0.json": b"{}" * len(made)}
    return make


def test_the_same_files_are_made_once_and_read_back_byte_for_byte(inputs):
    made: list[int] = []
    first = catalogbuild.kept("match", inputs, _maker(made))
    again = catalogbuild.kept("match", inputs, _maker(made))
    assert made == [1] and again == first  # the second build read what the first kept
    assert catalogbuild.kept("drift", inputs, _maker(made)) != first and len(made) == 2  # another kind, its own


def test_a_changed_input_or_a_damaged_kept_file_is_made_again(inputs, tmp_path):
    made: list[int] = []
    catalogbuild.kept("match", inputs, _maker(made))
    inputs[1].write_text('{"id": "c"}\n', encoding="utf-8")  # the same size, other bytes
    catalogbuild.kept("match", inputs, _maker(made))
    assert len(made) == 2
    (kept,) = sorted((tmp_path / "cache" / "site").glob("match-*.bundle"), key=lambda p: p.stat().st_mtime)[-1:]
    data = bytearray(kept.read_bytes())
    data[-1] ^= 0xFF  # a section's byte: its sha256 no longer holds
    kept.write_bytes(bytes(data))
    again = catalogbuild.kept("match", inputs, _maker(made))
    assert len(made) == 3 and again["catalog/match/m0.json"] == b"{}" * 3  # made again, not read damaged
    assert len(list((tmp_path / "cache" / "site").glob("match-*.bundle"))) == catalogbuild.KEEP


def test_no_cache_always_makes(inputs, monkeypatch):
    monkeypatch.setenv("ERRDEX_NO_CACHE", "1")
    made: list[int] = []
    catalogbuild.kept("match", inputs, _maker(made))
    catalogbuild.kept("match", inputs, _maker(made))
    assert len(made) == 2
