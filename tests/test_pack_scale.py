"""The planner's large-instance paths agree with the plain ones they replace.

The compiled greedy core, the compiled overlap sweep and the numpy lower bound
are checked against the direct scans on random problems small enough for both.
"""

import math
import random
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memplan.pack import (
    Buffer,
    Problem,
    Solution,
    lower_bound,
    pack,
    read_problem,
    validate,
    violations,
)
from memplan.pack.arrays import problem_arrays
from memplan.pack.greedy.greedy_core import place_in_order as place_compiled
from memplan.pack.greedy.heuristics import ORDERS, place_by_scan
from memplan.pack.sweep_check import overlapping_pairs
from memplan.pack.validate import _overlaps

# minimalloc's D (213 buffers): its optimum is open, so minimising never finishes.
HARD = Path(__file__).parent / "data" / "D.1048576.csv"


@st.composite
def problems(draw, max_buffers=40):
    """Random lifetimes, sizes and alignments, some buffers pinned (never two
    pinned ones overlapping, as the CSV reader guarantees)."""
    n = draw(st.integers(1, max_buffers))
    horizon = draw(st.integers(1, 60))
    buffers: list[Buffer] = []
    for i in range(n):
        start = draw(st.integers(0, horizon))
        end = start + draw(st.integers(1, 1 + horizon // 2))
        size = draw(st.sampled_from([1, 3, 8, 16, 100])) * draw(st.integers(1, 6))
        alignment = draw(st.sampled_from([1, 1, 1, 2, 8, 64]))
        offset = None
        if draw(st.integers(0, 9)) == 0:
            offset = alignment * draw(st.integers(0, 40))
            if any(b.offset is not None and b.start < end and start < b.end
                   and b.offset < offset + size and offset < b.offset + b.size
                   for b in buffers):
                offset = None
        buffers.append(Buffer(f"b{i}", start, end, size, alignment, offset))
    return Problem(buffers)


@given(problems(), st.sampled_from(sorted(ORDERS)), st.booleans())
@settings(max_examples=300, deadline=None)
def test_compiled_core_places_exactly_as_the_scan(problem, order_name, best_fit):
    arrays = problem_arrays(problem)
    order = ORDERS[order_name](arrays)
    compiled = place_compiled(arrays.section_lo, arrays.section_hi, arrays.n_sections,
                              arrays.sizes, arrays.aligns, arrays.fixed, order, best_fit)
    assert compiled.tolist() == place_by_scan(arrays, order, best_fit).tolist()


@pytest.mark.parametrize("order_name", ["size", "start"])
def test_compiled_core_places_as_the_scan_when_its_arena_fills(order_name):
    """2,000 buffers whose placed blocks never touch (odd sizes at alignment 16) fill
    the block lists past the arena the core starts with (16,000 blocks; they reach
    about 56,000), so the lists are compacted several times on the way."""
    rng = random.Random(3)
    problem = Problem([Buffer(f"b{i}", i, i + 1 + rng.randrange(200), 1 + 2 * rng.randrange(50),
                              16) for i in range(2000)])
    arrays = problem_arrays(problem)
    order = ORDERS[order_name](arrays)
    compiled = place_compiled(arrays.section_lo, arrays.section_hi, arrays.n_sections,
                              arrays.sizes, arrays.aligns, arrays.fixed, order, True)
    assert compiled.tolist() == place_by_scan(arrays, order, True).tolist()


def _reference_bound(problem: Problem) -> int:
    events = sorted([(b.start, b.size) for b in problem.buffers]
                    + [(b.end, -b.size) for b in problem.buffers])
    live = peak = 0
    for _, delta in events:
        live += delta
        peak = max(peak, live)
    pinned = [b.offset + b.size for b in problem.buffers if b.offset is not None]
    return max([peak, *pinned])


@given(problems())
@settings(max_examples=200, deadline=None)
def test_lower_bound_matches_the_event_sweep(problem):
    assert lower_bound(problem) == _reference_bound(problem)


@given(problems(max_buffers=25), st.data())
@settings(max_examples=300, deadline=None)
def test_compiled_overlap_sweep_finds_a_collision_exactly_when_one_exists(problem, data):
    # Offsets from a small range make collisions common; a packer's plan makes them rare.
    n = len(problem.buffers)
    if data.draw(st.booleans()):
        arrays = problem_arrays(problem)
        offsets = place_by_scan(arrays, ORDERS["size"](arrays), True)
        moved = data.draw(st.integers(0, n - 1))
        offsets[moved] = data.draw(st.integers(0, 200))
    else:
        offsets = np.array(data.draw(st.lists(st.integers(0, 300), min_size=n, max_size=n)))
    solution = Solution(tuple(int(o) for o in offsets))
    arrays = problem_arrays(problem)
    pairs = overlapping_pairs(arrays.starts, arrays.ends, arrays.sizes,
                              offsets.astype(np.int64), 10)
    reference = _overlaps(problem, solution, 10)
    assert (len(pairs) == 0) == (len(reference) == 0)
    for j, i in pairs.tolist():  # every pair reported is a real collision
        a, b = problem.buffers[j], problem.buffers[i]
        assert a.start < b.end and b.start < a.end
        assert offsets[j] < offsets[i] + b.size and offsets[i] < offsets[j] + a.size


def test_large_plans_are_checked_by_the_compiled_sweep():
    # 500 buffers in one stack: valid as planned, and one moved buffer is caught.
    buffers = [Buffer(f"b{i}", i % 7, i % 7 + 50, 4) for i in range(500)]
    problem = Problem(buffers)
    offsets = [4 * i for i in range(500)]
    assert violations(problem, Solution(tuple(offsets))) == []
    offsets[300] = offsets[299]
    found = violations(problem, Solution(tuple(offsets)))
    assert found == ["buffers 'b299' and 'b300' overlap in time and address"]


# --- improvement, decomposition, time limit -----------------------------------------

@given(problems(max_buffers=30), st.integers(0, 3))
@settings(max_examples=60, deadline=None)
def test_improvement_never_raises_the_peak_and_stays_valid(problem, rounds):
    from memplan.pack.greedy.heuristics import pack_heuristic
    from memplan.pack.greedy.improve import improve

    start = pack_heuristic(problem)
    # A deadline already passed still returns a checked plan; later ones allow rounds.
    better = improve(problem, start, time.perf_counter() + 0.05 * rounds, lower_bound(problem))
    validate(problem, better, check_capacity=False)
    assert better.peak(problem) <= start.peak(problem)


@st.composite
def concatenations(draw):
    """Two to four small problems one after another in time, each its own partition."""
    parts = [draw(problems(max_buffers=6)) for _ in range(draw(st.integers(2, 4)))]
    buffers, shift = [], 0
    for k, part in enumerate(parts):
        for b in part.buffers:
            offset = b.offset
            buffers.append(Buffer(f"{k}{b.id}", b.start + shift, b.end + shift, b.size,
                                  b.alignment, offset))
        shift += max(b.end for b in part.buffers)
    return Problem(buffers), parts


@given(concatenations())
@settings(max_examples=40, deadline=None)
def test_partitions_are_solved_apart_and_the_peak_is_the_highest_part(case):
    from memplan.pack.search.exact import solve_exact

    whole, parts = case
    result = solve_exact(whole, minimize=True, time_limit=60)
    validate(whole, result.solution, check_capacity=False)
    assert result.status == "optimal"
    alone = [solve_exact(part, minimize=True, time_limit=60) for part in parts]
    assert all(r.status == "optimal" for r in alone)
    assert result.peak == max(r.peak for r in alone)


@given(problems(max_buffers=12), st.integers(2, 4), st.randoms(use_true_random=False))
@settings(max_examples=40, deadline=None)
def test_a_repeated_part_has_one_signature_whatever_the_order_of_its_buffers(part, copies, rng):
    # Copies of one part in time, the whole list shuffled: still one part
    # signature (identical parts share one solve), and the plan merged back
    # from that shared solve is valid for every copy.
    from memplan.pack.greedy.parts import split
    from memplan.pack.search.exact import solve_exact

    if any(b.offset is not None for b in part.buffers):
        part = Problem([Buffer(b.id, b.start, b.end, b.size, b.alignment) for b in part.buffers])
    span = max(b.end for b in part.buffers) - min(b.start for b in part.buffers)
    buffers = [Buffer(f"{k}.{b.id}", b.start + k * span, b.end + k * span, b.size, b.alignment)
               for k in range(copies) for b in part.buffers]
    rng.shuffle(buffers)
    whole = Problem(buffers)
    parts = split(whole)
    assert len({p.signature() for p in parts}) == len({p.signature() for p in split(part)})
    result = solve_exact(whole, minimize=True, time_limit=60)
    validate(whole, result.solution, check_capacity=False)
    assert result.peak == solve_exact(part, minimize=True, time_limit=60).peak


def test_time_limit_bounds_the_whole_run():
    from memplan.pack import PackOptions, read_problem

    problem = read_problem(HARD)
    pack(Problem([Buffer("a", 0, 2, 3, 4), Buffer("b", 1, 3, 3, 4)]), PackOptions(minimize=True))
    for limit in (0.0, 0.5, 2.0):  # whatever the limit, a valid plan (timing: benchmarks)
        result = pack(problem, PackOptions(minimize=True, time_limit=limit))
        validate(problem, result.solution, check_capacity=False)
    # Given time for the greedy start, the search only ever lowers its peak.
    assert result.peak <= pack(problem).peak


def test_numba_without_a_cache_directory_falls_back_with_a_note(monkeypatch, capsys):
    import memplan.pack.kernels.jit as jit

    calls = []

    def fake_njit(cache=False, **options):
        calls.append(cache)
        if cache:
            raise RuntimeError("cannot cache function 'f': no locator available for file 'x'")
        return lambda function: function

    monkeypatch.setattr(jit, "njit", fake_njit)
    monkeypatch.setattr(jit, "_warned", False)

    def f(x):
        return x + 1

    assert jit.compiled()(f)(1) == 2
    assert jit.compiled()(f)(2) == 3
    assert calls == [True, False, True, False]
    err = capsys.readouterr().err
    assert err.count("no writable numba cache directory") == 1


def test_a_one_byte_grain_does_not_make_the_bound_creep():
    # The pin at an odd offset makes every peak a multiple of 1 byte only; the
    # optimum (a on top of the pin) is half again the bound. Proving it takes a
    # few dozen halvings; asking the bound first every time raised it one byte
    # per proof and never finished.
    from memplan.pack.search.exact import solve_exact

    problem = Problem([Buffer("a", 0, 4, 2**40), Buffer("b", 1, 5, 1, offset=2**39 + 1),
                       Buffer("c", 2, 6, 7), Buffer("d", 3, 7, 3), Buffer("e", 0, 7, 1000, 8)])
    result = solve_exact(problem, minimize=True, time_limit=30)
    assert result.status == "optimal"
    assert result.peak == 2**39 + 2 + 2**40  # a on b; c, d, e fit below b


def test_areas_past_int64_keep_their_order():
    from memplan.pack.search.decide import _areas

    sizes = np.array([2**40, 2**40, 3, 2**39], dtype=np.int64)
    widths = np.array([2**40, 2**39, 5, 2**40], dtype=np.int64)
    areas = _areas(sizes, widths)
    exact = [int(s) * int(w) for s, w in zip(sizes, widths, strict=True)]
    for i in range(4):
        for j in range(4):
            assert (areas[i] < areas[j]) == (exact[i] < exact[j])
            assert (areas[i] == areas[j]) == (exact[i] == exact[j])


def test_a_large_part_is_improved_and_reports_progress():
    # Over EXACT_MAX_BUFFERS in one partition: the reordering search, not the exact
    # one. Long-lived large buffers among short ones: greedy leaves the peak above the
    # bound, and reordering reaches it within a few runs (0.05 s here when idle).
    import random

    from memplan.pack import PackOptions

    rng = random.Random(0)
    buffers = []
    for i in range(3200):
        start = rng.randrange(0, 3000)
        long = rng.random() < 0.05
        end = start + (rng.randrange(500, 2500) if long else rng.randrange(1, 60))
        size = rng.choice([64, 256, 1024, 4096]) * rng.randrange(1, 9) * (8 if long else 1)
        buffers.append(Buffer(f"b{i}", start, end, size))
    problem = Problem(buffers)
    heard = []
    result = pack(problem, PackOptions(
        minimize=True, time_limit=20.0,
        on_progress=lambda peak, bound: heard.append((peak, bound))))
    validate(problem, result.solution, check_capacity=False)
    assert all(peak >= bound for peak, bound in heard)
    assert result.peak < heard[0][0] == pack(problem).peak  # below the greedy start
    assert heard[-1][0] == result.peak


@given(concatenations(), st.integers(0, 400))
@settings(max_examples=40, deadline=None)
def test_a_capacity_fits_the_whole_exactly_when_it_fits_every_part(case, capacity):
    from memplan.pack.search.exact import solve_exact

    whole, parts = case
    result = solve_exact(whole, capacity=capacity, time_limit=60)
    alone = [solve_exact(part, capacity=capacity, time_limit=60) for part in parts]
    fits = all(r.status in ("optimal", "feasible") for r in alone)
    assert (result.status in ("optimal", "feasible")) == fits
    assert (result.status == "infeasible") == (not fits)
    if fits:
        validate(Problem(whole.buffers, capacity), result.solution)


@settings(max_examples=20, deadline=None)
@given(problems(max_buffers=60))
def test_greedy_runs_on_threads_are_the_runs_made_one_by_one(problem):
    from memplan.pack.greedy import heuristics

    listed = []
    for workers in (1, 2, 3):
        heuristics._kept_runs.clear()  # no reuse of the previous call's runs
        runs = heuristics.greedy_runs(problem, workers=workers)
        listed.append([(r.order_name, r.fit, r.offsets.tolist(), r.peak) for r in runs])
    assert listed[0] == listed[1] == listed[2]


def test_a_question_asked_again_resumes_where_it_paused():
    # D fits 1048576 after about 150,000 nodes: asked under budgets that leave it
    # unknown twice, then without one, it costs the same nodes and gives the same
    # plan as one question without a budget.
    from memplan.pack import read_problem
    from memplan.pack.search.decide import Decider

    problem = read_problem(HARD)
    once = Decider(problem).decide(1048576)
    decider = Decider(problem)
    steps = [decider.decide(1048576, node_budget=budget) for budget in (1 << 12, 1 << 14, None)]
    assert [v.status for v in steps] == ["unknown", "unknown", once.status]
    assert once.status == "feasible"
    assert steps[-1].offsets == once.offsets
    assert sum(v.nodes for v in steps) == once.nodes


@given(concatenations(), st.sampled_from([0.0, 0.001, 0.01, 1.0]))
@settings(max_examples=40, deadline=None)
def test_parts_minimised_under_any_limit_never_end_above_the_greedy_start(case, limit):
    # The first progress report is the greedy start (under a limit of 0 only the
    # first strategy runs); every later one, and the result, is no higher.
    from memplan.pack.search.exact import solve_exact

    whole, _ = case
    heard = []
    result = solve_exact(whole, minimize=True, time_limit=limit,
                         on_progress=lambda peak, bound: heard.append((peak, bound)))
    validate(whole, result.solution, check_capacity=False)
    peaks = [peak for peak, _ in heard]
    assert peaks == sorted(peaks, reverse=True)
    assert result.peak <= peaks[0]
    assert lower_bound(whole) <= result.best_bound <= result.peak


def test_a_part_above_the_floor_is_only_fitted_to_it():
    # D's optimum is open (bound 986112, best known 998400), but concatenated after
    # A (optimum 1048576 = its bound) it need only fit 1048576: the whole is
    # proven optimal without proving anything about D alone.
    from memplan.pack import read_problem
    from memplan.pack.search.exact import solve_exact

    a = read_problem(HARD.parent / "minimalloc" / "A.1048576.csv")
    d = read_problem(HARD)
    shift = max(b.end for b in a.buffers)
    whole = Problem([*a.buffers, *(Buffer(f"d{b.id}", b.start + shift, b.end + shift, b.size,
                                          b.alignment, b.offset) for b in d.buffers)])
    result = solve_exact(whole, minimize=True, time_limit=60)
    assert result.status == "optimal"
    assert result.peak == result.best_bound == 1048576


def test_a_part_that_cannot_reach_the_floor_does_not_hold_the_others_back():
    # D's fit at its own bound (986112) is out of reach, and its greedy peak is the
    # highest; A scaled by 7/8 (bound 917504) fits D's bound easily. The parts
    # take turns under node budgets: A's part reaches the floor and D's is
    # lowered, where solving D first would spend the whole limit on it.
    from memplan.pack import read_problem
    from memplan.pack.greedy.heuristics import pack_heuristic
    from memplan.pack.search.exact import solve_exact

    a = read_problem(HARD.parent / "minimalloc" / "A.1048576.csv")
    d = read_problem(HARD)
    small = [Buffer(b.id, b.start, b.end, b.size // 8 * 7, b.alignment) for b in a.buffers]
    shift = max(b.end for b in d.buffers)
    whole = Problem([*d.buffers, *(Buffer(f"a{b.id}", b.start + shift, b.end + shift, b.size,
                                          b.alignment) for b in small)])
    d_greedy = pack_heuristic(d).peak(d)
    assert pack_heuristic(Problem(small)).peak(Problem(small)) > 986112
    result = solve_exact(whole, minimize=True, time_limit=6)  # 2 s failed at load 10 on 2 cores
    offsets, sizes = result.solution.offsets, [b.size for b in whole.buffers]
    n = len(d.buffers)
    assert max(o + s for o, s in zip(offsets[n:], sizes[n:], strict=True)) <= 986112
    assert result.peak < d_greedy


def _chain(piece: Problem, period: int, copies: int, tag: str) -> list[Buffer]:
    return [Buffer(f"{tag}{k}.{b.id}", b.start + k * period, b.end + k * period, b.size,
                   b.alignment, b.offset) for k in range(copies) for b in piece.buffers]


def test_two_programs_listed_one_after_the_other_are_packed_as_two_layers():
    # Two chains of small programs on one time axis, with periods 10 and 11:
    # nothing splits before time 110, 1,050 buffers in one part. Each chain
    # alone splits into its copies, so each layer is solved by parts and the
    # stacked plan peaks at the sum of the two programs' optima.
    import random

    from memplan.pack.greedy.heuristics import pack_heuristic
    from memplan.pack.search.exact import _layered, solve_exact
    from memplan.pack.search.layers import split_point

    rng = random.Random(1)

    def piece(period: int) -> Problem:
        spans = [(0, period)] + [sorted(rng.sample(range(period + 1), 2)) for _ in range(49)]
        return Problem([Buffer(f"b{i}", lo, hi, rng.choice([1, 2, 4]) * 16)
                        for i, (lo, hi) in enumerate(spans)])

    first, second = piece(10), piece(11)
    whole = Problem([*_chain(first, 10, 11, "x"), *_chain(second, 11, 10, "y")])
    assert len(whole.buffers) == 1050
    assert split_point(whole)[0] == 550
    greedy = pack_heuristic(whole)
    stacked = _layered(whole, greedy, math.inf, 1, None)
    validate(whole, stacked, check_capacity=False)
    optima = [solve_exact(p, minimize=True).peak for p in (first, second)]
    assert stacked.peak(whole) == min(sum(optima), greedy.peak(whole))


def test_pinned_buffers_are_never_stacked():
    from memplan.pack.search.layers import split_point

    # As above, but one buffer of the first program is pinned: moving the upper
    # layer could move a pin, so no split is offered.
    pinned = Problem([Buffer("a", 0, 5, 8), Buffer("b", 2, 7, 8, offset=0)])
    free = Problem([Buffer("a", 0, 5, 8), Buffer("b", 2, 8, 8)])
    whole = Problem([*_chain(pinned, 7, 600, "x"), *_chain(free, 8, 525, "y")])
    assert len(whole.buffers) >= 1000
    assert split_point(whole) is None


def test_a_part_with_a_coarser_grain_than_the_floor_is_still_lowered_or_proven():
    """The floor (129: the other part's bound) is not a multiple of this part's
    grain (16); the part at 144 must be asked for 128, not for 144 (the floor
    rounded up, which it already had): that looped until the time limit."""
    from memplan.pack.search.exact import solve_exact

    coarse = [Buffer("c0", 0, 27, 32, 64), Buffer("c1", 0, 1, 80, 64)]
    fine = [Buffer("f0", 30, 31, 128, 1), Buffer("f1", 30, 31, 1, 1)]
    result = solve_exact(Problem(coarse + fine), minimize=True, time_limit=30)
    assert result.status == "optimal" and result.peak == 144


def _striped(rng, stripes: list[int], span: int, pieces: int, tag: str) -> list[Buffer]:
    """A program that tiles [0, span) x [0, sum(stripes)) exactly: each stripe
    cut at random times into pieces, listed in a random order. Live bytes are
    the stripes' sum at every moment, so that is its bound and its optimum."""
    rects = []
    for size in stripes:
        cuts = sorted(rng.sample(range(1, span), pieces // len(stripes) - 1))
        rects += [(lo, hi, size) for lo, hi in zip([0, *cuts], [*cuts, span], strict=True)]
    rng.shuffle(rects)
    return [Buffer(f"{tag}{i}", lo, hi, size) for i, (lo, hi, size) in enumerate(rects)]


def test_programs_named_apart_on_one_time_axis_are_stacked_as_layers():
    # minimalloc's A-F on one time axis, their buffers named A0, ..., F295 (the
    # side-by-side instance of benchmarks/pack_scale.py, cut to six): nothing
    # splits in time and the greedy plan is far above six times 1 MiB, which
    # each program alone fits, so stacked they fit it.
    from memplan.pack.greedy.heuristics import pack_heuristic
    from memplan.pack.search.exact import solve_exact
    from memplan.pack.search.layers import by_name

    folder = Path(__file__).parent / "data" / "minimalloc"
    programs = [[Buffer(f"{k}{b.id}", b.start, b.end, b.size, b.alignment)
                 for b in read_problem(folder / f"{k}.1048576.csv").buffers] for k in "ABCDEF"]
    whole = Problem([b for program in programs for b in program], 6 * 1048576)
    layers = by_name(whole)
    assert [[whole.buffers[i].id for i in layer] for layer in layers] == [
        [b.id for b in program] for program in programs]
    assert pack_heuristic(whole).peak(whole) > whole.capacity
    result = solve_exact(whole, time_limit=300)
    assert result.status in ("feasible", "optimal") and result.peak <= whole.capacity
    assert result.solution.strategy == "6 layers"
    validate(whole, result.solution)


def test_programs_that_never_meet_or_have_no_names_are_not_layers():
    import random

    from memplan.pack.search.layers import by_name

    rng = random.Random(4)
    side_by_side = [b for k in range(5) for b in _striped(rng, [64] * 10, 64, 220, f"p{k}_")]
    # Without names to tell the programs apart there is nothing to stack.
    anonymous = Problem([Buffer(str(i), b.start, b.end, b.size)
                         for i, b in enumerate(side_by_side)])
    assert by_name(anonymous) is None
    # Programs one after another in time: the time partitions split them already.
    in_turn = Problem([Buffer(b.id, b.start + 64 * int(b.id[1]), b.end + 64 * int(b.id[1]),
                              b.size) for b in side_by_side])
    assert by_name(in_turn) is None
    # A stack whose bounds sum to no less than the plan held is not offered.
    named = Problem(side_by_side)
    assert len(by_name(named)) == 5 and by_name(named, below=5 * 640) is None
    pinned = Problem([*side_by_side[:-1], Buffer("p4_x", 0, 1, 8, offset=0)])
    assert by_name(pinned) is None
