"""The `memplan` command: thin wiring from arguments to layers and back.

One module per command (`add_command` builds its parser, `run` wires the
layers, `EXIT_1` says what exit status 1 means for it, None when it has no
budget); `args` holds what they share. Every run ends here with 0, 1 or 2 and
nothing else (`errors.py`): a failure is one line on stderr, a bug in memplan
included (`MEMPLAN_TRACEBACK=1` adds its traceback).
"""

from __future__ import annotations

import argparse
import errno
import gc
import os
import sys
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import NoReturn

from .. import __version__
from ..errors import EXIT_NO_RESULT, MemplanError, internal_error_line
from . import check, copies, opt, pack, passes, place, plan, targets

COMMANDS = (pack, check, opt, copies, place, plan, passes, targets)


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments are bad input like any other: one line, exit 2."""

    def format_help(self) -> str:
        # A command whose full description needs heavy imports builds it only for --help.
        describe = getattr(self, "describe", None)
        if describe is not None:
            self.description = describe()
        return super().format_help()

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
    parser.epilog = exit_status_help("a command's result breaks a budget or has errors")
    for command, sub in zip(COMMANDS, commands.choices.values(), strict=True):
        sub.epilog = exit_status_help(command.EXIT_1)
    return parser


@contextmanager
def _rare_full_collections() -> Iterator[None]:
    """A command builds its results once and keeps them to the end: every full collection
    walks all of them (every IR wrapper and report record of a large file) and finds little
    to free. Checking a 150,000-op file ran five, 0.5 s of its CPU, for no lower peak memory.
    Young objects are still collected as usual; the old thresholds come back afterwards."""
    young, middle, old = gc.get_threshold()
    gc.set_threshold(young, middle, max(old, 1000))
    try:
        yield
    finally:
        gc.set_threshold(young, middle, old)


def exit_status_help(exit_1: str | None) -> str:
    one = f"1 {exit_1} (nothing written); " if exit_1 else ""
    return ("exit status: 0 success (each file written is named on stderr); " + one
            + "2 bad input, or memplan could not finish (one line on stderr says why; "
            "nothing written)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with _rare_full_collections():
            code = args.run(args)
        sys.stdout.flush()  # a full device fails here, where it can still be said in one line
        return code
    except MemplanError as err:
        print(f"memplan: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("memplan: interrupted; nothing written", file=sys.stderr)
        return EXIT_NO_RESULT
    except BrokenPipeError:
        # The reader went away (`memplan ... | head`): nothing to say, and no one to say it to.
        _drop_stdout()
        return EXIT_NO_RESULT
    except OSError as err:
        if err.errno not in _DEVICE_FULL:
            return _internal_error(err)
        _drop_stdout()  # what is still buffered cannot be written either
        print(f"memplan: cannot write: {os.strerror(err.errno)} (the device is full); "
              "nothing written", file=sys.stderr)
        return EXIT_NO_RESULT
    except Exception as err:  # noqa: BLE001 - the one place a bug becomes one line
        return _internal_error(err)


# The output's device has no room: the user's disk, not memplan, and not the input.
_DEVICE_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def _drop_stdout() -> None:
    """Point stdout at /dev/null so Python's flush at exit finds nothing to complain of."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


def _internal_error(err: BaseException) -> int:
    if os.environ.get("MEMPLAN_TRACEBACK"):
        traceback.print_exception(err)
    print(f"memplan: {internal_error_line(err)}", file=sys.stderr)
    return EXIT_NO_RESULT


__all__ = ["build_parser", "main"]
