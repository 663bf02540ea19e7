"""The placement data model: what is asked (`Request`), what is decided for each
allocation (`Assignment`), how full each space ends (`SpaceUse`), and the whole
answer (`Placement`), with its errors for allocations that have nowhere to go."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..analysis.allocation import Allocation
from ..diagnostic import Diagnostic
from ..targets import Target
from .budgets import packing_lifetime

STACK = "stack"
HEAP = "heap"


def space_name(memory_space: str | None) -> str | None:
    """A memory space as the census prints it, without the quotes of a string attribute:
    `memref<4xf32, "sram">` is in pool `sram`."""
    if memory_space and len(memory_space) > 1 and memory_space[0] == memory_space[-1] == '"':
        return memory_space[1:-1]
    return memory_space


@dataclass(frozen=True)
class Request:
    """One allocation to place, with the devices that read or write it on this target."""

    allocation: Allocation
    devices: tuple[str, ...]
    notes: tuple[str, ...] = ()  # how the devices were decided, when not obvious

    @property
    def size(self) -> int | None:
        return self.allocation.bytes_or_bound

    @property
    def function(self) -> str:
        return self.allocation.function

    @property
    def lifetime(self) -> tuple[int, int]:
        return packing_lifetime(self.allocation)

    @property
    def pinned_pool(self) -> str | None:
        return space_name(self.allocation.memory_space)


@dataclass(frozen=True)
class Assignment:
    """Where one allocation lives, and why; `space` is None when it has nowhere to go."""

    allocation: Allocation
    devices: tuple[str, ...]
    space: str | None
    offset: int | None  # byte offset in the space (the function's frame for the stack)
    reason: str
    refusals: tuple[tuple[str, str], ...] = ()  # (space, why) for every space that said no

    @property
    def placed(self) -> bool:
        return self.space is not None


@dataclass(frozen=True)
class SpaceUse:
    """Peak use of one memory space (one function's frame for the stack)."""

    space: str
    function: str | None  # the frame's function for the stack, None for module-wide spaces
    peak: int
    lower_bound: int  # most bytes simultaneously live: no packing can do better
    capacity: int | None
    buffers: int

    @property
    def label(self) -> str:
        return f"{self.space} @{self.function}" if self.function else self.space


@dataclass(frozen=True)
class Placement:
    target: Target
    decisions: tuple[Assignment, ...]  # one per request, in request order
    usage: tuple[SpaceUse, ...] = field(default_factory=tuple)

    @property
    def unplaced(self) -> list[Assignment]:
        return [d for d in self.decisions if not d.placed]


def unplaced_diagnostics(placement: Placement) -> list[Diagnostic]:
    """An error per allocation with nowhere to go, with every space's reason."""
    diags = []
    for d in placement.unplaced:
        a = d.allocation
        size = a.bytes_or_bound
        what = f"{a.op_name} of {size} bytes" if size is not None else f"{a.op_name}"
        diags.append(Diagnostic("error", a.location, f"{what} in @{a.function} has {d.reason} "
                                f"(target {placement.target.name})", code="unplaced"))
    return diags
