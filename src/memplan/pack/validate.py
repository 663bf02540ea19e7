"""Check a packing independently of whatever produced it.

Every plan memplan prints or writes passes through `validate` first, so a bug
in a packer shows up as a refusal, never as an overlapping plan.
"""

from __future__ import annotations

from . import kernels
from .problem import Problem, Solution


class InvalidPlan(Exception):
    """A packer returned a plan that breaks the problem's rules (a memplan bug)."""


def violations(
    problem: Problem, solution: Solution, *, check_capacity: bool = True, limit: int = 10
) -> list[str]:
    """Return up to `limit` human-readable reasons the plan is invalid ([] when valid).

    With `check_capacity=False` a plan that is sound but too tall passes: the
    heuristics report such plans (with "fits: no") rather than hide them.
    """
    # Imported here: `memplan.pack` imports this module, and reading a CSV needs no numpy.
    import numpy as np

    from .arrays import problem_arrays

    buffers = problem.buffers
    if len(solution.offsets) != len(buffers):
        return [f"{len(solution.offsets)} offsets for {len(buffers)} buffers"]
    arrays = problem_arrays(problem)
    try:
        offsets = np.array(solution.offsets, dtype=np.int64)
    except OverflowError:
        return ["an offset does not fit in 64 bits"]
    pinned = arrays.fixed >= 0
    bad = (offsets < 0) | (offsets % arrays.aligns != 0) | (pinned & (offsets != arrays.fixed))
    if check_capacity and problem.capacity is not None:
        bad |= offsets + arrays.sizes > problem.capacity
    found: list[str] = []
    for i in np.flatnonzero(bad)[:limit].tolist():
        b, off = buffers[i], int(offsets[i])
        if off < 0:
            found.append(f"buffer '{b.id}' at negative offset {off}")
        if off % b.alignment:
            found.append(f"buffer '{b.id}' at offset {off} breaks alignment {b.alignment}")
        if b.offset is not None and off != b.offset:
            found.append(f"buffer '{b.id}' moved from its fixed offset {b.offset} to {off}")
        if check_capacity and problem.capacity is not None and off + b.size > problem.capacity:
            found.append(
                f"buffer '{b.id}' ends at {off + b.size}, past capacity {problem.capacity}"
            )
    if arrays.regular and kernels.worth_compiling(len(buffers)):
        pairs = kernels.overlapping_pairs(arrays.starts, arrays.ends, arrays.sizes, offsets, limit)
        found.extend(f"buffers '{buffers[j].id}' and '{buffers[i].id}' overlap in time and address"
                     for j, i in pairs.tolist())
    else:
        found.extend(_overlaps(problem, solution, limit))
    return found[:limit]


def _overlaps(problem: Problem, solution: Solution, limit: int) -> list[str]:
    """Sweep in start order, comparing each buffer only with those still live."""
    order = sorted(range(len(problem.buffers)), key=lambda i: problem.buffers[i].start)
    live: list[int] = []
    found: list[str] = []
    for i in order:
        b = problem.buffers[i]
        live = [j for j in live if problem.buffers[j].end > b.start]
        lo, hi = solution.offsets[i], solution.offsets[i] + b.size
        for j in live:
            other_lo = solution.offsets[j]
            if lo < other_lo + problem.buffers[j].size and other_lo < hi:
                found.append(
                    f"buffers '{problem.buffers[j].id}' and '{b.id}' overlap in time and address"
                )
                if len(found) >= limit:
                    return found
        live.append(i)
    return found


def validate(problem: Problem, solution: Solution, *, check_capacity: bool = True) -> None:
    """Raise InvalidPlan naming what is wrong; return silently when the plan is valid."""
    problems = violations(problem, solution, check_capacity=check_capacity)
    if problems:
        raise InvalidPlan("; ".join(problems))
