"""The knowledge bundle (generator/bundle/: the format, compile.py, read.py): made from checked records and the
catalog, the same bytes for the same data, read lazily with the same answers as the data loaded whole, and never
read when it is not the bundle of the data in use (stale, foreign, damaged or of another format)."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest

from generator import bundle
from generator.bundle import checkout, compile as bundlecompile, read as bundleread
from generator.bundle.answers import match_items, ranked_items
from generator.catalog.reader import load_catalog
from generator.catalog.query import traceback_fit
from generator.bundle.knowledge import Knowledge
from generator.bundle.apidata import from_records

FIXTURES = Path(__file__).parent / "fixtures"
LOG = ("INFO start\n"
       "RuntimeError: Scheduler queue is full (12 waiting)\n"
       "servekit.CacheOOMError: Cannot allocate 512 KV cache blocks: out of GPU memory\n"
       'Traceback (most recent call last):\n'
       '  File "/opt/venv/lib/python3.12/site-packages/servekit/sched.py", line 88, in admit\n'
       '    raise RuntimeError(f"Scheduler queue is full ({len(self.waiting)} waiting)")\n'
       'RuntimeError: Scheduler queue is full (3 waiting)\n')


@pytest.fixture
def data(tmp_path: Path) -> Path:
    """A copy of the fixture dataset's records (data/errors) with the fixture catalog beside them."""
    shutil.copytree(FIXTURES / "dataset", tmp_path / "data" / "errors")
    catalog = tmp_path / "data" / "catalog"
    catalog.mkdir()
    for name in ("demo.jsonl", "projects.yaml", "releases.json"):
        shutil.copy(FIXTURES / "catalog" / name, catalog / name)
    return tmp_path / "data" / "errors"


def _open(data: Path, cache: Path, **kw):
    log = io.StringIO()
    found = bundleread.open_knowledge(data, log, cache=cache, **kw)
    assert not isinstance(found, str), found + log.getvalue()
    return found


def test_the_same_data_makes_the_same_bytes(data, tmp_path):
    settings = {"site_url": "https://errdex.dev/"}
    first = bundlecompile.make(data, data.parent / "catalog", settings, io.StringIO())
    again = bundlecompile.make(data, data.parent / "catalog", settings, io.StringIO())
    assert isinstance(first, bytes) and first == again
    path = tmp_path / "k.bundle"
    path.write_bytes(first)
    summary = bundle.Bundle(path).summary
    assert summary["records"] == len(list(data.rglob("*.yaml"))) and summary["catalog_entries"] == 4


def test_answers_from_the_bundle_are_the_answers_from_the_data_loaded_whole(data, tmp_path):
    site_url = checkout.mkdocs_settings(data).get("site_url")  # the settings the bundle was made with
    whole = Knowledge(from_records(data, site_url), load_catalog(data.parent / "catalog"))
    for engine in ("re2", "auto"):
        k = _open(data, tmp_path / "cache", engine=engine)
        assert k.api.documents == whole.api.documents and k.api.names == whole.api.names  # by the bundle's ids
        assert match_items(k, io.BytesIO(LOG.encode()), {}) == match_items(whole, io.BytesIO(LOG.encode()), {})
        fits = traceback_fit(k.catalog, LOG.encode(), k.site_index)
        assert fits == traceback_fit(whole.catalog, LOG.encode()) and fits[0]["releases"]
        # every entry decoded from the bundle is the entry the catalog reader gives
        for slug, project in whole.catalog.projects.items():
            lazy = k.catalog.projects[slug]
            assert lazy.count() == len(project.entries) and lazy.releases == project.releases
            for entry in project.entries:
                got = lazy.entry(entry.id)
                assert (got.data, got.sites, got.ranges) == (entry.data, entry.sites, entry.ranges)
            assert [e.id for e in lazy.entries] == [e.id for e in project.entries]
            assert lazy.entry(project.entries[0].id + "x") is None


def test_the_answers_shown_are_those_ranks_of_the_whole_list_and_only_their_entries_are_read(data, tmp_path, monkeypatch):
    k = _open(data, tmp_path / "cache")
    log = LOG + "AssertionError: block table corrupted at slot 7\nWARNING Tokenizer t5-small is deprecated and will be removed\n"
    everything, lines, size = match_items(k, io.BytesIO(log.encode()), {})
    catalog = [i for i, item in enumerate(everything) if item["type"] == "catalog"]
    assert len(everything) >= 3 and catalog
    (project,) = k.catalog.projects.values()
    read: list[str] = []
    entry = type(project).entry
    monkeypatch.setattr(type(project), "entry", lambda self, entry_id: read.append(entry_id) or entry(self, entry_id))
    for shown in (slice(0, 1), slice(1, 3), slice(catalog[0], catalog[0] + 1), slice(len(everything), None)):
        read.clear()
        items, found, *rest = ranked_items(k, io.BytesIO(log.encode()), {}, shown=shown)
        assert items == everything[shown] and found == len(everything) and rest == [lines, size]
        expected = [i["id"] for i in items if i["type"] == "catalog"] + [c["id"] for i in items for c in i.get("catalog", []) if i["type"] == "record"]
        assert sorted(read) == sorted(expected)  # no entry is read for an answer not shown (no release is wanted)


def test_record_ids_that_do_not_fit_the_documents_are_refused(data, tmp_path):
    from generator.bundle.apidata import FILES, MANIFEST, SourceError, from_files

    k = _open(data, tmp_path / "cache")
    b = bundleread.open_bundle(data, io.StringIO(), tmp_path / "cache")
    files = {name: b.section(f"api/{name}") for name in (MANIFEST, *FILES)}
    ids = b.json("api/ids")
    assert from_files(files, "x", None, ids).documents == k.api.documents == from_files(files, "x").documents
    for wrong in (ids[:-1], ids + ["demo/extra"], [None] * len(ids)):
        with pytest.raises(SourceError, match="record ids for"):
            from_files(files, "x", None, wrong)


def test_without_the_catalog_only_the_records_answer(data, tmp_path):
    k = _open(data, tmp_path / "cache", catalog=False)
    items, _, _ = match_items(k, io.BytesIO(LOG.encode()), {})
    assert items and {i["type"] for i in items} == {"record"} and not k.catalog.projects


def test_a_change_to_a_record_or_the_catalog_makes_a_new_bundle(data, tmp_path):
    cache = tmp_path / "cache"
    first = _open(data, cache)
    before = sorted((cache / "bundles").glob("*.bundle"))
    catalog = data.parent / "catalog" / "demo.jsonl"
    lines = catalog.read_text(encoding="utf-8").splitlines(keepends=True)
    catalog.write_text("".join(lines[1:]), encoding="utf-8")  # an entry less
    second = _open(data, cache)
    after = sorted((cache / "bundles").glob("*.bundle"))
    assert len(after) == 2 and before[0] in after
    assert sum(p.count() for p in second.catalog.projects.values()) == sum(p.count() for p in first.catalog.projects.values()) - 1
    record = next(data.rglob("*.yaml"))
    record.write_text(record.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    _open(data, cache)
    assert len(list((cache / "bundles").glob("*.bundle"))) == bundle.KEEP  # the oldest is let go


def test_the_records_files_are_those_rglob_finds_in_its_order(tmp_path):
    """yaml_files lists what `sorted(root.rglob("*.yaml"))` with `is_file()` does: nested folders, names that sort
    differently as text and as parts (`a-b/` and `a/`), dot names, a linked file (followed) and a linked folder (not
    entered), a dangling link and other suffixes (left out)."""
    root = tmp_path / "errors"
    for name in ("a/x.yaml", "a-b/x.yaml", "a/b/c/deep.yaml", "a/.hidden.yaml", "z.yaml", "a/.yaml", "a/x.yml",
                 "a/x.yaml.bak", "a/X.YAML", "outside/o.yaml"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("id: x\n", encoding="utf-8")
    (root / "a" / "b" / "dir.yaml").mkdir()
    (root / "outside").rename(tmp_path / "outside")
    (root / "linked").symlink_to(tmp_path / "outside", target_is_directory=True)
    (root / "a" / "link.yaml").symlink_to(root / "z.yaml")
    (root / "a" / "dangling.yaml").symlink_to(root / "nowhere.yaml")
    expected = [p for p in sorted(root.rglob("*.yaml")) if p.is_file()]
    got = bundle.yaml_files(root)
    assert [path for _, path in got] == expected and len(expected) == 7
    assert [parts for parts, _ in got] == [p.relative_to(root).parts for p in expected]
    assert bundle.yaml_files(tmp_path / "missing") == []


def test_a_file_rewritten_to_the_same_size_and_times_is_seen(data, tmp_path, monkeypatch):
    """The data hash is read back by the files' stat; a rewrite that keeps the size and sets the modification time
    back still changes the change time, so the data is hashed again and a new bundle made. Data written a moment
    ago is not remembered by its stat at all (two writes within one tick can leave the same stat)."""
    import os
    import time

    from generator import cachedir

    cache = tmp_path / "cache"
    _open(data, cache)
    assert not (cache / "bundles" / "stat").exists()  # the fixture's files were just written
    monkeypatch.setattr(cachedir, "SETTLED_NS", 0)
    _open(data, cache)
    record = next(data.rglob("*.yaml"))
    before = record.stat()
    time.sleep(0.05)  # past the kernel's tick, so that the write moves the change time
    text = record.read_text(encoding="utf-8")
    record.write_text(text.replace("a", "e", 1), encoding="utf-8")  # one letter of a comment or a text: same size
    os.utime(record, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert record.stat().st_size == before.st_size and record.stat().st_mtime_ns == before.st_mtime_ns
    _open(data, cache)
    made = {bundle.Bundle(p).data_hash for p in (cache / "bundles").glob("*.bundle")}
    now = bundle.data_hash(data, data.parent / "catalog", checkout.mkdocs_settings(data))
    assert len(made) == 2 and now in made  # the bundle of the data as it is now
    assert len(list((cache / "bundles" / "stat").iterdir())) == 2  # a data hash remembered for each state of the files


def test_a_foreign_bundle_under_this_datas_name_is_not_read(data, tmp_path):
    cache = tmp_path / "cache"
    _open(data, cache)
    (mine,) = (cache / "bundles").glob("*.bundle")
    other = tmp_path / "other"
    shutil.copytree(data.parent, other)
    (other / "catalog" / "demo.jsonl").write_text("", encoding="utf-8")  # a catalog without entries
    foreign = bundlecompile.make(other / "errors", other / "catalog", {}, io.StringIO())
    mine.write_bytes(foreign)  # under the file name of this data's hash
    k = _open(data, cache)
    assert sum(p.count() for p in k.catalog.projects.values()) == 4  # made again from the data, not the foreign file
    assert bundle.Bundle(mine).data_hash == mine.stem


def test_a_damaged_bundle_is_refused_or_made_again(data, tmp_path):
    cache = tmp_path / "cache"
    _open(data, cache)
    (path,) = (cache / "bundles").glob("*.bundle")
    raw = bytearray(path.read_bytes())
    b = bundle.Bundle(path)
    at, size, _ = b.header["sections"]["match/owners"]
    raw[b._base + at + size // 2] ^= 0x01
    path.write_bytes(bytes(raw))
    with pytest.raises(bundle.BundleError, match="section 'match/owners' does not match its sha256"):
        bundle.Bundle(path).section("match/owners")
    k = _open(data, cache)  # the cache's copy is made again
    assert match_items(k, io.BytesIO(LOG.encode()), {})[0]
    # a section of zlib blocks is read a block at a time, unhashed: zlib's own check finds the damage in the block read
    raw = bytearray(path.read_bytes())
    b = bundle.Bundle(path)
    starts = b.json("sites/starts")
    n, m = sorted(range(len(starts) - 1), key=lambda i: starts[i] - starts[i + 1])[:2]  # the two biggest shards
    raw[b._base + b.header["sections"]["sites"][0] + (starts[n] + starts[n + 1]) // 2] ^= 0x01
    path.write_bytes(bytes(raw))
    shards = bundle.Blocks(bundle.Bundle(path), "sites", starts, len(starts) - 1, per_block=1)
    assert json.loads(shards[m])  # another block reads as before, without the whole section's sha256
    with pytest.raises(bundle.BundleError, match=f"block {n} of section 'sites' is damaged"):
        shards[n]
    for bad, said in ((b"not a bundle", "not an errdex knowledge bundle"),
                      (bundle.MAGIC + b"0000000000000002\n{}", "another format"),
                      (bundle.MAGIC + b"0000000000000009\n{not json", "header is not JSON")):
        path.write_bytes(bad)
        with pytest.raises(bundle.BundleError, match=said):
            bundle.Bundle(path)


def test_records_that_do_not_validate_make_no_bundle(data, tmp_path):
    record = next(data.rglob("*.yaml"))
    record.write_text("id: [not, an, id]\n", encoding="utf-8")
    log = io.StringIO()
    found = bundleread.open_knowledge(data, log, cache=tmp_path / "cache")
    assert isinstance(found, str) and "do not pass validation" in found and record.name in log.getvalue()
    assert not list((tmp_path / "cache").rglob("*.bundle"))


def test_a_hostile_catalog_string_survives_the_bundle(data, tmp_path):
    """Any code point a JSON file can hold (a lone surrogate, controls) goes through the bundle unchanged."""
    catalog = data.parent / "catalog" / "demo.jsonl"
    rows = [json.loads(line) for line in catalog.read_text(encoding="utf-8").splitlines()]
    rows[0]["function"] = "f\ud800\x1b[31m"
    rows[0]["sites"][0]["path"] = "servekit/\ud800.py"
    catalog.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    k = _open(data, tmp_path / "cache")
    got = k.catalog.projects["demo"].entry(rows[0]["id"])
    assert got.data["function"] == "f\ud800\x1b[31m" and got.sites[0].path == "servekit/\ud800.py"


def test_a_catalog_integer_past_64_bits_reads_back_as_the_integer(data, tmp_path):
    """The bundle's entries are decoded with jsonline.read, as json would: an integer past 64 bits (which orjson alone
    would read as a float) comes back as that integer."""
    catalog = data.parent / "catalog" / "demo.jsonl"
    rows = [json.loads(line) for line in catalog.read_text(encoding="utf-8").splitlines()]
    k = _open(data, tmp_path / "before")
    assert k.catalog.projects["demo"].entry(rows[0]["id"]).data == rows[0]
    rows[0]["sites"][0]["line"] = 2**70 + 1
    catalog.write_text("".join(json.dumps(r, sort_keys=True) + "\n" for r in rows), encoding="utf-8")
    got = _open(data, tmp_path / "after").catalog.projects["demo"].entry(rows[0]["id"])
    assert got.data["sites"][0]["line"] == 2**70 + 1 and isinstance(got.data["sites"][0]["line"], int)


def test_a_table_stored_as_lines_reads_back_each_value_as_it_was():
    """The matcher's tables are stored a value after another with where each starts (bundle.lines_of) and read
    one value at a time (bundle.Lines): every JSON value reads back equal, however it is indexed or sliced, with
    no value read before it is asked for."""
    values = [[], "", None, 0, -1, [["a\nb", True]], {"k": "\u2028\u00e9"}, "\ud800", [1, [2, [3]]], "x" * 1000]
    body, starts = bundle.lines_of(values)
    table = bundle.Lines(body, starts)
    assert len(table) == len(values) and not table._made
    assert table[6] == values[6] and list(table._made) == [6]
    assert list(table) == values and table[-1] == values[-1] and table[2:5] == values[2:5]
    with pytest.raises(IndexError):
        table[len(values)]
    assert len(bundle.Lines(*bundle.lines_of([]))) == 0 and not bundle.Lines(*bundle.lines_of([]))
    assert b"\n" not in body  # a raw line break in a value is escaped


def test_the_site_settings_are_remembered_by_their_files_stat(tmp_path, monkeypatch):
    """mkdocs_settings reads the checkout's mkdocs.yml once: then, while the file is unchanged, the settings come from
    the cache without YAML; a changed file is read again; a memo that holds anything else is not believed."""
    root = tmp_path / "checkout"
    (root / "data" / "errors").mkdir(parents=True)
    config = root / "mkdocs.yml"
    config.write_text("site_url: https://one.example/\nrepo_url: https://git.example/one\n", encoding="utf-8")
    cache, data = tmp_path / "cache", root / "data" / "errors"
    monkeypatch.setattr("generator.cachedir.settled", lambda ctime_ns: True)
    first = checkout.mkdocs_settings(data, cache)
    assert first == {"site_url": "https://one.example/", "repo_url": "https://git.example/one"}
    (memo,) = (cache / "settings").iterdir()

    def no_yaml(configs):
        raise AssertionError("read the YAML again")

    monkeypatch.setattr(checkout, "_read_settings", no_yaml)
    assert checkout.mkdocs_settings(data, cache) == first
    monkeypatch.undo()
    config.write_text("site_url: https://two.example/\n", encoding="utf-8")
    assert checkout.mkdocs_settings(data, cache) == {"site_url": "https://two.example/"}
    memo.write_text('{"site_url": ["not", "a", "string"]}', encoding="utf-8")
    config.write_text("site_url: https://one.example/\nrepo_url: https://git.example/one\n", encoding="utf-8")
    assert checkout._remembered(memo) is None
