"""The MLIR census as placement takes it: each `Allocation` adapted to a `BufferRequest`
(the one place MLIR meets `place/`), placed, and the answer kept beside the census
records that the rewrite and the report need.

Device names come from the `memplan.device` convention (`analysis.devices`). A name the
target does not have (an "npu" op compiled for x86_64) falls back to the target's
default device, as a compiler runs an op it cannot offload on the host; the request
carries a note saying so.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from iree.compiler import ir

from ..analysis.census import Allocation
from ..analysis.devices import DeviceUse, device_uses
from ..buffers import BufferRequest
from ..diagnostic import Diagnostic
from ..ir import MlirChunk
from ..ir.ops import LLVM_ALLOCATION_OPS
from ..place.model import Assignment, Placement
from ..place.policy import place
from ..targets import Target


@dataclass(frozen=True)
class MlirPlacement:
    """A chunk's placement with the census record of each decision."""

    placement: Placement
    allocations: tuple[Allocation, ...]  # one per decision, in order

    @property
    def target(self) -> Target:
        return self.placement.target

    @property
    def decisions(self) -> tuple[Assignment, ...]:
        return self.placement.decisions

    @property
    def usage(self):  # noqa: ANN201 - the placement's SpaceUse tuple
        return self.placement.usage

    @property
    def unplaced(self) -> list[Assignment]:
        return self.placement.unplaced

    def with_allocations(self) -> list[tuple[Assignment, Allocation]]:
        return list(zip(self.placement.decisions, self.allocations, strict=True))


def space_name(memory_space: str | None) -> str | None:
    """A memory space as the census prints it, without the quotes of a string attribute:
    `memref<4xf32, "sram">` is in pool `sram`."""
    if memory_space and len(memory_space) > 1 and memory_space[0] == memory_space[-1] == '"':
        return memory_space[1:-1]
    return memory_space


def request_of(allocation: Allocation, key: int, devices: tuple[str, ...],
               notes: tuple[str, ...] = ()) -> BufferRequest:
    """The census record as the one buffer record."""
    a = allocation
    loc = a.location
    return BufferRequest(
        key, a.op_name, a.bytes_or_bound, a.lifetime[0], a.lifetime[1], a.alignment or 1,
        pinned=space_name(a.memory_space), devices=devices, scope=a.function,
        in_loop=a.loop_depth > 0, unbounded=a.unbounded_reason,
        origin=f"{loc.line}:{loc.col}" if loc else "", notes=notes)


def build_requests(allocations: Sequence[Allocation], uses: Mapping[ir.Operation, DeviceUse],
                   target: Target) -> tuple[list[BufferRequest], list[Allocation]]:
    """The requests to place (LLVM stack slots are checked, never placed), each keyed by
    its position in the list of allocations returned beside them."""
    requests, kept = [], []
    for allocation in allocations:
        if allocation.op_name in LLVM_ALLOCATION_OPS:
            continue  # already stack slots of the LLVM dialect: checked, never placed
        use = uses.get(allocation.op) if allocation.op is not None else None
        devices, notes = resolve_devices(use, target)
        requests.append(request_of(allocation, len(kept), devices, notes))
        kept.append(allocation)
    return requests, kept


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


def place_chunk(chunk: MlirChunk, allocations: Sequence[Allocation],
                target: Target) -> MlirPlacement:
    """Place the census of `chunk` on `target`, with devices read from the chunk's IR."""
    requests, kept = build_requests(allocations, device_uses(chunk.module, chunk.path), target)
    return MlirPlacement(place(requests, target), tuple(kept))


def unplaced_diagnostics(placement: MlirPlacement) -> list[Diagnostic]:
    """An error per allocation with nowhere to go, with every space's reason."""
    diags = []
    for d, a in placement.with_allocations():
        if d.placed:
            continue
        size = a.bytes_or_bound
        what = f"{a.op_name} of {size} bytes" if size is not None else f"{a.op_name}"
        diags.append(Diagnostic("error", a.location, f"{what} in @{a.function} has {d.reason} "
                                f"(target {placement.target.name})", code="unplaced"))
    return diags
