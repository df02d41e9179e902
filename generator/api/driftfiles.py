"""The browser's drift data: the symbol indexes (data/catalog/symbols, read by generator/catalog/symbols.py) filed
again by the names a drift line asks about, so that the paste page answers as generator/bundle/drift.py does for
the CLI and the MCP server (overrides/assets/javascripts/errdex-drift.js), fetching a few small files instead of
every index.

- `drift/index.json`: what answers are made of besides the names: each project's pip name, packages, releases
  and registries, the drift shapes, phrases, registries' labels and log patterns (generator/match/drift.py), the
  number of shards.
- `drift/<n>.json.gz` (n = crc32(key) % SHARDS; stored gzipped, as routes.API says), keys:
    `m:<module>`  [[project, the module's line: its releases, star imports, and the releases of each name it binds]]
    `c:<Class>`   [[project, module, the class's line (attributes, methods and their parameters, bases), the module's releases]]
    `f:<name>`    [[project, module, the function's line (its parameters), the module's releases]]
    `n:<name>`    [[project, the first MAX_ELSEWHERE modules `name` can be imported from in the newest release]]
  Ranges strings keep the index's meaning (relative to the enclosing name's releases; "" is the same releases).
- `drift/<project>/<registry>.json.gz`: a registry's keys and their releases (model types, architectures, flags).
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from .. import routes
from ..catalog.symbols import MAX_DEPTH, Indexes, import_order, indexes as read_indexes
from ..match.drift import CONTEXT_LINES, MAX_CANDIDATES, MAX_ELSEWHERE, MAX_LINE, PACKAGE_PATH, PHRASES, PROGRAMS, REGISTRIES, REMOTE_CODE, SHAPES, VERSION_LINE
from .catalogmatch import shard_of  # crc32(key) % count, as the catalog's match shards
from .export import encode_file, encode_json

SHARDS = 2048  # ~20 kB of index a shard (43 MB in all): a drift line fetches one to a few of them
PARTS = ("names", "classes", "functions")


def _module_line(node: dict[str, Any]) -> dict[str, Any]:
    """What `from module import name` needs of a module: its releases, star imports, and each name it binds with
    the releases that bind it (a class's or function's body is filed under the class or function)."""
    out: dict[str, Any] = {"in": node.get("in", "")}
    if node.get("star"):
        out["star"] = node["star"]
    for part in PARTS:
        got = node.get(part)
        if got:
            out[part] = {name: (entry if isinstance(entry, str) else entry.get("in", "")) for name, entry in got.items()}
    return out


def drift_documents(indexes: Indexes) -> dict[str, Any]:
    """The index document ("index"), each shard ("<n>") and each registry ("<project>/<registry>")."""
    meta: dict[str, Any] = {
        "format": 1, "shards": SHARDS, "projects": {}, "shapes": SHAPES, "context_lines": CONTEXT_LINES, "max_line": MAX_LINE,
        "phrases": {key: list(pair) for key, pair in PHRASES.items()}, "registries": REGISTRIES, "package_path": PACKAGE_PATH.pattern,
        "remote_code": REMOTE_CODE.pattern, "version_line": VERSION_LINE.replace("{{", "{").replace("}}", "}"),
        "max_candidates": MAX_CANDIDATES, "max_elsewhere": MAX_ELSEWHERE, "max_depth": MAX_DEPTH,
    }
    shards: dict[int, dict[str, list]] = defaultdict(dict)

    def put(key: str, item: list) -> None:
        shards[shard_of(key, SHARDS)].setdefault(key, []).append(item)

    docs: dict[str, Any] = {}
    for project in indexes.projects():
        index = indexes[project]
        meta["projects"][project] = {"pip": index.pip, "packages": index.packages, "programs": PROGRAMS.get(project, []),
                                     "releases": index.releases, "registries": sorted(index.registries)}
        newest = 1 << (len(index.releases) - 1)
        importable: dict[str, list[str]] = defaultdict(list)
        reach = index.star_reach()
        for name in sorted(index.modules):
            node = index.modules[name]
            put("m:" + name, [project, _module_line(node)])
            for cls, entry in sorted(node.get("classes", {}).items()):
                put("c:" + cls, [project, name, entry, node.get("in", "")])
            for fn, entry in sorted(node.get("functions", {}).items()):
                put("f:" + fn, [project, name, entry, node.get("in", "")])
            for bound in {b for part in PARTS for b in node.get(part, {})}:  # SymbolIndex.importable_from, for every name
                if index.name(name, bound, reach=reach) & newest:
                    importable[bound].append(name)
        for bound, where in sorted(importable.items()):
            put("n:" + bound, [project, sorted(where, key=import_order)[:MAX_ELSEWHERE]])
        for registry, keys in sorted(index.registries.items()):
            docs[f"{project}/{registry}"] = keys
    docs["index"] = meta
    docs.update({str(n): shard for n, shard in sorted(shards.items())})
    return docs


def drift_files(symbols_dir: Path) -> dict[str, bytes]:
    """The browser's drift data for the symbol indexes in `symbols_dir` (data/catalog/symbols): API path (relative
    to the API root) -> bytes. No index there: no files."""
    indexes = read_indexes(Path(symbols_dir))
    if not indexes:
        return {}
    docs = drift_documents(indexes)
    files = {routes.api_path("drift_index"): encode_json(docs.pop("index"))}
    for key, doc in docs.items():
        if "/" in key:
            project, registry = key.split("/", 1)
            path = routes.api_path("drift_registry", registry, project=project)
        else:
            path = routes.api_path("drift_shard", key)
        files[path] = encode_file(path, doc)
    return dict(sorted(files.items()))
