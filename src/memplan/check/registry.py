"""The checks `memplan check` runs: `DEFAULT_CHECKS`, and `run_checks` to run them.

A check is `Callable[[CheckContext], list[Diagnostic]]`; a new check is one more
function appended to the list (placement and tensor checks live in their own
modules and add themselves here).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..diagnostic import Diagnostic
from .context import CheckContext
from .placement import PLACEMENT_CHECKS
from .stack import STACK_CHECKS
from .tensor import TENSOR_CHECKS

Check = Callable[[CheckContext], list[Diagnostic]]

DEFAULT_CHECKS: list[Check] = [*STACK_CHECKS, *TENSOR_CHECKS, *PLACEMENT_CHECKS]


def run_checks(context: CheckContext, checks: Sequence[Check] | None = None) -> list[Diagnostic]:
    """All diagnostics of all checks, sorted by place so they read like a compiler's."""
    diags = [d for check in (DEFAULT_CHECKS if checks is None else checks)
             for d in check(context)]
    return sorted(diags, key=lambda d: (d.loc.path, d.loc.line, d.loc.col) if d.loc else ("", 0, 0))


__all__ = ["DEFAULT_CHECKS", "Check", "CheckContext", "run_checks"]
