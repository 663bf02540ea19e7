"""Which devices read or write each allocation: the `memplan.device` convention.

An op runs on the device named by the nearest `memplan.device = "name"`
attribute on itself or an enclosing op (typically the `func.func`); with none,
on the target's default device (`None` here: the target decides). A buffer is
touched by the devices of every op that uses it, following views (subview,
cast, reshape, ...) to their users, plus any device named on the allocation
op itself. Deallocation is not a use: it does not touch the data.

Example: `func.call @ethosu_conv2d(%in, %w, %out) {memplan.device = "npu"}`
makes %in, %w and %out NPU-touched; the attribute value may also be an array
of names (`["cpu", "npu"]`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from iree.compiler import ir

from ..errors import InputError
from ..ir import source_loc
from ..ir.ops import ALLOCATION_OPS, DEALLOCATION_OPS, MEMREF_VIEW_OPS
from ..ir.walk import FunctionOps, ops_named, users

DEVICE_ATTR = "memplan.device"


@dataclass(frozen=True)
class DeviceUse:
    """Device names seen on a buffer's users; `default` when some user names none."""

    named: tuple[str, ...]
    default: bool


def device_uses(module: ir.Module, path: str, funcs: Sequence[FunctionOps] | None = None
                ) -> dict[ir.Operation, DeviceUse]:
    """Devices touching every allocation op of `module`, keyed by the op (`funcs`: the
    module's `function_ops`, when the caller has them)."""
    result: dict[ir.Operation, DeviceUse] = {}
    for op in ops_named(module, ALLOCATION_OPS, funcs):
        named: set[str] = set(_names(op, path)) if DEVICE_ATTR in op.attributes else set()
        default = False
        touching = list(_data_users(op.results[0]))
        if not touching and not named:
            touching = [op]  # an unused buffer belongs to whoever allocates it
        for user in touching:
            device = op_devices(user, path)
            if device:
                named.update(device)
            else:
                default = True
        result[op] = DeviceUse(tuple(sorted(named)), default)
    return result


def op_devices(op: ir.Operation, path: str = "<input>") -> tuple[str, ...]:
    """Devices named on `op` or its nearest annotated ancestor; () for the default device."""
    current: ir.Operation | None = op
    while current is not None:
        if DEVICE_ATTR in current.attributes:
            return _names(current, path)
        if current.name == "builtin.module":
            return ()
        current = current.parent
    return ()


def _data_users(value: ir.Value) -> list[ir.Operation]:
    """Ops that touch the data of `value`, through views; a deallocation does not."""
    found, pending = [], [value]
    while pending:
        for user in users(pending.pop()):
            if user.name in DEALLOCATION_OPS:
                continue
            if user.name in MEMREF_VIEW_OPS and user.results:
                pending.append(user.results[0])
            else:
                found.append(user)
    return found


def _names(op: ir.Operation, path: str) -> tuple[str, ...]:
    """The device names of `op`'s `memplan.device`: a string or an array of strings."""
    attr = op.attributes[DEVICE_ATTR]
    if isinstance(attr, ir.StringAttr):
        return (attr.value,)
    if isinstance(attr, ir.ArrayAttr) and all(isinstance(a, ir.StringAttr) for a in attr):
        return tuple(ir.StringAttr(a).value for a in attr)
    loc = source_loc(op, path)
    raise InputError(path, f"{DEVICE_ATTR} must be a device name or an array of names, "
                     f"not {attr}", f"{loc.line}:{loc.col}" if loc else None)
