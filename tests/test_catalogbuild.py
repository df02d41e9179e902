"""The catalog's build outputs that depend on its files alone (the browser's match and drift data) are kept in the
cache and read back by the next build of the same files; the catalog's whole share of a build is kept under the hash
of its inputs and read back, the same files and pages, by the next build of the same inputs
(generator/site/catalogbuild.py)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import DATASET
from generator.checks.catalog import CatalogRefused
from generator.checks.pipeline import check
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


def _share(share) -> dict:
    """Everything a build takes from the catalog's share, as plain data."""
    out = {"api": share.api_files(), "meta": share.meta}
    for lang in ("en", "zh"):
        out[lang] = (share.html_pages(lang), share.message_pages(lang), share.source_pages(lang))
    return out


def test_the_whole_share_is_kept_and_read_back_until_an_input_changes(tmp_path, monkeypatch):
    """A second build of the same catalog for the same records reads the kept share (the same files and pages) and
    loads no catalog; a record's title (what the pages say of it) or a catalog file changed, or a damaged kept file,
    makes it again; a change to a record that the catalog's pages do not show does not."""
    monkeypatch.setenv("ERRDEX_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("ERRDEX_NO_CACHE", raising=False)
    folder = tmp_path / "catalog"
    shutil.copytree(DATASET.parent / "catalog", folder, ignore=shutil.ignore_patterns("valid", "invalid"))
    records = check([DATASET], DATASET).records
    args = ("/", "https://example.org/repo", ("en", "zh"))

    def share(records=records):
        found = catalogbuild.open_share(folder, records, *args)
        try:
            return type(found), _share(found)
        finally:
            found.keep()
            found.close()

    kind, made = share()
    assert kind is catalogbuild.CatalogJobs and made["api"] and made["en"][1] and made["meta"]["page_urls"]
    monkeypatch.setattr(catalogbuild.CatalogSite, "load", lambda *a: pytest.fail("a kept share loads no catalog"))
    assert share() == (catalogbuild.KeptCatalog, made)
    other = [r.model_copy(update={"explanation": r.explanation + " More."}) for r in records]
    assert share(other)[0] is catalogbuild.KeptCatalog  # not a fact the catalog's pages show
    monkeypatch.undo()
    monkeypatch.setenv("ERRDEX_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("ERRDEX_NO_CACHE", raising=False)
    renamed = [records[0].model_copy(update={"error": records[0].error.model_copy(update={"message": "Renamed"})})] + records[1:]
    assert share(renamed)[0] is catalogbuild.CatalogJobs
    kept = sorted((tmp_path / "cache" / "site").glob("catalog-*.bundle"))
    assert len(kept) == catalogbuild.KEEP
    for path in kept:
        data = bytearray(path.read_bytes())
        data[-1] ^= 0xFF  # a section's byte: its sha256 no longer holds
        path.write_bytes(bytes(data))
    assert share() == (catalogbuild.CatalogJobs, made)  # made again, not read damaged
    (folder / "links.json").write_text("{}", encoding="utf-8")
    assert share()[0] is catalogbuild.CatalogJobs
    # the same bytes through a link, which the checks refuse: a kept share of the regular file is not read for it
    project = next(folder.glob("*.jsonl"))
    shutil.move(project, tmp_path / "elsewhere.jsonl")
    project.symlink_to(tmp_path / "elsewhere.jsonl")
    with pytest.raises(CatalogRefused):
        catalogbuild.open_share(folder, records, *args)
