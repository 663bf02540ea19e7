"""GPU workgroup (shared) memory per kernel against the target's limit.

Matches: every census record whose memory space is GPU workgroup memory
(`#gpu.address_space<workgroup>` allocations and `gpu.func` workgroup
attributions); a kernel is any function holding one (a `gpu.func`, or a
`func.func` as IREE writes dispatches). Private and global allocations are
not this check's business.

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
from ..diagnostic import Diagnostic, Note
from ..targets import Target
from ..targets.applied import FunctionTargets
from .budgets import Budget, is_workgroup, kernel_budgets


def workgroup_diagnostics(census: Sequence[Allocation], target: Target,
                          kernels: Sequence[Budget] | None = None,
                          targets: FunctionTargets | None = None) -> list[Diagnostic]:
    """Errors for every kernel over budget and every unbounded workgroup allocation; the
    limit is the target's, or what `targets` says for the kernel (the IR, an option)."""
    workgroup = [a for a in census if is_workgroup(a)]
    has_memory = [(targets.of(a.chunk, a.function).target.workgroup if targets is not None
                   else target.workgroup) is not None for a in workgroup]
    diags = [Diagnostic("error", a.location, f"workgroup allocation in @{a.function}, but "
                        f"target '{target.name}' has no workgroup memory",
                        code="workgroup-limit")
             for a, has in zip(workgroup, has_memory, strict=True) if not has]
    diags += [_unbounded(a) for a, has in zip(workgroup, has_memory, strict=True)
              if has and a.bytes_or_bound is None]
    if kernels is None:
        kernels = kernel_budgets(census, target, targets)
    diags += [_over_limit(k, target) for k in kernels if not k.fits]
    return diags


def _unbounded(a: Allocation) -> Diagnostic:
    return Diagnostic(
        "error", a.location,
        f"workgroup allocation {_type(a)} in @{a.function} has a dynamic size with no proven "
        f"bound: workgroup memory is reserved per kernel at launch, so its size must be static "
        f"or bounded", [Note(a.location, a.unbounded_reason or "unknown size")],
        code="workgroup-unbounded")


def _over_limit(kernel: Budget, target: Target) -> Diagnostic:
    ordered = sorted(kernel.allocations, key=lambda a: -(a.bytes_or_bound or 0))
    notes = [Note(a.location, f"{_type(a)} contributes {a.bytes_or_bound} bytes, live "
                  f"[{a.lifetime[0]}, {a.lifetime[1]})") for a in ordered]
    # The lower bound (bytes live at one moment) says whether any packing could fit.
    message = (f"kernel @{kernel.function} needs {kernel.peak} bytes of workgroup memory "
               f"({len(ordered)} allocation(s) packed, {kernel.packed.lower_bound} bytes live "
               f"at once), "
               f"over the {kernel.limit}-byte limit of "
               f"{kernel.limit_source or f'target {target.name!r}'} "
               f"({kernel.peak / kernel.limit:.1f}x)")
    return Diagnostic("error", ordered[0].location, message, notes, code="workgroup-limit")


def _type(a: Allocation) -> str:
    dims = "".join(f"{'?' if d is None else d}x" for d in a.shape)
    return f"memref<{dims}{a.element_type}>"
