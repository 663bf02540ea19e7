"""Programs found as runs of the input order (pack/runs.py) and stacked as layers:
minimalloc's A-F side by side on one time axis, their rows numbered 0, 1, ...
so that nothing but the times and sizes tells the programs apart."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from memplan.pack import Buffer, Problem, read_problem, validate
from memplan.pack.search.decide import node_limit
from memplan.pack.search.exact import solve_exact
from memplan.pack.search.layers import by_name, by_runs, find_layers
from memplan.pack.search.runs import program_runs

FOLDER = Path(__file__).parent / "data" / "minimalloc"
LETTERS = "ABCDEF"


def _programs() -> list[list[Buffer]]:
    return [list(read_problem(FOLDER / f"{k}.1048576.csv").buffers) for k in LETTERS]


def _numbered(buffers: list[Buffer], capacity: int | None = None) -> Problem:
    return Problem([Buffer(str(i), b.start, b.end, b.size, b.alignment)
                    for i, b in enumerate(buffers)], capacity)


@pytest.fixture(scope="module")
def side_by_side() -> tuple[Problem, list[int]]:
    """A-F on one time axis, listed program after program; and where each one ends."""
    programs = _programs()
    ends, total = [], 0
    for program in programs:
        total += len(program)
        ends.append(total)
    return _numbered([b for program in programs for b in program], 6 * 1048576), ends


def test_the_runs_are_the_programs(side_by_side):
    problem, ends = side_by_side
    assert by_name(problem) is None  # every id is a number: one name
    assert program_runs(problem) == ends
    assert by_runs(problem) == [list(range(lo, hi)) for lo, hi in zip([0, *ends[:-1]], ends,
                                                                      strict=True)]


@pytest.mark.parametrize("key", [lambda b: (b.start, b.end), lambda b: (b.end, b.start)],
                         ids=["by-start", "by-end"])
def test_programs_each_listed_in_time_order_are_the_runs(side_by_side, key):
    # Each program's rows by allocation (or free) time, as a dump lists them.
    _, ends = side_by_side
    problem = _numbered([b for program in _programs() for b in sorted(program, key=key)])
    assert program_runs(problem) == ends


def test_programs_side_by_side_with_numeric_ids_fit_their_capacity(side_by_side):
    # Each program alone fits 1 MiB, so stacked they fit the capacity (6 MiB);
    # the search over the whole, without layers, stays far above it.
    problem, _ = side_by_side
    # A stop in nodes, not seconds: the fit took 3.9M (8.6 s CPU); 120 s of wall clock ran
    # out on a loaded machine.
    with node_limit(1 << 24):
        result = solve_exact(problem)
    assert result.status in ("feasible", "optimal")
    assert result.peak <= problem.capacity
    assert result.solution.strategy == "6 layers"
    validate(problem, result.solution)


def test_a_shuffled_listing_has_no_runs(side_by_side):
    # Order-free layers are not found: shuffled, no cut of the input order is
    # cheap, and no layers are offered (the search over the whole goes on).
    problem, _ = side_by_side
    shuffled = list(problem.buffers)
    random.Random(7).shuffle(shuffled)
    shuffled_problem = _numbered(shuffled, problem.capacity)
    assert program_runs(shuffled_problem) is None
    assert find_layers(shuffled_problem, by_order=False) is None


def test_one_program_repeated_in_time_is_not_cut():
    # A-F one after another in time: every cut inside the listing would cost a
    # whole program's bound, and programs that never meet are one layer anyway.
    shift, buffers = 0, []
    for program in _programs():
        buffers += [Buffer(b.id, b.start + shift, b.end + shift, b.size) for b in program]
        shift += max(b.end for b in program)
    assert by_runs(_numbered(buffers)) is None


def test_runs_are_not_offered_when_they_cannot_beat_the_plan_held(side_by_side):
    problem, ends = side_by_side
    layers = by_runs(problem)
    assert layers is not None and len(layers) == 6
    bounds = sum(max(_live(problem, layer)) for layer in layers)
    assert by_runs(problem, below=bounds) is None
    assert by_runs(problem, below=bounds + 1) == layers
    pinned = Problem([*problem.buffers[:-1], Buffer("x", 0, 1, 8, offset=0)])
    assert by_runs(pinned) is None


def _live(problem: Problem, layer: list[int]) -> list[int]:
    """Live bytes at each buffer's start, counted directly (no bound code)."""
    buffers = [problem.buffers[i] for i in layer]
    return [sum(o.size for o in buffers if o.start <= b.start < o.end) for b in buffers]
