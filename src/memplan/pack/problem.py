"""The offset-planning problem: buffers with lifetimes packed into one memory.

Lifetimes are half-open `[start, end)`; sizes and offsets are bytes. Nothing
here knows about MLIR: a stack frame, workgroup memory, a pool and a
whole-model arena all reduce to a `Problem`.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class Buffer:
    id: str
    start: int
    end: int  # exclusive
    size: int
    alignment: int = 1
    offset: int | None = None  # fixed offset, when the caller pins one

    def overlaps_in_time(self, other: Buffer) -> bool:
        return self.start < other.end and other.start < self.end


@dataclass(frozen=True, slots=True)
class Problem:
    buffers: tuple[Buffer, ...]
    capacity: int | None = None

    def __post_init__(self) -> None:
        # Accept any sequence from callers but keep the problem hashable and immutable.
        object.__setattr__(self, "buffers", tuple(self.buffers))

    def __len__(self) -> int:
        return len(self.buffers)


@dataclass(frozen=True, slots=True)
class Solution:
    """Offsets in the order of `Problem.buffers`."""

    offsets: tuple[int, ...]
    strategy: str = ""
    # Filled by solvers that prove something beyond validity (the exact solver).
    notes: dict[str, object] = field(default_factory=dict)

    def peak(self, problem: Problem) -> int:
        return max(
            (off + b.size for off, b in zip(self.offsets, problem.buffers, strict=True)),
            default=0,
        )


@dataclass(frozen=True)
class Rigid:
    """Buffers of a problem that move together: member i at `base + offsets[i]`
    (`PackOptions.rigid`; placed by `rigid.py`)."""

    members: tuple[int, ...]  # indices into the problem's buffers
    offsets: tuple[int, ...]  # above the group's base, one per member
    alignment: int = 1  # of the base (each member's own is implied by its offset)
