"""A whole-model arena: the tensors of a model front end packed at static offsets.

`plan_arena` packs with memplan's planner (exact within a time budget); tensors an
in-place op lets share bytes are one buffer. `tflm_greedy` is TFLM's own planner
(`GreedyMemoryPlanner`: largest first, ties in the reverse of the order buffers were
added, each at the lowest offset where it fits among those live with it), to show what
the runtime needs without an offline plan. `split_pools` puts the tensors across a
target's pools by the placement policy when one memory is not enough.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..analysis.allocation import Allocation
from ..models.arena import ArenaTensor, share_groups
from ..pack import Buffer, PackResult, Problem, Solution, lower_bound, plan, validate
from ..pack.heuristics import place_in_order
from ..pack.planner import plan_exact
from ..targets import Target
from .policy import Placement, Request, place


@dataclass(frozen=True)
class ArenaPlan:
    groups: tuple[tuple[ArenaTensor, ...], ...]  # one packed buffer per group
    result: PackResult

    @property
    def offsets(self) -> dict[int, int]:
        """Tensor key -> byte offset in the arena."""
        return {t.key: off for group, off in zip(self.groups, self.result.solution.offsets,
                                                  strict=True) for t in group}

    @property
    def peak(self) -> int:
        return self.result.peak

    @property
    def lower_bound(self) -> int:
        return self.result.lower_bound


def arena_problem(tensors: list[ArenaTensor], alignment: int,
                  capacity: int | None = None) -> tuple[Problem, list[list[ArenaTensor]]]:
    """One buffer per group of tensors that share bytes: the largest size, the union of
    the lifetimes (an in-place chain is contiguous in time)."""
    groups = share_groups(tensors)
    buffers = [
        Buffer(group[0].name, min(t.start for t in group), max(t.end for t in group),
               max(t.size for t in group), alignment)
        for group in groups
    ]
    return Problem(buffers, capacity), groups


def plan_arena(tensors: list[ArenaTensor], *, alignment: int, capacity: int | None = None,
               time_limit: float | None = 10.0) -> ArenaPlan:
    """memplan's plan: the exact solver minimises the peak within `time_limit` seconds
    (None: the heuristics only)."""
    problem, groups = arena_problem(tensors, alignment, capacity)
    if time_limit is None or not problem.buffers:
        result = plan(problem)
    else:
        # The exact solver proves against the capacity; minimising needs none.
        result = plan_exact(dataclasses.replace(problem, capacity=None), minimize=True,
                            time_limit=time_limit)
        result = dataclasses.replace(result, problem=problem)
    return ArenaPlan(tuple(tuple(g) for g in groups), result)


def tflm_greedy(tensors: list[ArenaTensor], alignment: int) -> ArenaPlan:
    """TFLM's GreedyMemoryPlanner on the same tensors (given in the order TFLM adds them)."""
    problem, groups = arena_problem(tensors, alignment)
    # TFLM fills its online buffers from the back of its list, so before sorting they are
    # in reverse order; its ReverseSortInPlace swaps only on <, so it is stable: equal
    # sizes stay in reverse order. Python's sort is stable too.
    order = sorted(reversed(range(len(problem.buffers))), key=lambda i: -problem.buffers[i].size)
    solution = Solution(tuple(place_in_order(problem, order, best_fit=False)), "tflm-greedy")
    validate(problem, solution, check_capacity=False)
    result = PackResult(problem, solution, lower_bound(problem), solution.peak(problem), 0.0)
    return ArenaPlan(tuple(tuple(g) for g in groups), result)


def split_pools(tensors: list[ArenaTensor], target: Target,
                devices: tuple[str, ...] | None = None
                ) -> tuple[Placement, list[list[ArenaTensor]]]:
    """Each group of tensors in one of the target's pools (in the target's order, smallest
    first while the pool's packed peak fits: the placement policy of `memplan place`);
    the placement's decisions are in the order of the groups returned."""
    pools_only = dataclasses.replace(target, stack=None, heap=None)
    devices = devices or (target.default_device,)
    requests = []
    groups = share_groups(tensors)
    for group in groups:
        size = max(t.size for t in group)
        allocation = Allocation(
            op_name="tensor", function="model", location=None, element_type="i8",
            shape=(size,), element_bytes=1, exact_bytes=size, bound_bytes=size,
            unbounded_reason=None, memory_space=None, loop_depth=0,
            lifetime=(min(t.start for t in group), max(t.end for t in group)))
        requests.append(Request(allocation, devices))
    return place(requests, pools_only), groups
