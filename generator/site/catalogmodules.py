"""Which page of the catalog a message is on: its module, the folders of the file that raises it, and for a
module of many messages, the folders or files one level deeper (generator.site.catalogpages renders the pages)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MODULE_DEPTH = 3  # a module is a file's folder, cut to this many levels (vllm/model_executor/layers)
MODULE_ENTRIES = 400  # a module page holds at most this many messages, where its folders allow (split_modules)
MODULE_MIN = 40  # a part of a split module with fewer messages stays on the module's own page


def module_of(path: str, depth: int = MODULE_DEPTH) -> str:
    """The module a raise site is filed under: the folders of its path, at most `depth` of them; past the folders,
    the file itself."""
    folders = path.split("/")[:-1]
    if depth > max(len(folders), MODULE_DEPTH):  # split past its folders (split_modules): the file
        return path
    return "/".join(folders[:depth]) or "(top level)"


def split_modules(entries: list[Any], site: Callable[[Any], Any], depth: int = MODULE_DEPTH) -> dict[str, list[Any]]:
    """Entries filed by module, a module of more than MODULE_ENTRIES entries split one folder deeper (down to its
    files), so that no page (and no search fragment) is a whole package's messages; the parts of fewer than
    MODULE_MIN entries stay together under the module's own name."""
    grouped: dict[str, list[Any]] = {}
    for entry in entries:
        where = site(entry)
        grouped.setdefault(module_of(where.path, depth) if where else "(top level)", []).append(entry)
    out: dict[str, list[Any]] = {}
    for module, members in grouped.items():
        deeper = depth < 16 and len(members) > MODULE_ENTRIES and module not in ("(top level)",) and not module.endswith(".py")
        if deeper:
            parts = split_modules(members, site, depth + 1)
            rest = [e for part in parts.values() if len(part) < MODULE_MIN for e in part]  # small parts stay in the module
            kept = {name: part for name, part in parts.items() if len(part) >= MODULE_MIN}
            if len(kept) > 1 or (kept and rest) or len(rest) > MODULE_ENTRIES:
                out.update(kept)
                out.update(_by_files(module, rest, site))
                continue
        out[module] = members
    return out


def _by_files(module: str, entries: list[Any], site: Callable[[Any], Any]) -> dict[str, list[Any]]:
    """A module's own entries on one page, or, past MODULE_ENTRIES, on pages of whole files in order, each named
    by its first and last file: "vllm/model_executor/models (aria.py – gemma3.py)"."""
    if len(entries) <= MODULE_ENTRIES:
        return {module: entries} if entries else {}
    files: dict[str, list[Any]] = {}
    for entry in entries:
        where = site(entry)
        files.setdefault(where.path if where else "", []).append(entry)
    chunks: list[list[str]] = [[]]
    count = 0
    for path in sorted(files):
        if chunks[-1] and count + len(files[path]) > MODULE_ENTRIES:
            chunks.append([])
            count = 0
        chunks[-1].append(path)
        count += len(files[path])
    name = lambda path: path.rsplit("/", 1)[-1] or "(top level)"  # noqa: E731
    return {f"{module} ({name(c[0])} – {name(c[-1])})" if len(c) > 1 else f"{module} ({name(c[0])})":
            [e for path in c for e in files[path]] for c in chunks}
