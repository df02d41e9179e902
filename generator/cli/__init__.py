"""The `errdex` command: a thin layer that parses arguments and calls the pipeline's stages."""

from __future__ import annotations

import os
import sys

from ..terminal import Escaping
from .parser import build_parser

_AT_ONCE = False  # set by `entry`: the process ends as soon as a command that calls `end` has written its answer


def entry() -> None:
    """The `errdex` command itself (the console script, `python -m generator`): `main`, in a process of its own."""
    global _AT_ONCE
    _AT_ONCE = True
    sys.exit(main())


def end(code: int) -> int:
    """A command's last step, its answer written: in the `errdex` process, the output is flushed and the process
    ends here, without freeing one object at a time what the command holds (a big log's answer holds hundreds of MB
    of compiled patterns and decoded entries: 0.05-0.1 s to free, then the interpreter's own teardown; the system
    takes the memory back whole). Anywhere else (tests, a program that calls `main`) it returns `code`."""
    if not _AT_ONCE:
        return code
    try:
        sys.__stdout__.flush()
    except BrokenPipeError:  # the reader went away (`| head`): as main says
        code = 0
    except (OSError, ValueError):
        pass
    try:
        sys.__stderr__.flush()
    except (OSError, ValueError):
        pass
    os._exit(code)


def main(argv: list[str] | None = None) -> int:
    """Run the CLI; returns the exit code (0 ok, 1 findings/failure, 2 usage).

    What a command prints goes through `Escaping` (generator/terminal.py): no text from data can steer the
    terminal, whichever line prints it. `errdex mcp` speaks its protocol on stdout, so only its stderr is."""
    saved = sys.stdout, sys.stderr
    sys.stderr = Escaping(sys.stderr)
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:
            return int(exc.code or 0)
        if args.command != "mcp":
            sys.stdout = Escaping(sys.stdout)
        return args.func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    finally:
        sys.stdout, sys.stderr = saved
