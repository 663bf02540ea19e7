"""The two kinds of failure a user sees, each rendered as one line.

Every layer raises these instead of printing; only the CLI turns them into an
exit code (2 for bad input, 1 for a violated budget).
"""

from __future__ import annotations


class MemplanError(Exception):
    """Base class: `str(err)` is the one line shown to the user."""

    exit_code = 2


class InputError(MemplanError):
    """The input cannot be used: names the file, the place in it, and why."""

    exit_code = 2

    def __init__(self, path: str, reason: str, place: str | int | None = None):
        self.path = str(path)
        self.place = place
        self.reason = reason
        where = self.path if place is None else f"{self.path}:{place}"
        super().__init__(f"{where}: {reason}")


class BudgetError(MemplanError):
    """A plan exists but breaks a limit the user asked us to hold."""

    exit_code = 1
