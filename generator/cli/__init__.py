"""The `errdex` command: a thin layer that parses arguments and calls the pipeline's stages."""

from __future__ import annotations

import sys

from ..terminal import Escaping
from .parser import build_parser


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
