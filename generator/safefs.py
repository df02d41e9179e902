"""File access under the data root that never follows a symbolic link.

A pull request can add a symlink under data/errors that points outside the repository (at a secret, at the
CI runner's files): following it would publish what it points to and echo it in a public CI log, and a writer
that followed a linked folder would write outside the repository. So readers report every link as a finding
and read nothing through it, and writers refuse to write through one. Opening with O_NOFOLLOW closes the gap
between the check and the open for the last component.
"""

from __future__ import annotations

import os
from stat import S_ISREG
from pathlib import Path


class UnsafePath(Exception):
    """A path leaves its root or passes through a symbolic link."""


def link_on_the_way(path: Path, root: Path) -> Path | None:
    """The first symbolic link among `root` and the components of `path` below it, or None."""
    root = Path(os.path.abspath(root))
    path = Path(os.path.abspath(path))
    if os.path.islink(root):
        return root
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return None
    here = root
    for part in parts:
        here = here / part
        if os.path.islink(here):
            return here
    return None


def inside(path: Path, root: Path) -> bool:
    """True when `path`, with every link resolved, lies within `root` (resolved too)."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def write_text(path: Path, text: str, root: Path, *, exclusive: bool = False) -> None:
    """Write `text` to `path` under `root`, creating folders as needed, never through a symbolic link.

    With `exclusive`, an existing file is an error (FileExistsError) rather than replaced."""
    root = Path(os.path.abspath(root))
    path = Path(os.path.abspath(path))
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        raise UnsafePath(f"{path} is outside {root}") from None
    if os.path.islink(root):
        raise UnsafePath(f"{root} is a symbolic link; refusing to write through it")
    root.mkdir(parents=True, exist_ok=True)
    here = root
    for part in parts[:-1]:
        here = here / part
        if os.path.islink(here):
            raise UnsafePath(f"{here} is a symbolic link; refusing to write through it")
        if not here.exists():
            os.mkdir(here)
    flags = os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | (os.O_EXCL if exclusive else os.O_TRUNC)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if os.path.islink(path):
            raise UnsafePath(f"{path} is a symbolic link; refusing to write through it") from None
        raise exc
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(text)


class Reuse:
    """New files written where an earlier build may have written the same bytes: such a file is hard-linked from
    the earlier build (`old`, the folder that corresponds to the one being written) instead of written again. A
    link writes no data, and deleting the earlier build afterwards frees no data (on a file system that discards
    freed blocks, deleting 100,000 written files slows every file created meanwhile several times over).

    A file is taken only from a folder under `old` with no symbolic link on the way, only as a link to a regular
    file, and only when the linked file's bytes are those to be written: the check reads the file now in the new
    tree, so nothing can change between the check and what is kept. Anything else (no earlier build, other bytes,
    another file system, a link refused) is written as a new file, never through anything already there."""

    def __init__(self, old: Path | None):
        usable = old is not None and os.path.isdir(old) and not os.path.islink(old)
        self.old = os.path.realpath(old) if usable else None
        self._folders: dict[str, bool] = {}  # folder under `old` -> whether no link is on its way
        self.linked = 0

    @classmethod
    def within(cls, previous: Path | None, rel: str) -> "Reuse":
        """Files to take from folder `rel` of an earlier build's tree `previous` (none when there is no earlier build)."""
        return cls(previous / rel if previous else None)

    def write(self, target: Path | str, rel: str, data: bytes) -> None:
        """Put `data` at `target` (a path that does not exist yet; `rel`: its path below the new tree's root, '/'
        between folders)."""
        if self.old is not None and self._take(os.fspath(target), rel, data):
            self.linked += 1
            return
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o666)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)

    def _take(self, target: str, rel: str, data: bytes) -> bool:
        old = os.path.join(self.old, *rel.split("/"))
        folder = os.path.dirname(old)
        clear = self._folders.get(folder)
        if clear is None:
            clear = self._folders[folder] = os.path.realpath(folder) == folder and folder.startswith(self.old)
        if not clear:
            return False
        try:  # a first look, so that a file of another size costs no link
            st = os.lstat(old)
            if st.st_size != len(data) or not S_ISREG(st.st_mode):
                return False
            os.link(old, target, follow_symlinks=False)
        except OSError:
            return False
        try:  # what is linked now is what is judged
            fd = os.open(target, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:  # a link to a symbolic link
            os.unlink(target)
            return False
        with open(fd, "rb") as handle:
            st = os.fstat(fd)
            same = st.st_size == len(data) and S_ISREG(st.st_mode) and handle.read(len(data) + 1) == data
        if not same:
            os.unlink(target)
        return same

