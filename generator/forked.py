"""Half the work in a second process: the one way errdex uses both cores of a machine for one task (a big log's
parts, a big catalog file's second half of patterns).

The second process is forked, so it starts with everything the first has loaded (a matcher's compiled patterns,
a Hyperscan database) and nothing is pickled on the way in; only its result comes back through a pipe."""

from __future__ import annotations

import gc
import multiprocessing
import os
from collections.abc import Callable
from typing import Any


def available() -> bool:
    """Whether a second process can take half: two or more cores, and fork (Linux, macOS)."""
    return (os.cpu_count() or 1) > 1 and "fork" in multiprocessing.get_all_start_methods()


def start(work: Callable[[], Any]) -> Callable[[], Any]:
    """Run `work` in a forked process from now on; the function returned waits for its result (an exception in
    the second process is raised here, as a RuntimeError naming it)."""
    context = multiprocessing.get_context("fork")
    reader, writer = context.Pipe(duplex=False)

    def child() -> None:
        try:
            writer.send((True, work()))
        except BaseException as exc:  # noqa: BLE001 - reported to the first process, which raises it
            writer.send((False, f"{type(exc).__name__}: {exc}"))

    process = context.Process(target=child, daemon=True)
    process.start()
    writer.close()

    def result() -> Any:
        try:
            ok, value = reader.recv()
        except EOFError:
            raise RuntimeError("the second process ended without a result") from None
        finally:
            process.join()
            reader.close()
        if not ok:
            raise RuntimeError(f"the second process failed: {value}")
        return value

    return result


MAX_SHARES = 255  # tasks `shared` hands out (one byte a ticket)


def shared(count: int, work: Callable[[int], Any], first: Callable[[], Any] | None = None) -> list[Any]:
    """[work(0), ..., work(count - 1)], done by this process and a forked one side by side, each taking the next task
    not yet taken as it comes free (so a process slowed by the machine takes fewer), each its tasks in increasing
    order; `first`, when given, runs in this process before it takes any. Tickets in a pipe hand the tasks out: a
    read of one byte takes one, whole, whichever process reads it."""
    if not 0 < count <= MAX_SHARES:
        raise ValueError(f"count must be 1 to {MAX_SHARES}, not {count}")
    tickets, writer = os.pipe()
    try:
        os.write(writer, bytes(range(count)))  # at most 255 bytes: within any pipe's buffer
    finally:
        os.close(writer)

    def take() -> list[tuple[int, Any]]:
        done = []
        while ticket := os.read(tickets, 1):
            done.append((ticket[0], work(ticket[0])))
        return done

    # What this process has made so far is frozen while both work (gc.freeze): neither process's collector walks
    # it again, and the second does not copy the pages it touches doing so. Unfrozen once both are done.
    gc.freeze()
    try:
        rest = start(take)
        try:
            if first is not None:
                first()
            mine = take()
        finally:
            theirs = rest()  # waited for whatever happened here (the second process takes the tasks left)
    finally:
        os.close(tickets)
        gc.unfreeze()
    return [value for _, value in sorted(mine + theirs, key=lambda pair: pair[0])]
