"""The record of one allocation the census found: what placement and packing read.

Kept apart from the census (which walks IR through the MLIR bindings) so that
the layers above it, and the model front ends that make these records from
other files, load without IREE's compiler.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..ir.ops import LLVM_ALLOCATION_OPS, STACK_ALLOCATION_OPS
from ..ir.source import SourceLoc

if TYPE_CHECKING:
    from iree.compiler import ir


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
    lifetime: tuple[int, int]  # half-open [first use, last use + 1) in the function's op order
    alignment: int | None = None  # requested alignment attribute, if any
    dim_bounds: tuple[int | None, ...] = ()  # per-dim upper bound (static dims as is)
    loop_location: SourceLoc | None = None  # the innermost loop around it, if any
    chunk: int = 0  # index of the `// -----` chunk it is in (function names repeat across)
    # Loops between it and its automatic allocation scope (`memref.alloca_scope`, function):
    # for a stack allocation, the loops in which every iteration allocates again. A loop of
    # blocks (a `cf.br` back edge) counts as one.
    scope_loop_depth: int = 0
    # Not in the entry block of its allocation scope: LLVM makes a stack allocation there a
    # dynamic stack adjustment, and IREE refuses it.
    outside_entry_block: bool = False
    # The op itself (for `gpu.func` attributions, the function): how later layers find it
    # in the IR, whatever its location says.
    op: ir.Operation | None = field(default=None, compare=False, repr=False)

    @property
    def is_stack(self) -> bool:
        return self.op_name in STACK_ALLOCATION_OPS or self.op_name in LLVM_ALLOCATION_OPS

    @property
    def bytes_or_bound(self) -> int | None:
        return self.exact_bytes if self.exact_bytes is not None else self.bound_bytes
