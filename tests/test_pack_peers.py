"""The greedy portfolio is never behind a simple peer's planner (issue 35): TFLite
Micro's GreedyMemoryPlanner, written out here plainly from its rule, on random
instances with many equal sizes (where its tie-break, first allocated first, counts)."""

from __future__ import annotations

import random

import pytest

from memplan.pack import Buffer, Problem, pack


def _tflm_greedy_by_size(problem: Problem) -> int:
    """Largest first, equal sizes by first use; each at the lowest offset clear of every
    buffer placed before it that is live at the same time. The peak."""
    order = sorted(range(len(problem.buffers)),
                   key=lambda i: (-problem.buffers[i].size, problem.buffers[i].start))
    placed: list[tuple[int, int, int, int]] = []  # start, end, offset, top
    peak = 0
    for i in order:
        b = problem.buffers[i]
        busy = sorted((lo, hi) for s, e, lo, hi in placed if s < b.end and b.start < e)
        offset = 0
        for lo, hi in busy:
            if offset + b.size <= lo:
                break
            offset = max(offset, hi)
        placed.append((b.start, b.end, offset, offset + b.size))
        peak = max(peak, offset + b.size)
    return peak


@pytest.mark.parametrize("seed", range(12))
def test_the_greedy_plan_is_no_higher_than_tflms(seed):
    rng = random.Random(seed)
    horizon = rng.choice([20, 60, 200])
    buffers = []
    for i in range(rng.randint(40, 160)):
        start = rng.randrange(horizon)
        buffers.append(Buffer(f"b{i}", start, start + rng.randint(1, horizon // 4 + 1),
                              rng.choice([16, 32, 48, 64, 256, 1024]) * rng.randint(1, 3)))
    problem = Problem(buffers)
    assert pack(problem).peak <= _tflm_greedy_by_size(problem)
