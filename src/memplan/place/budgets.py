"""Budgets: a group of allocations packed with their lifetimes, against a limit.

The stack frame of a function, the workgroup memory of a kernel and each space
of a placement are all "these allocations, packed": `allocation_buffer` is the
one conversion of a census record into a packing buffer, `pack_allocations`
the one way to pack a group of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis.census import Allocation
from ..pack import Buffer, PackResult, Problem, plan
from ..targets import Target

WORKGROUP_SPACES = frozenset({"workgroup", "#gpu.address_space<workgroup>"})


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
    return plan(Problem(tuple(buffers), capacity))


def is_stack(a: Allocation) -> bool:
    """A `memref.alloca` in the default memory space: it lives in the function's frame."""
    return a.is_stack and a.memory_space is None


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


def _by_function(census: Sequence[Allocation], keep) -> dict[tuple[int, str], list[Allocation]]:  # noqa: ANN001
    groups: dict[tuple[int, str], list[Allocation]] = {}
    for a in census:
        if keep(a):
            groups.setdefault((a.chunk, a.function), []).append(a)
    return groups


def stack_frames(census: Sequence[Allocation], target: Target) -> list[Budget]:
    """One frame per function with stack allocations, in census order: its bounded,
    loop-free stack allocations packed against the target's frame limit."""
    capacity = target.stack.max_frame if target.stack else None
    align = target.stack.alignment if target.stack else 1
    frames = []
    for (chunk, function), allocs in _by_function(census, is_stack).items():
        counted = tuple(a for a in allocs
                        if a.scope_loop_depth == 0 and a.bytes_or_bound is not None)
        excluded = tuple(a for a in allocs if a not in counted)
        frames.append(Budget(chunk, function, counted, pack_allocations(counted, capacity, align),
                             capacity, excluded))
    return frames


def kernel_budgets(census: Sequence[Allocation], target: Target) -> list[Budget]:
    """One workgroup-memory budget per kernel, in census order; none on a target without
    workgroup memory."""
    space = target.workgroup
    if space is None:
        return []
    groups = _by_function(census, lambda a: is_workgroup(a) and a.bytes_or_bound is not None)
    return [Budget(chunk, function, tuple(allocs),
                   pack_allocations(allocs, space.limit_per_kernel, space.alignment),
                   space.limit_per_kernel)
            for (chunk, function), allocs in groups.items()]
