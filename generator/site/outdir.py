"""Putting a finished build in place of the last one: two renames, then the old tree deleted where nobody waits
for it (a site of 130,000 files takes seconds to delete, and the new one is in place already)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path


def swap_in(new: Path, out: Path, scratch: Path | None = None) -> None:
    """Replace `out` by `new` (same file system: two renames; the old tree is removed only afterwards, in the
    background: a site of 130,000 files takes seconds to delete, and the new one is in place already). `scratch`:
    the build's working folder (beside `out`), removed with the old tree once `new` is in place."""
    retired = out.with_name(f".{out.name}.old-{os.getpid()}")  # what goes to the removal, under one name
    old = None
    if out.exists():
        old = retired
        os.rename(out, old)
    try:
        os.rename(new, out)
    except OSError:
        if old is not None:
            os.rename(old, out)
        raise
    if scratch is not None and scratch.is_dir():  # under the old tree's name: a removal cut short is finished later
        try:
            if old is None:
                old = retired
                os.rename(scratch, old)
            else:
                os.rename(scratch, old / f".{scratch.name}")
        except OSError:
            pass  # left where it is, for the caller to remove: `new` is in place whatever happens to it
    # with what an earlier build left being removed when it was stopped (its process gone)
    stale = [p for p in out.parent.glob(f".{out.name}.old-*") if p != old and not _running(p.name.rsplit("-", 1)[-1])]
    _remove([p for p in [old, *stale] if p is not None])


def _running(pid: str) -> bool:
    try:
        os.kill(int(pid), 0)
    except (ValueError, ProcessLookupError):
        return False
    except PermissionError:
        return True
    return True


def _remove(trees: list[Path]) -> None:
    """Delete `trees` in a detached process (forked twice, so that nothing waits for it and no process is left
    unreaped), or here where fork is not available."""
    if not trees:
        return
    if not hasattr(os, "fork"):
        for tree in trees:
            shutil.rmtree(tree, ignore_errors=True)
        return
    child = os.fork()
    if child == 0:  # the first child: starts the one that deletes, and ends at once
        try:
            if os.fork() == 0:
                os.setsid()  # out of the terminal's process group: a Ctrl-C meant for the next command spares it
                quiet = os.open(os.devnull, os.O_RDWR)  # and holding no pipe of the caller's open: nobody waits for it
                for fd in (0, 1, 2):
                    os.dup2(quiet, fd)
                os.closerange(3, 65536)
                for tree in trees:
                    shutil.rmtree(tree, ignore_errors=True)
        finally:
            os._exit(0)
    os.waitpid(child, 0)
