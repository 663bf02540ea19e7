"""Turn census records into placement requests: each allocation with its devices.

Device names come from the `memplan.device` convention (`analysis.devices`).
A name the target does not have (an "npu" op compiled for x86_64) falls back
to the target's default device, as a compiler runs an op it cannot offload on
the host; the request carries a note saying so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from iree.compiler import ir

from ..analysis.census import Allocation
from ..analysis.devices import DeviceUse
from ..ir.ops import LLVM_ALLOCATION_OPS
from ..targets import Target
from .model import Request


def build_requests(allocations: Sequence[Allocation], uses: Mapping[ir.Operation, DeviceUse],
                   target: Target) -> list[Request]:
    requests = []
    for allocation in allocations:
        if allocation.op_name in LLVM_ALLOCATION_OPS:
            continue  # already stack slots of the LLVM dialect: checked, never placed
        use = uses.get(allocation.op) if allocation.op is not None else None
        devices, notes = resolve_devices(use, target)
        requests.append(Request(allocation, devices, notes))
    return requests


def resolve_devices(use: DeviceUse | None,
                    target: Target) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """Target devices touching a buffer, in the target's order, and notes on fallbacks."""
    if use is None:
        return (target.default_device,), ()
    wanted = set(use.named)
    notes = []
    if use.default:
        wanted.add(target.default_device)
    for name in sorted(use.named):
        if name not in target.devices:
            wanted.discard(name)
            wanted.add(target.default_device)
            notes.append(f"{name}: not a device of {target.name}, runs on "
                         f"{target.default_device}")
    return tuple(d for d in target.devices if d in wanted), tuple(notes)
