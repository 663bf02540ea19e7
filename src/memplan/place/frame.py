"""Explicit stack allocations per function against the target's frame.

Matches: every `memref.alloca` in the default memory space whose size is
known or bounded (an alloca without a bound is the hoist-and-bound check's
business, not this one's).

Decides: the frame is the peak of the function's allocas packed with their
lifetimes by the offset planner; it must stay within `stack.max_frame`. Each
alloca must also stay within `stack.max_allocation` when the target has one,
and be used only by devices that can address the stack.

Refuses: a function whose packed frame is over the limit even though every
alloca passes the per-allocation limit, the case a per-allocation rule such as
TVM's `kMaxStackAlloca = 1024` lets through; an alloca over the per-allocation
limit; an alloca touched by a device that cannot address the stack (an NPU
buffer in DTCM).
Targets without a modelled stack are not checked here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..analysis.census import Allocation
from ..targets import Target
from .budget import FunctionBudget, by_function, contributor_notes, pack_function
from .findings import Diagnostic

CHECK = "stack-frame"


def is_stack_allocation(allocation: Allocation) -> bool:
    return allocation.is_stack and allocation.memory_space is None


def frame_budgets(allocations: Sequence[Allocation], target: Target) -> list[FunctionBudget]:
    if target.stack is None:
        return []
    stack = target.stack
    bounded = [a for a in allocations if is_stack_allocation(a) and a.bytes_or_bound is not None]
    return [pack_function(function, group, stack.alignment, stack.max_frame)
            for function, group in by_function(bounded).items()]


def frame_findings(allocations: Sequence[Allocation], target: Target,
                   devices: Mapping[int, tuple[str, ...]] | None = None) -> list[Diagnostic]:
    """Errors for frames over the limit, allocas over the per-allocation limit, and allocas
    used by a device that cannot address the stack (`devices`: index in `allocations` ->
    devices touching it, as `place.requests` resolves them)."""
    stack = target.stack
    if stack is None:
        return []
    findings = []
    for i, a in enumerate(allocations):
        if not is_stack_allocation(a):
            continue
        size = a.bytes_or_bound
        if stack.max_allocation is not None and size is not None and size > stack.max_allocation:
            findings.append(Diagnostic(
                "error", a.location, f"memref.alloca of {size} bytes in @{a.function} is over "
                f"the per-allocation stack limit of {target.name} ({stack.max_allocation} bytes)",
                code=CHECK))
        missing = [d for d in (devices or {}).get(i, ()) if d not in stack.addressable_by]
        if missing:
            findings.append(Diagnostic(
                "error", a.location, f"memref.alloca in @{a.function} is used by "
                f"{', '.join(missing)}, which cannot address the stack of {target.name}",
                code=CHECK))
    for budget in frame_budgets(allocations, target):
        if not budget.fits:
            findings.append(_over_frame(budget, target))
    return sorted(findings, key=lambda f: (f.loc.line if f.loc else 0))


def _over_frame(budget: FunctionBudget, target: Target) -> Diagnostic:
    largest = max(budget.allocations, key=lambda a: a.bytes_or_bound or 0)
    count = len(budget.allocations)
    message = (f"@{budget.function} needs a {budget.peak}-byte stack frame for {count} "
               f"memref.alloca(s) packed with their lifetimes; the frame limit of "
               f"{target.name} is {budget.limit} bytes")
    limit = target.stack.max_allocation if target.stack else None
    if limit is not None and all((a.bytes_or_bound or 0) <= limit for a in budget.allocations):
        message += (f"; every alloca is within the {limit}-byte per-allocation limit, "
                    f"their total is not")
    return Diagnostic("error", largest.location, message, contributor_notes(budget.allocations),
                   code=CHECK)
