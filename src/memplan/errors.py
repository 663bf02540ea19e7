"""The failures a user sees, each rendered as one line, and their exit codes.

Every layer raises these instead of printing; only the CLI turns them into an
exit code. There are three (docs/reliability.md):

- 0: the run succeeded;
- 1: the run produced its result, and the result breaks a budget or has error
  diagnostics (`BudgetError`, or a command's own count of errors);
- 2: no result: the input is unusable (`InputError`), or memplan could not
  finish (interrupted, its output closed, or a bug in memplan: `InternalError`
  and any unexpected exception). The line says which; nothing is written.

A bug must never look like "over budget", hence 2 and the words "internal error".
"""

from __future__ import annotations

import os
import re

EXIT_OK = 0
EXIT_BUDGET = 1
EXIT_NO_RESULT = 2

_LINE_COL = re.compile(r"\d+:\d+")


class MemplanError(Exception):
    """Base class: `str(err)` is the one line shown to the user."""

    exit_code = EXIT_NO_RESULT


class InputError(MemplanError):
    """The input cannot be used: names the file, the place in it, and why."""

    exit_code = EXIT_NO_RESULT

    def __init__(self, path: str, reason: str, place: str | int | None = None):
        self.path = str(path)
        self.place = place
        self.reason = reason
        where = self.path if place is None else f"{self.path}:{place}"
        super().__init__(f"{where}: {reason}")

    @property
    def is_diagnostic(self) -> bool:
        """`FILE:LINE:COL: error: ...`, a parser's diagnostic: printed as MLIR's tools print
        it, at the start of the line, where editors and CI problem matchers look for it."""
        return (isinstance(self.place, str) and _LINE_COL.fullmatch(self.place) is not None
                and self.reason.startswith("error: "))


class BudgetError(MemplanError):
    """A plan exists but breaks a limit the user asked us to hold."""

    exit_code = EXIT_BUDGET


class InternalError(MemplanError):
    """memplan caught its own mistake (e.g. a rewrite the verifier rejects)."""

    exit_code = EXIT_NO_RESULT


def internal_error_line(err: BaseException) -> str:
    """One line for an exception memplan did not expect: what, and where in memplan."""
    if isinstance(err, MemoryError):
        return "out of memory (the input is too large for this machine); nothing written"
    if isinstance(err, RecursionError):
        what = "nesting too deep for Python's recursion limit"
    else:
        message = " ".join(str(err).split())
        what = type(err).__name__ + (f": {message[:200]}" if message else "")
    import traceback  # only for a bug: a run that goes well never loads it

    frames = traceback.extract_tb(err.__traceback__)
    ours = [f for f in frames if "/memplan/" in f.filename.replace("\\", "/")] or frames
    place = ""
    if ours:
        frame = ours[-1]
        place = f" at {os.path.basename(frame.filename)}:{frame.lineno}"
    return (f"internal error (a bug in memplan, not in the input): {what}{place}; nothing "
            "written; MEMPLAN_TRACEBACK=1 shows the traceback")
