"""Reading a knowledge bundle (generator.bundle) into the knowledge every reader answers from
(generator.bundle.knowledge.Knowledge): patterns, entries and raise sites decoded when first asked for; and the cache of
bundles, one per state of the data, made when the cache has none for the data in use."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

from ..cachedir import remembered, remembered_digest, write_kept
from .. import jsonline
from . import _ROW, KEEP, SITE_SHARDS, WHEEL_BUNDLE, Blocks, Bundle, BundleError, Lines, _shard, data_hash, stat_key
from .compile import make


class LazyPatterns(Sequence):
    """The matcher's patterns, each made from its row when first asked for (a scan asks for a handful)."""

    def __init__(self, bundle: Bundle):
        count = int(bundle.summary.get("patterns", 0))
        self._rows = Blocks(bundle, "match/rows", bundle.json("match/blocks"), count)
        self._made: dict[int, Any] = {}

    def __len__(self) -> int:
        return len(self._rows)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        made = self._made.get(index)
        if made is None:
            from ..match.engine import Pattern

            row = jsonline.read(self._rows[index])
            fields = dict(zip(_ROW, row))
            if isinstance(fields["literals"], list):
                fields["literals"] = tuple(fields["literals"])
            made = self._made[index] = Pattern(**fields)
        return made


def read(bundle: Bundle, *, catalog: bool = True, engine: str = "auto") -> Any:
    """The knowledge (records, catalog, matcher) of an open bundle; with `catalog` False, the records alone."""
    from ..catalog.reader import Catalog
    from ..match.engine import Matcher
    from .apidata import FILES, MANIFEST, from_files
    from .knowledge import Knowledge as Served
    from ..catalog.reader import LazyProject

    summary = bundle.summary
    api = from_files({name: bundle.section(f"api/{name}") for name in (MANIFEST, *FILES)},
                     f"the knowledge bundle {bundle.path}", summary.get("site_url"), bundle.json("api/ids"))
    n_records = int(summary.get("records", 0))
    tables: Any = LazyTables(bundle)
    patterns: Sequence = LazyPatterns(bundle)
    cat = Catalog()
    if catalog:
        meta = bundle.json("catalog")
        cat.problems, cat.problem_count = list(meta.get("problems", [])), int(meta.get("problem_count", 0))
        cat.links = dict(meta.get("links", {}))
        for slug, info in meta["projects"].items():
            cat.projects[slug] = LazyProject(slug, info["releases"], info.get("package"), info.get("repository"),
                                             info.get("source_url"), _entry_reader(bundle, slug, int(info["entries"])))
    else:  # the records' patterns only: the tables cut to them
        tables = _records_only(tables, n_records)
        patterns = patterns[:n_records]
    serialised = bundle.section("match/hyperscan") if catalog and bundle.has("match/hyperscan") else None
    matcher = Matcher(patterns, tables=tables, engine=engine, serialised=serialised, evidence_from=n_records)
    return Served(api, cat, summary.get("repo_url"), matcher=matcher, record_patterns=n_records,
                  site_index=SiteIndex(bundle) if catalog else None, symbols=_symbols_reader(bundle, summary.get("symbols", {})))


def _symbols_reader(bundle: Bundle, files: dict[str, dict]) -> Any:
    """The bundle's symbol indexes: what each holds is in the summary; a project's index is decompressed and read
    when a drift line first needs it."""
    import functools
    import zlib

    from ..catalog.symbols import Indexes

    @functools.lru_cache(maxsize=1)
    def load() -> Indexes:
        return Indexes.of_files(files, lambda name: zlib.decompress(bundle.section(f"symbols/{name}")).decode("utf-8"))

    return load


def _entry_reader(bundle: Bundle, slug: str, count: int) -> Any:
    """(count, ids, entry i decoded) of a project's entries in the bundle, the ids read when first needed."""
    state: dict[str, Any] = {}

    def index() -> dict[str, Any]:
        if not state:
            found = bundle.json(f"catalog/{slug}/ids")
            state["ids"] = found["ids"]
            state["blocks"] = Blocks(bundle, f"catalog/{slug}/entries", found["blocks"], count)
        return state

    return count, lambda: index()["ids"], lambda i: jsonline.read(index()["blocks"][i])


class LazyTables:
    """The matcher's tables (generator.match.engine.Tables) of a bundle, each field read when first used, each
    value of it decoded when first asked for (`Lines`)."""

    def __init__(self, bundle: Bundle):
        self._bundle = bundle

    def __getattr__(self, name: str) -> Any:
        from ..match.prefilter import Tables

        if name not in Tables.__dataclass_fields__:
            raise AttributeError(name)
        value = Lines(self._bundle.section(f"match/{name}"), self._bundle.section(f"match/{name}/at"))
        setattr(self, name, value)
        return value


def _records_only(t: Any, n: int) -> Any:
    from ..match.prefilter import Tables

    keys, owners = [], []
    for key, own in zip(t.keys, t.owners):
        kept = [i for i in own if i < n]
        if kept:
            keys.append(key)
            owners.append(kept)
    return Tables(t.specificity[:n], t.anchored[:n], t.exception_names[:n], t.full_literals[:n], t.partials[:n], keys,
                  owners, [i for i in t.always if i < n])


class SiteIndex:
    """The raise sites at `"<file name>:<line>"` (a bundle's `sites`): its shard decompressed when first asked for."""

    def __init__(self, bundle: Bundle):
        self._bundle, self._shards = bundle, None

    def __call__(self, key: str) -> list[list[Any]]:
        if self._shards is None:
            self._shards = Blocks(self._bundle, "sites", self._bundle.json("sites/starts"), SITE_SHARDS, per_block=1)
        return jsonline.read(self._shards[_shard(key)]).get(key, [])


# -- the cache -------------------------------------------------------------------------------------------------
def cached(records_dir: Path, catalog_dir: Path, settings: dict[str, str], log: IO[str], cache: Path | None = None) -> Bundle | str:
    """The bundle of this data from the cache, made (and kept) when the cache has none for it; or why not."""
    from ..cachedir import default_cache

    folder = (cache or default_cache()) / "bundles"
    digest = _known_hash(folder, records_dir, catalog_dir, settings)
    path = folder / f"{digest}.bundle"
    if path.is_file():
        try:
            bundle = Bundle(path)
            if bundle.data_hash == digest:
                return bundle
        except BundleError:
            pass  # rebuilt below
    made = make(records_dir, catalog_dir, settings, log, digest)
    if isinstance(made, str):
        return made
    write_kept(path, made, folder.glob("*.bundle"), KEEP)
    return Bundle(path)


def _known_hash(folder: Path, records_dir: Path, catalog_dir: Path, settings: dict[str, str]) -> str:
    """The data hash, read back when the files' stat is the same as when it was last computed (reading ~140 MB of
    data to hash it is most of a warm answer's time); computed, and remembered, otherwise."""
    key, newest = stat_key(records_dir, catalog_dir, settings)
    return remembered(folder / "stat" / key, newest, lambda: data_hash(records_dir, catalog_dir, settings),
                      remembered_digest, lambda digest: digest.encode("ascii"))


def open_knowledge(data: Path | None, log: IO[str], *, catalog: bool = True, engine: str = "auto",
                   cache: Path | None = None) -> Any:
    """The knowledge `errdex match` and `errdex mcp` answer from: the bundle of the records in `data` (default:
    ./data/errors, else the checkout's) and the catalog beside them (data/catalog), from the cache or made now;
    outside any checkout, the bundle installed with errdex. Returns why there is none instead, as a sentence."""
    for attempt in range(2):
        found = open_bundle(data, log, cache)
        if isinstance(found, str):
            return found
        try:
            return read(found, catalog=catalog, engine=engine)
        except BundleError as exc:  # a damaged section in the cache's copy: it is made again, once
            if attempt or found.path == WHEEL_BUNDLE:
                return str(exc)
            found.path.unlink(missing_ok=True)
    raise AssertionError("unreachable")


def open_bundle(data: Path | None, log: IO[str], cache: Path | None = None) -> Bundle | str:
    """The bundle open_knowledge reads (made now when the cache has none for this data), or why there is none."""
    from . import checkout

    data = data or checkout.default_data()
    if data is None:
        if not WHEEL_BUNDLE.is_file():
            return "no records here (data/errors) and no knowledge bundle installed; pass --data or --index"
        try:
            return Bundle(WHEEL_BUNDLE)
        except BundleError as exc:
            return str(exc)
    if not Path(data).is_dir():
        return f"{data} is not a folder of records"
    return cached(Path(data), Path(data).parent / "catalog", checkout.mkdocs_settings(data, cache), log, cache)
