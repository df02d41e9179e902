"""The knowledge bundle: the records and the catalog compiled once, in one file every reader opens.

`errdex match`, `errdex mcp` and an installed wheel read the bundle; none of them re-validates a record,
re-reads the catalog's JSON Lines or re-analyses a pattern. The bundle holds:
  - `api/<file>`: the checked records as the JSON API's files (manifest, documents, aliases, patterns), and
    `api/ids` each document's record id, in order (so that opening the bundle decodes none of them);
  - `match/<field>`: the matcher's tables (generator.match.prefilter.Tables) over every record's and catalog entry's
    pattern, a field a section with where each value starts in `match/<field>/at` (`Lines`: a scan decodes the
    values of the patterns it meets);
    `match/rows` (+ `match/blocks`): each pattern's fields, read only for a pattern that is hit; `match/hyperscan`:
    the prefilter's compiled Hyperscan database (when Hyperscan is installed);
  - `catalog`: each project's releases and settings; `catalog/<slug>/entries` its entries (JSON, by id, in
    compressed blocks of BLOCK_ITEMS) with `catalog/<slug>/ids`: an entry is decoded when it is asked for;
  - `sites` (+ `sites/starts`): every raise site under `"<file name>:<line>"`, in SITE_SHARDS shards compressed
    one a block, for reading traceback frames.

Content-addressed: the header names the hash of the data it was made from (`data_hash`: every record file, every
catalog file, the site settings and this code's version) and every section's sha256, checked the first time a
section is read whole. A section of zlib blocks (entries, pattern rows, sites) is read a block at a time, and each
block carries zlib's own check of what it holds (adler32), so damage there is found without hashing the whole
section (the sites alone are 46 MB, of which a traceback reads a few kB). A bundle whose data hash is not the data's
is stale or foreign: it is rebuilt, never read. Same data, same bytes.
"""

from __future__ import annotations

import array
import hashlib
import json
import mmap
import os
import sys
import weakref
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from .. import jsonline

MAGIC = b"errdex knowledge bundle\n"
FORMAT = 2
SITE_SHARDS = 8192  # a traceback's frame reads one shard: ~5 kB of JSON
BLOCK_ITEMS = 8  # entries (or pattern rows) compressed together: reading one decompresses ~5 kB (a big log reads a thousand;
# 32 a block made the bundle 4% smaller and reading a random entry or row 2-3x slower)
KEEP = 2  # bundles kept in the cache (the newest), so that switching between two branches does not rebuild
CATALOG_FILES = ("releases.json", "projects.yaml")  # what the catalog reader reads besides the JSON Lines
WHEEL_BUNDLE = Path(__file__).resolve().parents[1] / "data" / "knowledge.bundle"
_ROW = ("id", "regex", "message", "title", "url", "repo", "exception_class", "superseded_by", "literals",
        "ignore_case", "specificity", "anchored")


class BundleError(Exception):
    """The bundle cannot be read (damaged, another format, or not made from this data); the message says which."""


_ENCODER = json.JSONEncoder(ensure_ascii=True, sort_keys=True, separators=(",", ":"))  # one, for a million values


def _compact(value: Any) -> bytes:
    return _ENCODER.encode(value).encode("ascii")  # any str, lone surrogates too


# -- what a bundle is made from --------------------------------------------------------------------------------
def data_files(records: Path, catalog: Path) -> list[tuple[str, Path]]:
    """The files a bundle depends on, each with the name the hash gives it: the records' YAML, the catalog's."""
    out = [(f"errors/{'/'.join(parts)}", path) for parts, path in yaml_files(Path(records))]
    catalog = Path(catalog)
    if catalog.is_dir():
        out += [(f"catalog/{p.name}", p) for p in sorted(catalog.glob("*.jsonl")) if p.is_file()]
        out += [(f"catalog/{name}", catalog / name) for name in CATALOG_FILES if (catalog / name).is_file()]
        out += [(f"catalog/symbols/{p.name}", p) for p in sorted((catalog / "symbols").glob("*.jsonl")) if p.is_file()]
    return out


def yaml_files(root: Path) -> list[tuple[tuple[str, ...], Path]]:
    """The `*.yaml` files under `root` as `sorted(root.rglob("*.yaml"))` with `is_file()` finds them (a folder reached
    through a symbolic link is not entered, a file's link is followed), each with its parts below `root`: one
    scandir a folder, so that opening the bundle, which lists them every time, does not make a Path of each entry."""
    found: list[tuple[tuple[str, ...], Path]] = []

    def visit(folder: str, parts: tuple[str, ...]) -> None:
        try:
            entries = list(os.scandir(folder))
        except (FileNotFoundError, NotADirectoryError, PermissionError):  # as rglob: nothing found there
            return
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                visit(entry.path, (*parts, entry.name))
            elif entry.name.endswith(".yaml") and entry.is_file():
                found.append(((*parts, entry.name), Path(entry.path)))

    visit(os.fspath(root), ())
    found.sort(key=lambda item: item[0])
    return found


def data_hash(records: Path, catalog: Path, settings: dict[str, str]) -> str:
    """The sha256 of everything a bundle is made from: this code, the site settings and each file, by name."""
    from ..cachedir import code_version

    h = hashlib.sha256(f"errdex bundle {FORMAT}\n{code_version()}\n".encode())
    h.update(_compact(settings) + b"\n")
    hash_files(h, data_files(records, catalog))
    return h.hexdigest()


def hash_files(h: Any, files: Iterable[tuple[str, Path]]) -> None:
    """Each file into the hash `h`, by the name given it: the name, its length in bytes, then the bytes."""
    for name, path in files:
        content = path.read_bytes()
        h.update(f"{name}\n{len(content)}\n".encode("utf-8", "surrogateescape"))
        h.update(content)


def stat_key(records: Path, catalog: Path, settings: dict[str, str]) -> tuple[str, int]:
    """A key for the data as the file system describes it: each file's stat (generator.cachedir.stat_text), with this
    code's version and the settings; and the newest change time. The same key means the same files, unrewritten
    since data_hash last read them, so the data hash found then can be used again without reading them, once the
    newest file is settled (generator.cachedir.settled: two writes within one tick can leave the same stat)."""
    from ..cachedir import code_version, stat_text

    h = hashlib.sha256(f"errdex bundle stat {FORMAT}\n{code_version()}\n".encode())
    h.update(_compact(settings) + b"\n")
    newest = 0
    for name, path in data_files(records, catalog):
        st = path.stat()
        newest = max(newest, st.st_ctime_ns)
        h.update((stat_text(name, st) + "\n").encode("utf-8", "surrogateescape"))
    return h.hexdigest(), newest


def _shard(key: str) -> int:
    """The site shard of `"<file name>:<line>"` (a catalog path may hold any code point, lone surrogates too)."""
    return zlib.crc32(key.encode("utf-8", "surrogatepass")) % SITE_SHARDS


def _blocked(items: list[bytes], per_block: int = BLOCK_ITEMS) -> tuple[bytes, list[int]]:
    """`items` (compact JSON texts, which hold no raw line break) as zlib blocks of `per_block` lines each, and where
    each block starts (plus the end): item i is line i % per_block of block i // per_block."""
    out, starts, at = [], [], 0
    for i in range(0, len(items), per_block):
        block = zlib.compress(b"\n".join(items[i:i + per_block]), 1)
        starts.append(at)
        out.append(block)
        at += len(block)
    return b"".join(out), starts + [at]


def encode(sections: dict[str, bytes], summary: dict[str, Any], data: str) -> bytes:
    """The bundle's bytes: magic, the header's length and the header (JSON), then the sections in name order."""
    table, at = {}, 0
    for name in sorted(sections):
        body = sections[name]
        table[name] = [at, len(body), hashlib.sha256(body).hexdigest()]
        at += len(body)
    from ..cachedir import code_version

    header = _compact({"format": FORMAT, "code": code_version(), "data_hash": data, "summary": summary, "sections": table})
    return MAGIC + f"{len(header):016d}\n".encode("ascii") + header + b"".join(sections[n] for n in sorted(sections))


# -- reading ---------------------------------------------------------------------------------------------------
class Bundle:
    """An open bundle: its header, and its sections read (and checked against their sha256) when first asked."""

    def __init__(self, path: Path):
        self.path = Path(path)
        try:
            with self.path.open("rb") as handle:
                head = handle.read(len(MAGIC) + 17)
                if head[: len(MAGIC)] != MAGIC or not head[len(MAGIC):-1].isdigit() or head[-1:] != b"\n":
                    raise BundleError(f"{self.path} is not an errdex knowledge bundle")
                size = int(head[len(MAGIC):-1])
                header = json.loads(handle.read(size))
                self._base = len(MAGIC) + 17 + size
                self._map = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ) if self.path.stat().st_size else None
            # Blocks are read with pread, not through the map: a few hundred scattered reads of the raise sites (a
            # traceback's frames) would map most of their 46 MB into the process (the kernel maps pages around each).
            self._fd = os.open(self.path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            weakref.finalize(self, os.close, self._fd)
        except OSError as exc:
            raise BundleError(f"cannot read {self.path}: {exc.strerror or exc}") from None
        except ValueError as exc:
            raise BundleError(f"{self.path}: its header is not JSON: {exc}") from None
        if not isinstance(header, dict) or header.get("format") != FORMAT or not isinstance(header.get("sections"), dict):
            raise BundleError(f"{self.path} is a bundle of another format; make it again with errdex bundle")
        self.header = header
        self.summary: dict[str, Any] = header.get("summary") or {}
        self._checked: dict[str, bytes] = {}

    @property
    def data_hash(self) -> str:
        return str(self.header.get("data_hash", ""))

    def has(self, name: str) -> bool:
        return name in self.header["sections"]

    def section(self, name: str) -> bytes:
        found = self._checked.get(name)
        if found is not None:
            return found
        try:
            at, size, digest = self.header["sections"][name]
            body = self._map[self._base + at:self._base + at + size] if self._map is not None else b""
        except (KeyError, TypeError, ValueError):
            raise BundleError(f"{self.path} has no section {name!r}") from None
        if len(body) != size or hashlib.sha256(body).hexdigest() != digest:
            raise BundleError(f"{self.path}: section {name!r} does not match its sha256 (a damaged or partial file)")
        self._checked[name] = body
        return body

    def json(self, name: str) -> Any:
        return jsonline.read(self.section(name))

    def span(self, name: str, start: int, end: int) -> bytes:
        """Bytes `start` to `end` of a section, unchecked: for a section of zlib blocks (`Blocks`), whose blocks
        zlib checks as it decompresses them."""
        found = self._checked.get(name)
        if found is not None:
            return found[start:end]
        try:
            at, size, _ = self.header["sections"][name]
        except (KeyError, TypeError, ValueError):
            raise BundleError(f"{self.path} has no section {name!r}") from None
        if not 0 <= start <= end <= size or len(body := os.pread(self._fd, end - start, self._base + at + start)) != end - start:
            raise BundleError(f"{self.path}: section {name!r} is shorter than its table says (a damaged or partial file)")
        return body


class Lines(Sequence):
    """A list stored as compact JSON values one after another (`lines_of`) with where each starts (a section of
    little-endian uint32): an item is decoded when first asked for, so that reading a field of a hundred thousand
    patterns costs what the patterns a scan meets cost."""

    def __init__(self, body: bytes, starts: bytes):
        self._body = body
        self._starts = array.array("I")
        self._starts.frombytes(starts)
        if sys.byteorder != "little":
            self._starts.byteswap()
        self._made: dict[int, Any] = {}

    def __len__(self) -> int:
        return len(self._starts) - 1 if self._starts else 0

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        made = self._made.get(index, _NONE)
        if made is _NONE:
            made = self._made[index] = jsonline.read(self._body[self._starts[index]:self._starts[index + 1]])
        return made


_NONE = object()


def lines_of(values: Iterable[Any]) -> tuple[bytes, bytes]:
    """`values` as `Lines` reads them: the compact JSON texts one after another, and where each starts (plus
    the end) as little-endian uint32."""
    texts = [_compact(v) for v in values]
    starts = array.array("I", [0])
    for text in texts:
        starts.append(starts[-1] + len(text))
    if sys.byteorder != "little":
        starts.byteswap()
    return b"".join(texts), starts.tobytes()


class Blocks:
    """Items stored by `_blocked` in section `name` of `bundle`: item i read by decompressing its block (zlib checks
    it), which is then kept."""

    def __init__(self, bundle: Bundle, name: str, starts: list[int], count: int, per_block: int = BLOCK_ITEMS):
        self._bundle, self._name, self._starts, self._count, self._per = bundle, name, starts, count, per_block
        self._blocks: dict[int, list[bytes]] = {}

    def __len__(self) -> int:
        return self._count

    def __getitem__(self, i: int) -> bytes:
        n = i // self._per
        lines = self._blocks.get(n)
        if lines is None:  # kept: at most the section's size, decompressed (a big log reads thousands of blocks)
            try:
                lines = zlib.decompress(self._bundle.span(self._name, self._starts[n], self._starts[n + 1])).split(b"\n")
            except zlib.error as exc:
                raise BundleError(f"{self._bundle.path}: block {n} of section {self._name!r} is damaged ({exc})") from None
            self._blocks[n] = lines
        return lines[i % self._per]
