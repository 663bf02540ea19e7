"""Checks from the decisions layer: workgroup memory per kernel, stack reachability.

- `workgroup-limit` (error): a kernel's workgroup allocations, packed with their
  lifetimes, over the target's `workgroup.limit_per_kernel`; or workgroup memory
  on a target that has none.
- `workgroup-unbounded` (error): a workgroup allocation with no proven size bound.
- `stack-not-addressable` (error): a `memref.alloca` used by a device that cannot
  address the target's stack (an NPU buffer in a microcontroller's DTCM: the
  functional bug of apache/tvm#9022). Needs the IR (`CheckContext.chunks`) to see
  which ops use the buffer (the `memplan.device` convention).
"""

from __future__ import annotations

from ..analysis.devices import device_uses
from ..diagnostic import Diagnostic
from ..place.requests import alloc_key, resolve_devices
from ..place.workgroup import workgroup_diagnostics
from .context import CheckContext
from .stack import describe_type, is_stack


def check_workgroup(ctx: CheckContext) -> list[Diagnostic]:
    return workgroup_diagnostics(ctx.census, ctx.target)


def check_stack_addressable(ctx: CheckContext) -> list[Diagnostic]:
    stack = ctx.target.stack
    if stack is None or not ctx.chunks:
        return []  # no stack: `stack-allocation-limit` already says so
    uses = {}
    for chunk in ctx.chunks:
        uses.update(device_uses(chunk.module, chunk.path))
    diags = []
    for a in ctx.census:
        key = alloc_key(a)
        if not is_stack(a) or key is None:
            continue
        devices, _ = resolve_devices(uses.get(key), ctx.target)
        missing = [d for d in devices if d not in stack.addressable_by]
        if missing:
            diags.append(Diagnostic(
                "error", a.location, f"stack allocation of {describe_type(a)} in @{a.function} "
                f"is used by {', '.join(missing)}, which cannot address the stack of target "
                f"'{ctx.target.name}' (`memplan place` moves it to a pool {missing[0]} reaches)",
                code="stack-not-addressable"))
    return diags


PLACEMENT_CHECKS = [check_workgroup, check_stack_addressable]
