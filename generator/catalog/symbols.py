"""The symbol index's reader: which releases of a project have a module, a name, a class member, a parameter or a
registry key (data/catalog/symbols/<project>.jsonl, written by generator/harvest/symbols.py).

A set of releases is an int bitmask over the header's `releases` (bit i: releases[i]); a stored ranges string ""
means the enclosing name's releases. Inherited members follow the class's bases within the project, as far as the
index resolves them (a base from another package, `torch.nn.Module`, is not followed: its names are not the
project's).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path

MAX_DEPTH = 16  # bases and star imports followed (no real hierarchy is deeper)


def import_order(module: str) -> tuple[int, int, str]:
    """The order modules a name can be imported from are offered in: the shortest path first."""
    return module.count("."), len(module), module


def parse_ranges(text: str, parent: int) -> int:
    if text == "":
        return parent
    mask = 0
    for run in text.split(","):
        first, _, last = run.partition("-")
        a, b = int(first), int(last or first)
        mask |= ((1 << (b - a + 1)) - 1) << a
    return mask


def bits(mask: int) -> list[int]:
    return [i for i in range(mask.bit_length()) if (mask >> i) & 1]


def runs(mask: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for i in bits(mask):
        if out and out[-1][1] == i - 1:
            out[-1] = (out[-1][0], i)
        else:
            out.append((i, i))
    return out


class SymbolIndex:
    """One project's index."""

    def __init__(self, lines: list[dict]) -> None:
        head = lines[0]
        self.project: str = head["project"]
        self.pip: str = head["pip"]
        self.packages: list[str] = head["packages"]
        self.releases: list[str] = head["releases"]
        self.all = (1 << len(self.releases)) - 1
        self.modules: dict[str, dict] = {}
        self.registries: dict[str, dict[str, str]] = {}
        self.class_homes: dict[str, list[str]] = {}
        self.function_homes: dict[str, list[str]] = {}
        for line in lines[1:]:
            if "module" in line:
                self.modules[line["module"]] = line
                for cls in line.get("classes", {}):
                    self.class_homes.setdefault(cls, []).append(line["module"])
                for fn in line.get("functions", {}):
                    self.function_homes.setdefault(fn, []).append(line["module"])
            else:
                self.registries[line["registry"]] = line["keys"]

    # -- modules and their names --

    def module(self, name: str) -> int:
        node = self.modules.get(name)
        return parse_ranges(node["in"], self.all) if node else 0

    def name(self, module: str, name: str, depth: int = 0, reach: dict[str, frozenset[str]] | None = None) -> int:
        """Releases in which `from module import name` works: a name the module binds (or star-imports), or a
        submodule of that name. `reach` (star_reach()) lets a caller that asks of many names skip the star imports
        that cannot bring this one: the same answer."""
        node = self.modules.get(module)
        found = self.module(f"{module}.{name}")
        if node is None or depth > MAX_DEPTH:
            return found
        own = self.module(module)
        for part in ("names", "classes", "functions"):
            entry = node.get(part, {}).get(name)
            if entry is not None:
                found |= parse_ranges(entry if isinstance(entry, str) else entry.get("in", ""), own)
        for star, text in node.get("star", {}).items():
            if reach is None or star not in reach or name in reach[star]:
                found |= self.name(star, name, depth + 1, reach) & parse_ranges(text, own)
        return found

    def star_reach(self) -> dict[str, frozenset[str]]:
        """For each module, every name `name()` could find through it in some release: what it binds, its
        submodules, and what its star imports reach (a fixed point, so import cycles are followed to the end)."""
        reach: dict[str, set[str]] = {m: set().union(*(node.get(p, {}) for p in ("names", "classes", "functions")))
                                      for m, node in self.modules.items()}
        for m in self.modules:
            parent, _, child = m.rpartition(".")
            if parent in reach:
                reach[parent].add(child)
        changed = True
        while changed:
            changed = False
            for m, node in self.modules.items():
                for star in node.get("star", {}):
                    more = reach.get(star, set()) - reach[m]
                    if more:
                        reach[m] |= more
                        changed = True
        return {m: frozenset(names) for m, names in reach.items()}

    def importable_from(self, name: str, at: int) -> list[str]:
        """Modules from which `name` can be imported in the releases `at` (a mask), the shortest first: where a name
        that left one module went."""
        found = [m for m, node in self.modules.items()
                 if any(name in node.get(part, {}) for part in ("names", "classes", "functions")) and self.name(m, name) & at]
        return sorted(found, key=import_order)

    def homes(self, name: str, within: str | None = None) -> list[str]:
        """Modules that define `name` (a class or function), under the package `within` when given."""
        found = sorted(set(self.class_homes.get(name, [])) | set(self.function_homes.get(name, [])))
        return [m for m in found if within is None or m == within or m.startswith(within + ".")]

    # -- classes --

    def class_in(self, module: str, cls: str) -> tuple[dict, int] | None:
        node = self.modules.get(module)
        entry = node.get("classes", {}).get(cls) if node else None
        if entry is None:
            return None
        return entry, parse_ranges(entry.get("in", ""), self.module(module))

    def resolve(self, dotted: str) -> list[tuple[str, str]]:
        """(module, class) that a base written `dotted` names: the exact module's class, else the project's classes
        of that name (a re-exported base is defined elsewhere); nothing for a base outside the project."""
        module, _, cls = dotted.rpartition(".")
        if not any(dotted == p or dotted.startswith(p + ".") for p in self.packages):
            return []
        if self.class_in(module, cls):
            return [(module, cls)]
        return [(m, cls) for m in self.class_homes.get(cls, [])]

    def member(self, module: str, cls: str, attr: str, depth: int = 0, seen: frozenset = frozenset()) -> int:
        """Releases in which instances of module.cls have `attr` (its own attribute or method, or a base's)."""
        found = self.class_in(module, cls)
        if found is None or depth > MAX_DEPTH or (module, cls) in seen:
            return 0
        entry, own = found
        mask = 0
        if attr in entry.get("attrs", {}):
            mask |= parse_ranges(entry["attrs"][attr], own)
        if attr in entry.get("methods", {}):
            mask |= parse_ranges(entry["methods"][attr].get("in", ""), own)
        for base, text in entry.get("bases", {}).items():
            edge = parse_ranges(text, own)
            for bm, bc in self.resolve(base):
                mask |= self.member(bm, bc, attr, depth + 1, seen | {(module, cls)}) & edge
        return mask

    def method_params(self, module: str, cls: str, method: str, depth: int = 0, seen: frozenset = frozenset()) -> list[tuple[int, dict[str, int]]]:
        """[(releases the class has the method, {parameter: releases})] for the method as defined on the class or
        the nearest base that defines it."""
        found = self.class_in(module, cls)
        if found is None or depth > MAX_DEPTH or (module, cls) in seen:
            return []
        entry, own = found
        out = []
        m = entry.get("methods", {}).get(method)
        if m is not None:
            at = parse_ranges(m.get("in", ""), own)
            out.append((at, {p: parse_ranges(t, at) for p, t in m.get("params", {}).items()}))
        for base, text in entry.get("bases", {}).items():
            edge = parse_ranges(text, own)
            for bm, bc in self.resolve(base):
                for at, params in self.method_params(bm, bc, method, depth + 1, seen | {(module, cls)}):
                    out.append((at & edge, {p: r & edge for p, r in params.items()}))
        return out

    def function_params(self, module: str, fn: str) -> tuple[int, dict[str, int]] | None:
        node = self.modules.get(module)
        entry = node.get("functions", {}).get(fn) if node else None
        if entry is None:
            return None
        at = parse_ranges(entry.get("in", ""), self.module(module))
        return at, {p: parse_ranges(t, at) for p, t in entry.get("params", {}).items()}

    def registry(self, name: str, key: str) -> int | None:
        """Releases whose registry `name` has `key` (0: none has it); None when the project keeps no such registry."""
        keys = self.registries.get(name)
        if keys is None:
            return None
        return parse_ranges(keys[key], self.all) if key in keys else 0


class Indexes:
    """Symbol indexes by project, each read when first asked for: a drift line names its package, so most answers
    read one index, not all of them. `meta` is each project's packages and registries, known without reading it."""

    def __init__(self, meta: dict[str, dict], load) -> None:
        self.meta = meta  # project -> {"packages": [...], "registries": [...]}
        self._load = load  # project -> SymbolIndex
        self._read: dict[str, SymbolIndex] = {}

    @classmethod
    def of_files(cls, headers: dict[str, dict], text: Callable[[str], str]) -> "Indexes":
        """Indexes of index files: `headers` maps each file's name to its header_meta, `text(name)` gives the
        file's text when its project is first needed (from a folder, or from a bundle's section)."""
        names = {info["project"]: name for name, info in headers.items()}
        meta = {info["project"]: {"packages": info["packages"], "registries": info["registries"]} for info in headers.values()}
        return cls(meta, lambda project: index_from_text(text(names[project])))

    def __contains__(self, project: str) -> bool:
        return project in self.meta

    def __getitem__(self, project: str) -> SymbolIndex:
        if project not in self._read:
            self._read[project] = self._load(project)
        return self._read[project]

    def __bool__(self) -> bool:
        return bool(self.meta)

    def projects(self, packages: set[str] | None = None) -> list[str]:
        """The projects, those with a package among `packages` first, then by name."""
        return sorted(self.meta, key=lambda p: (not (set(self.meta[p]["packages"]) & (packages or set())), p))

    def values(self) -> list[SymbolIndex]:
        return [self[p] for p in sorted(self.meta)]


def loaded(indexes: dict[str, SymbolIndex]) -> Indexes:
    """Indexes over ones already read (tests, the MCP server's folder)."""
    meta = {p: {"packages": i.packages, "registries": sorted(i.registries)} for p, i in indexes.items()}
    return Indexes(meta, indexes.__getitem__)


def header_meta(path: Path) -> dict:
    """A file's project, packages and registry names, read from its header and its last lines only."""
    with path.open(encoding="utf-8") as f:
        head = json.loads(f.readline())
    registries = []
    with path.open("rb") as f:  # registry lines come last: read the file's tail backwards until a module line
        f.seek(0, 2)
        size = f.tell()
        tail = b""
        step = 1 << 16
        while size and b'"module"' not in tail:
            size = max(0, size - step)
            f.seek(size)
            tail = f.read(step) + tail
    for raw in tail.splitlines():
        if raw.startswith(b'{"keys"'):
            try:
                registries.append(json.loads(raw)["registry"])
            except ValueError:
                continue
    return {"project": head["project"], "packages": head["packages"], "registries": sorted(registries)}


def index_from_text(text: str) -> SymbolIndex:
    return SymbolIndex([json.loads(line) for line in text.splitlines() if line.strip()])


def read_index(path: Path) -> SymbolIndex:
    return index_from_text(path.read_text(encoding="utf-8"))


@lru_cache(maxsize=4)
def indexes(folder: Path) -> Indexes:
    """Every project's index in `folder` (data/catalog/symbols), by project slug, each read when first needed."""
    headers = {path.name: header_meta(path) for path in sorted(folder.glob("*.jsonl"))} if folder.is_dir() else {}
    return Indexes.of_files(headers, lambda name: (folder / name).read_text(encoding="utf-8"))
