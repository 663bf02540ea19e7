"""The `memplan` command: thin wiring from arguments to layers and back.

One module per command (`add_command` builds its parser, `run` calls the
library, `memplan.api`, and formats its result, `EXIT_1` says what exit status 1
means for it, None when it has no budget); `args` holds what they share. Only the
module of the command being run is imported: the listing of `memplan --help` comes
from `COMMANDS`. Every run ends here with 0, 1 or 2 and nothing else (`errors.py`):
a failure is one line on stderr, a missing optional library included (`extras.py`),
and a bug in memplan too (`MEMPLAN_TRACEBACK=1` adds its traceback).
"""

from __future__ import annotations

import argparse
import errno
import gc
import importlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from types import ModuleType
from typing import NoReturn

from ..errors import EXIT_NO_RESULT, InputError, MemplanError, internal_error_line
from ..extras import Extra, MissingExtra, missing_extra_of, require


@dataclass(frozen=True)
class Command:
    name: str  # also the module's name in memplan.cli
    summary: str  # its line in `memplan --help`; the module's parser says the same
    extra: Extra | None  # what it always needs beyond the base install (plan: per model)


COMMANDS = (
    Command("pack", "pack buffers with lifetimes at static offsets", None),
    # MLIR needs [mlir], a TVMScript module [tvm]: the command asks for the one it reads.
    Command("check", "census of allocations; stack, frame, workgroup and constant-write "
            "diagnostics", None),
    Command("opt", "hoist and bound allocations, rewrite constant destinations and state "
            "appends, place buffers", Extra.MLIR),
    Command("copies", "transient and copied bytes before/after the tensor rewrites, beside "
            "IREE's stream figures", Extra.MLIR),
    Command("place", "decide which memory space holds each allocation", Extra.MLIR),
    Command("plan", "plan a whole model's tensor arenas", None),
    Command("passes", "list the passes `memplan opt -p` can run", Extra.MLIR),
    Command("targets", "list target descriptions or show one", None),
)
BY_NAME = {c.name: c for c in COMMANDS}


def command_module(name: str) -> ModuleType:
    return importlib.import_module(f"{__name__}.{name}")


class OneLineParser(argparse.ArgumentParser):
    """Bad arguments are bad input like any other: one line, exit 2."""

    # argparse also makes a formatter in add_argument (to check a metavar) and in
    # add_subparsers (to name a command's prog), where no width matters; the default width
    # is the terminal's, asked of shutil, which loads zlib, bz2 and lzma: 2-4 ms of every
    # run (issue 35: start-up). Only text a reader sees wraps to the terminal.
    _for_reader = False

    def _get_formatter(self) -> argparse.HelpFormatter:
        if self._for_reader:
            return super()._get_formatter()
        return self.formatter_class(prog=self.prog, width=sys.maxsize)

    def _read(self, text: Callable[[], str]) -> str:
        self._for_reader = True
        try:
            return text()
        finally:
            self._for_reader = False

    def format_usage(self) -> str:
        return self._read(super().format_usage)

    def format_help(self) -> str:
        # A command whose full description needs heavy imports builds it only for --help.
        describe = getattr(self, "describe", None)
        if describe is not None:
            self.description = describe()
        return self._read(super().format_help)

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


class _Versions(argparse.Action):
    """`--version`: memplan's, and the runtimes' it is pinned to, read from package
    metadata (nothing is imported)."""

    def __call__(self, parser, namespace, values, option_string=None) -> NoReturn:
        from ..versions import format_versions

        print(format_versions(), end="")
        parser.exit(0)


def build_parser(only: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser with every command's options, or only those of the commands in `only` (the
    others listed by name and summary, their modules not imported)."""
    parser = OneLineParser(
        prog="memplan",
        description="Bounded, placed and minimal memory allocation for ML compilers.")
    parser.add_argument("--version", action=_Versions, nargs=0,
                        help="show memplan's version and the pinned IREE, ExecuTorch, TFLM "
                        "and TVM versions, and exit")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for entry in COMMANDS:
        if only is None or entry.name in only:
            module = command_module(entry.name)
            module.add_command(commands)
            commands.choices[entry.name].epilog = exit_status_help(module.EXIT_1)
            commands.choices[entry.name].set_defaults(extra=entry.extra)
        else:
            commands.add_parser(entry.name, help=entry.summary)
    parser.epilog = exit_status_help("a command's result breaks a budget or has errors")
    return parser


def _commands_in(argv: Sequence[str]) -> list[str]:
    """The command named on the line, if any: the first word that is not an option
    (memplan's own options take no value)."""
    word = next((a for a in argv if not a.startswith("-")), None)
    return [word] if word in BY_NAME else []


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


# OpenBLAS reads its thread count once, when numpy loads it; these are the variables
# it reads, in its order of precedence.
_BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def _one_blas_thread() -> None:
    """memplan does no linear algebra, yet numpy's OpenBLAS starts a thread per core
    when it loads, and they spin for work that never comes: 0.06-0.09 s of CPU in every
    process (a third of `memplan pack`'s start-up), on cores the exact search wants.
    A count the user set is kept; once numpy is loaded, it is too late to matter."""
    if "numpy" not in sys.modules and not any(v in os.environ for v in _BLAS_THREAD_VARIABLES):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    _one_blas_thread()
    try:  # a command's module loads here: Ctrl-C during the imports is an interruption too
        parser = build_parser(_commands_in(argv))
    except KeyboardInterrupt:
        print("memplan: interrupted; nothing written", file=sys.stderr)
        return EXIT_NO_RESULT
    if not argv:  # bare `memplan`: what it can do, not a complaint
        parser.print_help()
        return 0
    args = parser.parse_args(argv)
    try:
        with _rare_full_collections():
            require(args.extra, f"memplan {args.command}")
            code = args.run(args)
        sys.stdout.flush()  # a full device fails here, where it can still be said in one line
        return code
    except MemplanError as err:
        diagnostic = isinstance(err, InputError) and err.is_diagnostic
        print(err if diagnostic else f"memplan: {err}", file=sys.stderr)
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
    except ModuleNotFoundError as err:
        # An optional library imported deep down: the set-up, not memplan, is short of it.
        extra = missing_extra_of(err)
        if extra is None:
            return _internal_error(err)
        print(f"memplan: {MissingExtra(extra, f'memplan {args.command}')}", file=sys.stderr)
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
        import traceback

        traceback.print_exception(err)
    print(f"memplan: {internal_error_line(err)}", file=sys.stderr)
    return EXIT_NO_RESULT


__all__ = ["COMMANDS", "build_parser", "command_module", "main"]
