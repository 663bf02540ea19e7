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

from dataclasses import dataclass

from iree.compiler import ir

from ..errors import InputError
from ..ir import source_loc

DEVICE_ATTR = "memplan.device"
ALLOC_OPS = frozenset({"memref.alloc", "memref.alloca", "bufferization.alloc_tensor"})
# Ops whose result is another name for (part of) their source buffer.
VIEW_OPS = frozenset({
    "memref.subview", "memref.cast", "memref.reinterpret_cast", "memref.collapse_shape",
    "memref.expand_shape", "memref.view", "memref.memory_space_cast", "memref.transpose",
    "memref.assume_alignment",
})
NOT_A_USE = frozenset({"memref.dealloc"})
FUNCTION_OPS = frozenset({"func.func", "gpu.func"})

# (function, line, col): how an `Allocation` record of the census is matched to its op.
AllocKey = tuple[str, int, int]


@dataclass(frozen=True)
class DeviceUse:
    """Device names seen on a buffer's users; `default` when some user names none."""

    named: tuple[str, ...]
    default: bool


def device_uses(module: ir.Module, path: str) -> dict[AllocKey, DeviceUse]:
    """Devices touching every allocation op of `module`, keyed like the census records."""
    result: dict[AllocKey, DeviceUse] = {}
    for op, function in _allocations(module.operation):
        loc = source_loc(op, path)
        if loc is None:
            continue
        named: set[str] = set(_names(op, path)) if DEVICE_ATTR in op.attributes else set()
        default = False
        users = list(_users(op.results[0]))
        if not users and not named:
            users = [op]  # an unused buffer belongs to whoever allocates it
        for user in users:
            device = op_devices(user, path)
            if device:
                named.update(device)
            else:
                default = True
        result[(function, loc.line, loc.col)] = DeviceUse(tuple(sorted(named)), default)
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


def function_name(op: ir.Operation) -> str | None:
    """Symbol name of the function holding `op` (or of `op` itself), without '@'."""
    current: ir.Operation | None = op
    while current is not None:
        if current.name in FUNCTION_OPS:
            return ir.StringAttr(current.attributes["sym_name"]).value
        if current.name == "builtin.module":
            return None
        current = current.parent
    return None


def _allocations(root: ir.Operation):  # noqa: ANN202 - generator of (op, function)
    for region in root.regions:
        for block in region.blocks:
            for child in block.operations:
                op = child.operation
                if op.name in ALLOC_OPS:
                    yield op, function_name(op) or ""
                yield from _allocations(op)


def _users(value: ir.Value):  # noqa: ANN202 - generator of ops
    for use in value.uses:
        user = use.owner
        user = user.operation if hasattr(user, "operation") else user
        if user.name in NOT_A_USE:
            continue
        if user.name in VIEW_OPS and user.results:
            yield from _users(user.results[0])
        else:
            yield user


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
