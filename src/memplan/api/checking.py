"""`check`: the facts of an MLIR input against a target, and what the checks say of them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis.access import Access, access_modes
from ..analysis.census import Allocation, take_census
from ..check import CheckContext, run_checks
from ..check.budgets import Budget
from ..diagnostic import Diagnostic, count_errors
from ..ir import MlirChunk
from ..ir.walk import function_ops
from ..report.copies_report import CopyRow
from ..targets import Target
from ..targets.applied import LimitOverrides
from .common import Assumptions, checked_assumptions, target_of
from .copying import copies


@dataclass(frozen=True)
class CheckResult:
    target: Target
    census: list[Allocation]
    context: CheckContext  # the facts the checks read (frames, kernel budgets, ...)
    diagnostics: list[Diagnostic]  # sorted by place
    accesses: list[Access]
    copies: list[CopyRow]  # memplan's estimate only (no IREE run)

    @property
    def frames(self) -> list[Budget]:
        return self.context.frames

    @property
    def kernels(self) -> list[Budget]:
        return self.context.kernels

    @property
    def errors(self) -> int:
        return count_errors(self.diagnostics)

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "warning")


def check_context(chunks: Sequence[MlirChunk], target: Target, path: str,
                  assumptions: Assumptions, overrides: LimitOverrides | None = None
                  ) -> CheckContext:
    """Census and shared facts of `chunks`, which every analysis only reads: they share one
    walk of each function."""
    walked = {chunk.index: function_ops(chunk.module) for chunk in chunks}
    census = [a for chunk in chunks for a in take_census(chunk, assumptions, walked[chunk.index])]
    return CheckContext(census, target, path, chunks, overrides or LimitOverrides(),
                        assumptions, walked)


def check(chunks: Sequence[MlirChunk], target: Target | str, *, path: str = "",
          assumptions: Assumptions = (), overrides: LimitOverrides | None = None
          ) -> CheckResult:
    """What `memplan check` reports of `chunks` (`path`: the input, for diagnostics)."""
    target = target_of(target)
    assumptions = checked_assumptions(assumptions, chunks)
    context = check_context(chunks, target, path, assumptions, overrides)
    diagnostics = run_checks(context)
    accesses = [a for chunk in chunks
                for a in access_modes(chunk, context.function_ops(chunk))]
    rows = copies(chunks, iree=False, walked=context.walked)
    return CheckResult(target, list(context.census), context, diagnostics, accesses, rows)
