"""Checks from the decisions layer: workgroup memory per kernel, stack reachability.

- `workgroup-limit` (error): a kernel's workgroup allocations, packed with their
  lifetimes, over the target's `workgroup.limit_per_kernel`; or workgroup memory
  on a target that has none.
- `workgroup-unbounded` (error): a workgroup allocation with no proven size bound.
- `workgroup-needs-reuse` (warning): a kernel that fits only when allocations never
  live together share bytes.
- `workgroup-local` (error): IREE's CPU workgroup-local memory
  (`#iree_codegen.workgroup_local`) that IREE's assign-workgroup-local-memory would
  refuse (an alloca, a dynamic shape or layout, outside the entry block), or a
  dispatch laid out over the 65535 pages of 4 KiB the HAL can declare.
- `stack-not-addressable` (error): a `memref.alloca` used by a device that cannot
  address the target's stack (an NPU buffer in a microcontroller's DTCM: the
  functional bug of apache/tvm#9022). Needs the IR (`CheckContext.chunks`) to see
  which ops use the buffer (the `memplan.device` convention).
"""

from __future__ import annotations

from ..analysis.describe import describe_type
from ..diagnostic import Diagnostic
from ..mlir_requests import resolve_devices
from .budgets import is_stack
from .context import CheckContext
from .workgroup import (
    workgroup_diagnostics,
    workgroup_local_diagnostics,
    workgroup_local_dispatch_diagnostics,
)


def check_workgroup(ctx: CheckContext) -> list[Diagnostic]:
    return workgroup_diagnostics(ctx.census, ctx.target, ctx.kernels, ctx.function_targets)


def check_workgroup_local(ctx: CheckContext) -> list[Diagnostic]:
    return workgroup_local_diagnostics(ctx.census) + \
        workgroup_local_dispatch_diagnostics(ctx.chunks, ctx.census)


def check_stack_addressable(ctx: CheckContext) -> list[Diagnostic]:
    stack = ctx.target.stack
    if stack is None or not ctx.chunks:
        return []  # no stack: `stack-allocation-limit` already says so
    uses = ctx.device_uses
    diags = []
    for a in ctx.census:
        if not is_stack(a) or a.op is None:
            continue
        devices, _ = resolve_devices(uses.get(a.chunk, {}).get(a.op), ctx.target)
        missing = [d for d in devices if d not in stack.addressable_by]
        if missing:
            diags.append(Diagnostic(
                "error", a.location, f"stack allocation of {describe_type(a)} in @{a.function} "
                f"is used by {', '.join(missing)}, which cannot address the stack of target "
                f"'{ctx.target.name}' (`memplan place` moves it to a pool {missing[0]} reaches)",
                code="stack-not-addressable"))
    return diags


PLACEMENT_CHECKS = [check_workgroup, check_workgroup_local, check_stack_addressable]
