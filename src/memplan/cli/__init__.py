"""The `memplan` command: thin wiring from arguments to layers and back.

One module per command (`add_command` builds its parser, `run` wires the
layers); `args` holds what they share. Every failure a user can cause ends here
as one line on stderr and an exit code (2 bad input, 1 violated budget).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from .. import __version__
from ..errors import MemplanError
from . import check, copies, opt, pack, passes, place, plan, targets

COMMANDS = (pack, check, opt, copies, place, plan, passes, targets)


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments are bad input like any other: one line, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="memplan",
        description="Bounded, placed and minimal memory allocation for ML compilers.")
    parser.add_argument("--version", action="version", version=f"memplan {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        command.add_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except MemplanError as err:
        print(f"memplan: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("memplan: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`memplan ... | head`): not an error worth a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


__all__ = ["build_parser", "main"]
