"""File access under the data root that never follows a symbolic link.

A pull request can add a symlink under data/errors that points outside the repository (at a secret, at the
CI runner's files): following it would publish what it points to and echo it in a public CI log, and a writer
that followed a linked folder would write outside the repository. So readers report every link as a finding
and read nothing through it, and writers refuse to write through one. Opening with O_NOFOLLOW closes the gap
between the check and the open for the last component.
"""

from __future__ import annotations

import os
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
