"""The placement data model: what is asked (`buffers.BufferRequest`, the one record every
front end makes), what is decided for each buffer (`Assignment`), how full each space
ends (`SpaceUse`), and the whole answer (`Placement`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..buffers import BufferRequest
from ..targets import Target

STACK = "stack"
HEAP = "heap"


@dataclass(frozen=True)
class Assignment:
    """Where one buffer lives, and why; `space` is None when it has nowhere to go."""

    request: BufferRequest
    space: str | None
    offset: int | None  # byte offset in the space (the function's frame for the stack)
    reason: str
    refusals: tuple[tuple[str, str], ...] = ()  # (space, why) for every space that said no

    @property
    def devices(self) -> tuple[str, ...]:
        return self.request.devices

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
