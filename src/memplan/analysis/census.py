"""The allocation census: every allocation of a module, with what we can prove of it.

Interface first (shared by check, opt, place and the workgroup check); the
walk that fills it is `take_census`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..ir import SourceLoc


@dataclass(frozen=True)
class Allocation:
    """One `memref.alloc`/`memref.alloca`/`bufferization.alloc_tensor` (or similar)."""

    op_name: str  # e.g. "memref.alloca"
    function: str  # symbol name of the enclosing function (without '@')
    location: SourceLoc | None
    element_type: str  # e.g. "i32"
    shape: tuple[int | None, ...]  # None for a dynamic dimension
    element_bytes: int
    exact_bytes: int | None  # static shape: its size
    bound_bytes: int | None  # dynamic shape with a proven bound: the bound; else = exact_bytes
    unbounded_reason: str | None  # why no bound could be proven (None when bounded)
    memory_space: str | None  # e.g. "workgroup", "private", "sram"; None = default space
    loop_depth: int  # number of enclosing loops inside the function
    lifetime: tuple[int, int]  # half-open [first, last use + 1) in the function's op order
    alignment: int | None = None  # requested alignment attribute, if any

    @property
    def is_stack(self) -> bool:
        return self.op_name == "memref.alloca"

    @property
    def bytes_or_bound(self) -> int | None:
        return self.exact_bytes if self.exact_bytes is not None else self.bound_bytes
