"""Symbols per release -> the symbol index: every name a project's releases define, with the releases that have it.

Read from the same cached release sources as the catalog (`errdex harvest` fetches them; `errdex symbols` fetches
what is missing). Each Python file's symbols are extracted once per content (generator/harvest/extract_symbols.py)
and kept in the cache, on both cores; a release is the union of its files' symbols; the fold turns each symbol into
the set of releases (indexes into the header's `releases`) that have it, written as ranges ("0-35,40").

The file, `data/catalog/symbols/<project>.jsonl` (one JSON object per line, keys sorted, lines sorted):
  {"format": 1, "packages": [...], "pip": "...", "project": "...", "releases": [...]}      the header, first
  {"module": "a.b", "in": R, "names": {name: R}, "star": {module: R},
   "classes": {C: {"in": R, "bases": {dotted: R}, "attrs": {name: R}, "methods": {m: {"in": R, "params": {p: R}}}}},
   "functions": {f: {"in": R, "params": {p: R}}}}                                           one line per module
  {"registry": "<name>", "keys": {key: R}}                          model types, flags, auto classes, ...
R is a ranges string; "" means "the same releases as the enclosing name" (most symbols live as long as their module).

A project without a pip package (TGI, read from git and run as a container image) has no module lines: what users
import is not its code. Its index holds registries only (the flags of its clap-derived Rust structs,
generator/harvest/extract_clap.py), its header no packages and `"pip": null`.
"""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor
from fnmatch import fnmatch
from pathlib import Path

from .catalog import version_key
from .extract import _why
from .config import CATALOG_ROOT, Project
from ..cachedir import write_atomic
from ..jsonline import canonical
from ..catalog.symbols import parse_ranges, runs
from .extract_auto import auto_class_keys
from .extract_clap import clap_flags
from .extract_compared import compared_strings
from .extract_symbols import REGISTRY_KEY, module_name, python_symbols
from .fetch import Cache

SYMBOLS_VERSION = "4"  # bump when extraction changes: cached results of older extractors are not reused
FORMAT = 1
FLAGS = "flags"  # the registry of command-line flags (`add_argument` literals, and configured dataclass fields)
AUTO = "auto_classes"  # transformers' auto classes: `<auto class>.<configuration class>` (generator/harvest/extract_auto.py)


def symbols_dir(root: Path = CATALOG_ROOT) -> Path:
    return root / "symbols"


def symbols_path(slug: str, root: Path = CATALOG_ROOT) -> Path:
    return symbols_dir(root) / f"{slug}.jsonl"


def _store(cache: Cache, path: str, sha: str) -> Path:
    """Where one file's symbols are kept: by its content and its path (a file's symbols depend on its module name:
    relative imports, base classes)."""
    key = sha + "-" + hashlib.sha256(path.encode("utf-8")).hexdigest()[:16]
    return cache.root / "symbols" / SYMBOLS_VERSION / sha[:2] / f"{key}.json"


def _extract_one(job: tuple[str, str, str]) -> tuple[str, str, dict | None, str | None]:
    """(path, sha) of one file -> its symbols, computed in a worker and stored in the cache."""
    root, path, sha = job
    cache = Cache(Path(root))
    try:
        found = python_symbols(cache.get_blob(sha), path)
    except Exception as exc:  # whatever a hostile file makes the extractor raise costs that file only
        return path, sha, None, _why(exc)
    write_atomic(_store(cache, path, sha), json.dumps(found, sort_keys=True).encode("utf-8"))
    return path, sha, found, None


def release_files(project: Project, manifest: dict) -> list[tuple[str, str]]:
    """The release's Python files the index reads: the catalog's, less the index's own skip (placeholder modules);
    none of a project without a pip package. With a `python_root` (an sdist's folder of the importable package),
    only the files under it, their paths from it (`bindings/python/py_src/tokenizers/x.py` -> `tokenizers/x.py`)."""
    if not project.package:
        return []
    root = project.python_root
    return [(p[len(root):], s) for p, s in sorted(manifest["files"].items()) if p.endswith(".py") and p.startswith(root)
            and project.language_of(p) == "python" and not any(fnmatch(p, g) for g in project.symbol_skip)]


def clap_release_flags(project: Project, cache: Cache, manifest: dict) -> tuple[set[str], dict[str, str]]:
    """The flags of the release's configured clap structs (`symbols: clap_structs`), and the files that could not be
    read ({path: why})."""
    flags: set[str] = set()
    unreadable: dict[str, str] = {}
    for path, sha in sorted(manifest["files"].items()):
        structs = {w["struct"] for w in project.clap_structs if fnmatch(path, w["path"])}
        if structs:
            try:
                flags.update(clap_flags(cache.get_blob(sha), structs))
            except Exception as exc:  # as _extract_one: a hostile file costs that file only
                unreadable[path] = _why(exc)
    return flags, unreadable


def auto_release_keys(project: Project, cache: Cache, manifest: dict) -> tuple[set[str], dict[str, str]]:
    """The release's auto-class keys (`symbols: auto_classes`), and the files that could not be read ({path: why}):
    a release with an unreadable table file gives no keys (never half of them)."""
    conf = project.auto_classes
    files = {path: sha for path, sha in sorted(manifest["files"].items()) if path.endswith(".py") and fnmatch(path, conf["path"])}
    try:
        return auto_class_keys({p: cache.get_blob(s) for p, s in files.items()}, conf["classes"], conf.get("also")), {}
    except Exception as exc:  # as _extract_one: a hostile file costs its release's auto classes only
        return set(), {conf["path"]: _why(exc)}


def compared_release_keys(project: Project, cache: Cache, manifest: dict) -> tuple[dict[str, set[str]], dict[str, str]]:
    """The release's registries of compared strings (`symbols: compared`), {registry: keys}, and the files that
    could not be read ({path: why})."""
    found: dict[str, set[str]] = {}
    unreadable: dict[str, str] = {}
    for registry, wanted in sorted(project.compared.items()):
        keys = found.setdefault(registry, set())
        for path, sha in sorted(manifest["files"].items()):
            for w in wanted:
                if path.endswith(".py") and fnmatch(path, w["path"]):
                    try:
                        keys |= compared_strings(cache.get_blob(sha), w["name"])
                    except Exception as exc:  # as _extract_one: a hostile file costs that file only
                        unreadable[path] = _why(exc)
    return found, unreadable


def extract_all(cache: Cache, jobs: Iterable[tuple[str, str]], workers: int, log: Callable[[str], None]) -> tuple[dict, dict]:
    """{(path, sha): symbols} for every file, from the cache or extracted on `workers` processes; {path: why} for
    the files that cannot be read."""
    found: dict[tuple[str, str], dict] = {}
    unreadable: dict[str, str] = {}
    todo = []
    for path, sha in sorted(set(jobs)):
        store = _store(cache, path, sha)
        if store.is_file():
            found[(path, sha)] = json.loads(store.read_text(encoding="utf-8"))
        else:
            todo.append((str(cache.root), path, sha))
    if todo:
        log(f"extracting {len(todo)} files on {workers} processes")
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for path, sha, symbols, why in pool.map(_extract_one, todo, chunksize=16):
                if symbols is None:
                    if why:
                        unreadable[path] = why
                else:
                    found[(path, sha)] = symbols
    return found, unreadable


class Fold:
    """Symbol -> bitmask of release indexes."""

    def __init__(self, project: Project, releases: list[str]) -> None:
        self.project = project
        self.releases = releases
        self.modules: dict[str, int] = defaultdict(int)
        self.keys: dict[tuple, int] = defaultdict(int)

    def add(self, index: int, path: str, symbols: dict) -> None:
        module = module_name(path)
        if module is None:
            return
        bit = 1 << index
        self.modules[module] |= bit
        keys = self.keys
        for name in symbols["names"]:
            keys[("n", module, name)] |= bit
        for star in symbols["star"]:
            keys[("s", module, star)] |= bit
        for name, params in symbols["functions"].items():
            keys[("f", module, name)] |= bit
            for p in params:
                keys[("fp", module, name, p)] |= bit
        for cls, body in symbols["classes"].items():
            keys[("c", module, cls)] |= bit
            for b in body["bases"]:
                keys[("cb", module, cls, b)] |= bit
            for a in body["attrs"]:
                keys[("ca", module, cls, a)] |= bit
            for m, params in body["methods"].items():
                keys[("cm", module, cls, m)] |= bit
                for p in params:
                    keys[("cmp", module, cls, m, p)] |= bit
            if f"{module}.{cls}" in self.project.flag_classes:  # its public fields are flags: max_model_len -> --max-model-len
                for a in body["attrs"]:
                    flag = "--" + a.replace("_", "-")
                    if not a.startswith("_") and REGISTRY_KEY.fullmatch(flag):
                        keys[("r", FLAGS, flag)] |= bit
        if self.project.flag_classes:  # a project with a command line (its flags classes say which): its flags
            for flag in symbols["flags"]:
                keys[("r", FLAGS, flag)] |= bit
        for variable, found in symbols["keys"].items():
            for registry, wanted in self.project.registries.items():
                if any(fnmatch(path, w["path"]) and fnmatch(variable, w["variable"]) for w in wanted):
                    for key in found:
                        keys[("r", registry, key)] |= bit

    def add_keys(self, index: int, registry: str, keys: set[str]) -> None:
        for key in keys:
            self.keys[("r", registry, key)] |= 1 << index

    def lines(self) -> list[dict]:
        """The index's lines: modules in order, then registries."""
        mods: dict[str, dict] = {}
        for module, mask in self.modules.items():
            mods[module] = {"module": module, "in": mask}
        registries: dict[str, dict] = {}
        for key, mask in self.keys.items():
            kind = key[0]
            if kind == "r":
                registries.setdefault(key[1], {})[key[2]] = mask
                continue
            mod = mods[key[1]]
            if kind == "n":
                mod.setdefault("names", {})[key[2]] = mask
            elif kind == "s":
                mod.setdefault("star", {})[key[2]] = mask
            elif kind == "f":
                mod.setdefault("functions", {}).setdefault(key[2], {})["in"] = mask
            elif kind == "fp":
                mod.setdefault("functions", {}).setdefault(key[2], {}).setdefault("params", {})[key[3]] = mask
            elif kind == "c":
                mod.setdefault("classes", {}).setdefault(key[2], {})["in"] = mask
            elif kind in ("cb", "ca"):
                part = "bases" if kind == "cb" else "attrs"
                mod.setdefault("classes", {}).setdefault(key[2], {}).setdefault(part, {})[key[3]] = mask
            elif kind == "cm":
                mod.setdefault("classes", {}).setdefault(key[2], {}).setdefault("methods", {}).setdefault(key[3], {})["in"] = mask
            elif kind == "cmp":
                (mod.setdefault("classes", {}).setdefault(key[2], {}).setdefault("methods", {}).setdefault(key[3], {})
                 .setdefault("params", {})[key[4]]) = mask
        out = [_encode(mods[m], None) for m in sorted(mods)]
        out += [{"keys": {k: ranges(v) for k, v in sorted(keys.items())}, "registry": name} for name, keys in sorted(registries.items())]
        return out


def load_fold(project: Project, lines: list[dict]) -> Fold:
    """A fold continued from an index's lines (its header first): every symbol with the releases it had, so that
    newer releases are added without the older ones' files (`errdex symbols --new`)."""
    fold = Fold(project, list(lines[0]["releases"]))
    everything = (1 << len(fold.releases)) - 1
    for line in lines[1:]:
        if "registry" in line:
            for key, text in line["keys"].items():
                fold.keys[("r", line["registry"], key)] = parse_ranges(text, everything)
            continue
        module = line["module"]
        own = parse_ranges(line["in"], everything)
        fold.modules[module] = own
        for kind, part in (("n", "names"), ("s", "star")):
            for name, text in line.get(part, {}).items():
                fold.keys[(kind, module, name)] = parse_ranges(text, own)
        for name, fn in line.get("functions", {}).items():
            at = fold.keys[("f", module, name)] = parse_ranges(fn.get("in", ""), own)
            for p, text in fn.get("params", {}).items():
                fold.keys[("fp", module, name, p)] = parse_ranges(text, at)
        for cls, body in line.get("classes", {}).items():
            at = fold.keys[("c", module, cls)] = parse_ranges(body.get("in", ""), own)
            for kind, part in (("cb", "bases"), ("ca", "attrs")):
                for name, text in body.get(part, {}).items():
                    fold.keys[(kind, module, cls, name)] = parse_ranges(text, at)
            for m, fn in body.get("methods", {}).items():
                mat = fold.keys[("cm", module, cls, m)] = parse_ranges(fn.get("in", ""), at)
                for p, text in fn.get("params", {}).items():
                    fold.keys[("cmp", module, cls, m, p)] = parse_ranges(text, mat)
    return fold


def _encode(node: dict, parent: int | None) -> dict:
    """Masks -> ranges strings, "" where a symbol has its enclosing name's releases; keys sorted."""
    own = node.get("in")
    out: dict = {}
    for key, value in node.items():
        if key == "in":
            out["in"] = "" if value == parent else ranges(value)
        elif key == "module":
            out[key] = value
        elif key in ("names", "star", "bases", "attrs", "params"):
            out[key] = {k: ("" if v == own else ranges(v)) for k, v in sorted(value.items())}
        else:  # classes, functions, methods: name -> node
            out[key] = {k: _encode(v, own) for k, v in sorted(value.items())}
    return out


def ranges(mask: int) -> str:
    """A bitmask of release indexes as runs: 0b1110111 -> "0-2,4-6" (what the reader's parse_ranges reads back)."""
    return ",".join(f"{a}" if a == b else f"{a}-{b}" for a, b in runs(mask))


def header(project: Project, releases: list[str]) -> dict:
    include = [p[len(project.python_root):] for p in project.include if p.startswith(project.python_root)]
    packages = sorted({p.split("/")[0] for p in include if p.split("/")[0]}) if project.package else []
    return {"format": FORMAT, "packages": packages, "pip": project.package, "project": project.slug, "releases": releases}


def build_index(project: Project, cache: Cache, manifests: dict[str, dict], workers: int = 2,
                log: Callable[[str], None] = print, modules: list[str] | None = None,
                after: list[dict] | None = None) -> tuple[list[dict], dict[str, str]]:
    """The index lines of `project` over the releases whose manifests are given (oldest first), of every module or
    only `modules` (`pkg.*`: pkg's submodules too), continuing the index `after` (its lines) when given; and the
    files that could not be read ({path: why})."""
    def kept(path: str) -> bool:
        name = module_name(path) or ""
        return modules is None or any(name == m or (m.endswith(".*") and name.startswith(m[:-1])) for m in modules)

    releases = sorted(manifests, key=version_key)
    per_release = {v: [f for f in release_files(project, manifests[v]) if kept(f[0])] for v in releases}
    found, unreadable = extract_all(cache, (f for files in per_release.values() for f in files), workers, log)
    fold = load_fold(project, after) if after else Fold(project, [])
    start = len(fold.releases)
    fold.releases += releases
    for index, version in enumerate(releases, start):
        for path, sha in per_release[version]:
            symbols = found.get((path, sha))
            if symbols is not None:
                fold.add(index, path, symbols)
        if project.clap_structs:
            flags, bad = clap_release_flags(project, cache, manifests[version])
            fold.add_keys(index, FLAGS, flags)
            unreadable.update(bad)
        if project.compared:
            registries, bad = compared_release_keys(project, cache, manifests[version])
            for registry, keys in registries.items():
                fold.add_keys(index, registry, keys)
            unreadable.update(bad)
        if project.auto_classes:
            keys, bad = auto_release_keys(project, cache, manifests[version])
            fold.add_keys(index, AUTO, keys)
            unreadable.update(bad)
    return [header(project, fold.releases), *fold.lines()], unreadable


def dumps(lines: list[dict]) -> str:
    return "".join(canonical(line) + "\n" for line in lines)


def write_index(slug: str, lines: list[dict], root: Path = CATALOG_ROOT) -> Path:
    path = symbols_path(slug, root)
    write_atomic(path, dumps(lines).encode("utf-8"))
    return path
