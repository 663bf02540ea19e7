"""IREE's transient arenas: the slices of a `stream.resource.pack`, and IREE's own layout of them.

IREE's stream dialect gathers the transient buffers of one execution region into a
`stream.resource.pack`: one slice per buffer, with an inclusive lifetime `[start, end]`
in the region's op order and a byte size. The pass `iree-stream-layout-slices`
(IREE 3.13, `LayoutSlices.cpp`) gives every static slice an offset by one greedy pass
in slice order: each slice takes the smallest gap below the highest reservation that
overlaps it in time, else goes on top; sizes are rounded up to the range alignment,
offsets to the offset alignment (both 64 bytes unless the device's resource config
says otherwise). `iree_layout` reproduces it, including its quirks, so that memplan
can say what IREE would have done without asking it; the reproduction is checked
against the offsets IREE itself emits (`iree_stages.iree_layout_offsets`).

Nothing here knows MLIR: the MLIR side is `iree_packs.py`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...pack import Buffer, Problem

# IREE's defaults (`--iree-stream-resource-min-offset-alignment` and its range twin).
DEFAULT_ALIGNMENT = 64


@dataclass(frozen=True)
class ResourceConfig:
    """The two constraints of IREE's `#stream.resource_config` that a layout obeys."""

    offset_alignment: int = DEFAULT_ALIGNMENT
    range_alignment: int = DEFAULT_ALIGNMENT


@dataclass(frozen=True)
class PackSlice:
    start: int
    end: int  # inclusive, as IREE writes it
    size: int | None  # bytes; None when the size is a runtime value
    bound: int | None = None  # a dynamic size's proven upper bound, when there is one
    why_unbounded: str | None = None  # why a dynamic size has no proven bound

    def intersects(self, other: PackSlice) -> bool:
        return self.end >= other.start and other.end >= self.start

    @property
    def planned_size(self) -> int | None:
        """The bytes a static plan reserves: the size, or a dynamic size's proven bound."""
        return self.size if self.size is not None else self.bound


@dataclass(frozen=True)
class Layout:
    offsets: tuple[int, ...]  # one per slice, in slice order
    total: int  # the arena's length, as the pack's first result


def align(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


def iree_layout(sizes: Sequence[int], slices: Sequence[PackSlice],
                config: ResourceConfig = ResourceConfig()) -> Layout:
    """IREE's `packStaticSlicesGreedily`, step for step, on slices with static `sizes`.

    Its quirks are kept: a gap's fit is measured from the unaligned end of the
    reservation below it while the test uses the aligned offset, only gaps below an
    overlapping reservation count, and a slice inserted at an offset already taken
    goes before the reservations there.
    """
    reserved: list[tuple[int, int, PackSlice]] = []  # (offset, aligned size, slice) by offset
    offsets = []
    high = 0
    for size, piece in zip(sizes, slices, strict=True):
        need = align(size, config.range_alignment)
        best, best_fit = None, None
        current = 0
        for offset, length, other in reserved:
            if not other.intersects(piece):
                continue
            aligned = align(current, config.offset_alignment)
            if aligned + need <= offset and (best_fit is None or offset - aligned < best_fit):
                best, best_fit = aligned, offset - current
            current = max(current, offset + length)
        if best is None:
            best = align(current, config.offset_alignment)
        at = next((i for i, r in enumerate(reserved) if r[0] >= best), len(reserved))
        reserved.insert(at, (best, need, piece))
        offsets.append(best)
        high = max(high, best + need)
    return Layout(tuple(offsets), align(high, config.range_alignment))


def pack_problem(sizes: Sequence[int], slices: Sequence[PackSlice],
                 config: ResourceConfig = ResourceConfig()) -> Problem:
    """The arena as memplan's packing problem: half-open lifetimes, sizes rounded to the
    range alignment (as IREE reserves them), offsets aligned to the offset alignment."""
    return Problem(tuple(
        Buffer(str(i), piece.start, piece.end + 1, align(size, config.range_alignment),
               config.offset_alignment)
        for i, (size, piece) in enumerate(zip(sizes, slices, strict=True))))


def stacked(layout: Layout, sizes: Sequence[int], config: ResourceConfig = ResourceConfig()
            ) -> Layout:
    """`layout` with buffers IREE allocates apart from the arena set above it, in order: the
    bytes IREE holds for all of them, as one layout (each apart, so nothing overlaps)."""
    offsets, total = list(layout.offsets), layout.total
    for size in sizes:
        offsets.append(align(total, config.offset_alignment))
        total = offsets[-1] + align(size, config.range_alignment)
    return Layout(tuple(offsets), total)
