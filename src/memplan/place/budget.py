"""A per-function budget: the allocations of one function in one space, packed with lifetimes.

Shared by the workgroup-memory check (per kernel) and the stack-frame check
(per function): both ask "what is the packed peak of these buffers, and who
contributes to it?" and both answer through the offset planner, never a sum.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..analysis.census import Allocation
from ..pack import Buffer, PackResult, Problem, plan
from .findings import Note


@dataclass(frozen=True)
class FunctionBudget:
    function: str
    allocations: tuple[Allocation, ...]  # bounded ones only: the packed set
    result: PackResult
    limit: int

    @property
    def fits(self) -> bool:
        return self.result.peak <= self.limit

    @property
    def peak(self) -> int:
        return self.result.peak


def pack_function(function: str, allocations: Sequence[Allocation], alignment: int,
                  limit: int) -> FunctionBudget:
    """Pack `allocations` (all bounded) with their lifetimes in op order."""
    buffers = []
    for i, a in enumerate(allocations):
        start, end = a.lifetime
        size = a.bytes_or_bound
        assert size is not None, "pack_function takes bounded allocations only"
        buffers.append(Buffer(str(i), start, max(end, start + 1), size,
                              max(alignment, a.alignment or 1)))
    result = plan(Problem(tuple(buffers), limit))
    return FunctionBudget(function, tuple(allocations), result, limit)


def contributor_notes(allocations: Sequence[Allocation]) -> tuple[Note, ...]:
    """One note per allocation, largest first: what it is and how big."""
    ordered = sorted(allocations, key=lambda a: (-(a.bytes_or_bound or 0), _line(a)))
    return tuple(Note(a.location, _describe(a)) for a in ordered)


def by_function(allocations: Sequence[Allocation]) -> dict[str, list[Allocation]]:
    groups: dict[str, list[Allocation]] = {}
    for a in allocations:
        groups.setdefault(a.function, []).append(a)
    return groups


def _describe(a: Allocation) -> str:
    size = a.bytes_or_bound
    shape = "x".join("?" if d is None else str(d) for d in a.shape)
    kind = "bytes" if a.exact_bytes is not None else "bytes at most (proven bound)"
    start, end = a.lifetime
    return f"{size} {kind}: {a.op_name} {shape}x{a.element_type}, live [{start}, {end})"


def _line(a: Allocation) -> int:
    return a.location.line if a.location else 0
