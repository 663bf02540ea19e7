"""GPU workgroup (shared) memory per kernel against the target's limit.

Matches: every allocation whose memory space is GPU workgroup memory
(`#gpu.address_space<workgroup>`); a kernel is any function holding one
(a `gpu.func`, or a `func.func` as IREE writes dispatches). Private and
global allocations are not this check's business.

Decides: the kernel's need is the peak of its simultaneously live workgroup
allocations, packed at offsets with lifetimes by the planner (so two tiles
that are never live together may share bytes), against `limit_per_kernel`.

Refuses: a kernel whose packed peak is over the limit (one error naming the
total and the limit, with a note per contributing allocation, largest first);
a workgroup allocation of dynamic size without a proven bound; any workgroup
allocation on a target that has no workgroup memory.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..analysis.census import Allocation
from ..targets import Target
from .budget import FunctionBudget, by_function, contributor_notes, pack_function
from .findings import Diagnostic

CHECK = "workgroup-memory"
WORKGROUP_SPACES = frozenset({"workgroup", "#gpu.address_space<workgroup>"})


def is_workgroup(allocation: Allocation) -> bool:
    return allocation.memory_space in WORKGROUP_SPACES


def kernel_budgets(allocations: Sequence[Allocation], target: Target) -> list[FunctionBudget]:
    """Packed workgroup use of every kernel (bounded allocations only)."""
    if target.workgroup is None:
        return []
    space = target.workgroup
    budgets = []
    for function, group in by_function([a for a in allocations if is_workgroup(a)]).items():
        bounded = [a for a in group if a.bytes_or_bound is not None]
        budgets.append(pack_function(function, bounded, space.alignment, space.limit_per_kernel))
    return budgets


def workgroup_findings(allocations: Sequence[Allocation], target: Target) -> list[Diagnostic]:
    """Errors for every kernel over budget and every unbounded workgroup allocation."""
    workgroup = [a for a in allocations if is_workgroup(a)]
    if not workgroup:
        return []
    if target.workgroup is None:
        return [Diagnostic("error", a.location, f"workgroup allocation in @{a.function}, but "
                        f"target {target.name} has no workgroup memory", code=CHECK)
                for a in workgroup]
    findings = [_unbounded(a) for a in workgroup if a.bytes_or_bound is None]
    for budget in kernel_budgets(allocations, target):
        if not budget.fits:
            findings.append(_over_budget(budget, target))
    return sorted(findings, key=lambda f: (f.loc.line if f.loc else 0))


def _unbounded(a: Allocation) -> Diagnostic:
    why = f" ({a.unbounded_reason})" if a.unbounded_reason else ""
    return Diagnostic("error", a.location,
                   f"workgroup allocation in @{a.function} has a dynamic size with no proven "
                   f"bound{why}; workgroup memory is reserved per kernel at launch, so its "
                   f"size must be static or bounded", code=CHECK)


def _over_budget(budget: FunctionBudget, target: Target) -> Diagnostic:
    largest = max(budget.allocations, key=lambda a: a.bytes_or_bound or 0)
    ratio = budget.peak / budget.limit
    # The lower bound (bytes live at one moment) tells whether better packing could help.
    message = (f"kernel @{budget.function} uses {budget.peak} bytes of workgroup memory "
               f"({budget.result.lower_bound} bytes live at once, {len(budget.allocations)} "
               f"allocation(s)); the limit of {target.name} is {budget.limit} bytes "
               f"({ratio:.1f}x over)")
    return Diagnostic("error", largest.location, message, contributor_notes(budget.allocations),
                   code=CHECK)
