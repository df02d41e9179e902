"""Half the work in a second process: the one way errdex uses both cores of a machine for one task (a big log's
second half, a big catalog file's second half of patterns).

The second process is forked, so it starts with everything the first has loaded (a matcher's compiled patterns,
a Hyperscan database) and nothing is pickled on the way in; only its result comes back through a pipe."""

from __future__ import annotations

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
