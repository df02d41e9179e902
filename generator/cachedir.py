"""The local cache (default ~/.cache/errdex, or $ERRDEX_CACHE): one root for harvested sources, release artifacts
and the findings of checks; and the findings of one checked file, kept by the hash of all that decides them.

A finding is cached under the sha256 of the checks' own code (every module of this package), what the check is
told (the file's path, its other inputs) and the file's bytes: a change to any of them is another key, so a cached
result is never stale. An entry that does not read back as findings is ignored and made again. A file read from
disk is known by the sha256 of its bytes, remembered by its stat (`file_digest`).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, fields
from functools import lru_cache
from pathlib import Path
from typing import Any

from .findings import Finding

_FIELDS = [f.name for f in fields(Finding)]


def write_atomic(dest: Path, content: bytes) -> None:
    """`content` at `dest`, whole or not at all: written beside it under this process's own name, then moved
    into place (processes that share a cache never see a half-written file)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(f".{dest.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(content)
        os.replace(tmp, dest)
    finally:
        tmp.unlink(missing_ok=True)


def write_kept(dest: Path, content: bytes, siblings: Iterable[Path], keep: int) -> None:
    """`content` at `dest` (write_atomic), then of `siblings` (the files of its kind, `dest` among them) only the
    `keep` most recently written are kept: a cache folder holds a few versions of a thing, never all of them."""
    write_atomic(dest, content)
    for old in sorted(siblings, key=lambda p: p.stat().st_mtime, reverse=True)[keep:]:
        old.unlink(missing_ok=True)


def default_cache() -> Path:
    """The cache root shared by harvest, verify-sources and validate."""
    return Path(os.environ.get("ERRDEX_CACHE") or Path.home() / ".cache" / "errdex")


@lru_cache(maxsize=1)
def code_version() -> str:
    """The sha256 of every Python module of this package: checks, loaders and schemas alike."""
    digest = hashlib.sha256()
    root = Path(__file__).resolve().parent
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def cached_findings(kind: str, path: Path | str, inputs: str, compute: Callable[[], Iterable[Finding]],
                    content: bytes | None = None) -> list[Finding]:
    """The findings `compute` gives for the file at `path` (its bytes, or `content` when the caller has read them;
    `inputs`: what else decides them), read from the cache when the same code checked the same bytes before.
    ERRDEX_NO_CACHE=1 always computes."""
    if os.environ.get("ERRDEX_NO_CACHE") == "1":
        return list(compute())
    digest = hashlib.sha256(f"{code_version()}\0{kind}\0{path}\0{inputs}\0".encode("utf-8", "surrogateescape"))
    if content is not None:
        digest.update(content)
    else:
        known = file_digest(path)
        if known is None:
            return list(compute())
        digest.update(known.encode("ascii"))
    key = digest.hexdigest()
    entry = default_cache() / "findings" / key[:2] / f"{key}.json"
    found = _read(entry)
    if found is not None:
        return found
    result = list(compute())
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        tmp = entry.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps([asdict(f) for f in result], ensure_ascii=False, sort_keys=True), encoding="utf-8")
        tmp.replace(entry)
    except OSError:
        pass  # a cache that cannot be written costs time, never an answer
    return result


# A file's change time is kept to the kernel's tick (a few ms), so two writes within one tick can leave the same stat:
# a file changed this recently is read every time, not remembered (git calls such an entry racily clean).
SETTLED_NS = 2_000_000_000


def stat_text(name: str, st: os.stat_result) -> str:
    """What the file system says of a file, as a memo's key holds it: its name, size, modification and change times
    (ns), inode and device. A write changes the change time, which no tool sets back."""
    return f"{name}\0{st.st_size}\0{st.st_mtime_ns}\0{st.st_ctime_ns}\0{st.st_ino}\0{st.st_dev}"


def settled(ctime_ns: int) -> bool:
    """Whether a file last changed at `ctime_ns` may be remembered by its stat (SETTLED_NS ago or more)."""
    return time.time_ns() - ctime_ns > SETTLED_NS


def file_digest(path: Path | str) -> str | None:
    """The sha256 of a file's bytes (hex), remembered under what the file system says of the file (`stat_text`), so
    that a file not written since is not read again (the catalog's 160 MB took 0.2 s of every `validate`). None
    when it cannot be read."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    said = stat_text(os.path.abspath(path), st)
    memo = default_cache() / "findings" / "stat" / hashlib.sha256(said.encode("utf-8", "surrogateescape")).hexdigest()
    known = remembered_digest(memo)
    if known is not None:
        return known
    try:
        digest = sha256_file(path)
    except OSError:
        return None
    if settled(st.st_ctime_ns):  # a file written just now may be written again within one tick
        try:
            write_atomic(memo, digest.encode("ascii"))
        except OSError:
            pass  # not remembered: read again next time
    return digest


def sha256_file(path: Path | str) -> str:
    """The sha256 of a file's bytes (hex), read a MiB at a time."""
    digest = hashlib.sha256()
    with open(path, "rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


MEMOS_KEPT = 16  # memos of one kind remembered by their files' stat (a few checkouts' worth)


def remembered(memo: Path, newest_ctime_ns: int, make: Callable[[], Any], read: Callable[[Path], Any],
               encode: Callable[[Any], bytes]) -> Any:
    """What `make` gives, remembered at `memo`, a file named by what the file system says of the files it is made
    from (`stat_text`; the newest of them changed at `newest_ctime_ns`): read back with `read` (None when the memo
    is missing or holds anything else), else made, and kept (the newest MEMOS_KEPT memos beside it) once those files
    are settled."""
    known = read(memo)
    if known is not None:
        return known
    made = make()
    if settled(newest_ctime_ns):  # a file written just now may be written again within one tick
        write_kept(memo, encode(made), memo.parent.iterdir(), MEMOS_KEPT)
    return made


def remembered_digest(memo: Path) -> str | None:
    """The sha256 (64 lowercase hex digits) a memo file holds; None when there is none or it holds anything else."""
    try:
        known = memo.read_text(encoding="ascii")
    except (OSError, ValueError):
        return None
    return known if len(known) == 64 and set(known) <= _HEX else None


_HEX = frozenset("0123456789abcdef")


def _read(entry: Path) -> list[Finding] | None:
    try:
        rows = json.loads(entry.read_text(encoding="utf-8"))
        if not isinstance(rows, list):
            return None
        return [Finding(**{name: row[name] for name in _FIELDS}) for row in rows]
    except (OSError, ValueError, TypeError, KeyError):
        return None
