"""Budgets: a group of allocations packed with their lifetimes, against a limit.

The stack frame of a function, the workgroup memory of a kernel and each space
of a placement are all "these allocations, packed": `allocation_buffer` is the
one conversion of a census record into a packing buffer, `pack_allocations`
the one way to pack a group of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..analysis.allocation import Allocation
from ..ir.types import WORKGROUP_SPACES
from ..pack import Buffer, PackResult, PlanStatus, Problem, Solution, lower_bound, pack
from ..targets import Target

if TYPE_CHECKING:  # reads the IR's own limits through the MLIR bindings
    from ..targets.applied import FunctionTargets



def allocation_buffer(a: Allocation, id_: str, alignment: int = 1) -> Buffer:
    """The packing buffer of a bounded allocation."""
    start, end = packing_lifetime(a)
    return Buffer(id_, start, end, a.bytes_or_bound or 0, max(alignment, a.alignment or 1))


def packing_lifetime(a: Allocation) -> tuple[int, int]:
    """The allocation's lifetime as packing sees it: an unused one still occupies one step."""
    start, end = a.lifetime
    return start, max(end, start + 1)


def pack_allocations(allocations: Sequence[Allocation], capacity: int | None,
                     alignment: int = 1) -> PackResult:
    buffers = [allocation_buffer(a, str(i), alignment) for i, a in enumerate(allocations)]
    problem = Problem(tuple(buffers), capacity)
    if len(buffers) > 1:
        return pack(problem)
    # Nothing to search: a lone buffer sits at offset 0. Many stack frames are like this (or
    # hold only loop allocations, counted apart), and the packer's ten greedy strategies cost
    # about 0.2 ms even here.
    solution = Solution((0,) * len(buffers), strategy="at most one buffer: no search")
    return PackResult(problem, solution, lower_bound(problem), solution.peak(problem), 0.0,
                      PlanStatus.AT_BOUND)


PRIVATE_SPACES = frozenset({"private", "#gpu.address_space<private>"})


def is_stack(a: Allocation) -> bool:
    """A `memref.alloca` in the default memory space: it lives in the function's frame."""
    return a.is_stack and a.memory_space is None


def is_private(a: Allocation) -> bool:
    """GPU private (per-thread) memory: a `gpu.func` private attribution or an allocation in
    `#gpu.address_space<private>`. It lives in the thread's stack (CUDA local memory, AMD
    scratch), so it counts in the frame where the target gives the stack a size."""
    return a.memory_space in PRIVATE_SPACES


def in_frame(a: Allocation) -> bool:
    return is_stack(a) or is_private(a)


def is_workgroup(a: Allocation) -> bool:
    return a.memory_space in WORKGROUP_SPACES


@dataclass(frozen=True)
class Budget:
    """One function's (or kernel's) allocations of one kind, packed."""

    chunk: int
    function: str
    allocations: tuple[Allocation, ...]  # the bounded ones, packed
    packed: PackResult
    limit: int | None
    excluded: tuple[Allocation, ...] = ()  # in a loop or unbounded: no finite size
    limit_source: str = ""  # where the limit came from when not the preset (the IR, an option)

    @property
    def peak(self) -> int:
        return self.packed.peak

    @property
    def fits(self) -> bool:
        return self.limit is None or self.peak <= self.limit

    @property
    def sum_bytes(self) -> int:
        """What a budget without lifetimes (IREE's checks) would count."""
        return sum(b.size for b in self.packed.problem.buffers)

    @property
    def alignment(self) -> int:
        return max((b.alignment for b in self.packed.problem.buffers), default=1)

    @property
    def padding(self) -> int:
        """Bytes the packing adds over the sizes: every buffer starts at an aligned offset,
        so a packed peak can exceed the unpacked sum."""
        return max(0, self.peak - self.sum_bytes)


def _by_function(census: Sequence[Allocation], keep) -> dict[tuple[int, str], list[Allocation]]:  # noqa: ANN001
    groups: dict[tuple[int, str], list[Allocation]] = {}
    for a in census:
        if keep(a):
            groups.setdefault((a.chunk, a.function), []).append(a)
    return groups


def stack_frames(census: Sequence[Allocation], target: Target,
                 targets: FunctionTargets | None = None,
                 hoisted: Callable[[Allocation], bool] = lambda a: False) -> list[Budget]:
    """One frame per function with stack allocations, in census order: its bounded,
    loop-free stack allocations packed against its frame limit (the target's, or what
    `targets` says for that function). GPU private buffers count where the stack has a
    size; without one there is no per-thread budget to check them against. An allocation
    in a loop that the compiler hoists (`hoisted`: IREE's GPU pipeline) counts at its bound,
    alive for the whole function, as it is once hoisted to the entry."""
    frames = []
    for (chunk, function), allocs in _by_function(census, in_frame).items():
        applied = targets.of(chunk, function) if targets is not None else None
        stack = applied.target.stack if applied is not None else target.stack
        allocs = [a for a in allocs if is_stack(a) or stack is not None]
        if not allocs:
            continue
        capacity = stack.max_frame if stack else None
        align = stack.alignment if stack else 1
        lifted = [a.scope_loop_depth > 0 and a.bytes_or_bound is not None and hoisted(a)
                  for a in allocs]
        framed = [(a.scope_loop_depth == 0 or up) and a.bytes_or_bound is not None
                  for a, up in zip(allocs, lifted, strict=True)]
        whole = (0, max(a.lifetime[1] for a in allocs) + 1)
        counted = tuple(replace(a, lifetime=whole) if up else a
                        for a, f, up in zip(allocs, framed, lifted, strict=True) if f)
        excluded = tuple(a for a, f in zip(allocs, framed, strict=True) if not f)
        frames.append(Budget(chunk, function, counted, pack_allocations(counted, capacity, align),
                             capacity, excluded,
                             applied.stack_source() if applied is not None else ""))
    return frames


def kernel_budgets(census: Sequence[Allocation], target: Target,
                   targets: FunctionTargets | None = None) -> list[Budget]:
    """One workgroup-memory budget per kernel, in census order; none for a kernel whose
    target (or the IR) gives no workgroup memory."""
    groups = _by_function(census, lambda a: is_workgroup(a) and a.bytes_or_bound is not None)
    budgets = []
    for (chunk, function), allocs in groups.items():
        applied = targets.of(chunk, function) if targets is not None else None
        space = applied.target.workgroup if applied is not None else target.workgroup
        if space is None:
            continue
        budgets.append(Budget(chunk, function, tuple(allocs),
                              pack_allocations(allocs, space.limit_per_kernel, space.alignment),
                              space.limit_per_kernel, (),
                              applied.workgroup_source() if applied is not None else ""))
    return budgets
