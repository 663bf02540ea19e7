"""A time limit only ever stops improvement: `--time-limit S`, any S, never gives a
higher peak than the same run without it (issue 25).

No wall time is asserted: the limits here are zero, tiny, or already past when the
call starts, which is where a limit used to cut the greedy start short.
"""

from __future__ import annotations

import time
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from memplan.cli import main
from memplan.pack import Buffer, PackOptions, Problem, pack, validate
from memplan.pack.greedy import heuristics


@st.composite
def programs(draw):
    """One to three random programs one after another in time (each a part of its own),
    the last of them sometimes overlapping the one before (then they form one part)."""
    buffers: list[Buffer] = []
    shift = 0
    for k in range(draw(st.integers(1, 3))):
        n = draw(st.integers(1, 25))
        horizon = draw(st.integers(1, 40))
        for i in range(n):
            start = draw(st.integers(0, horizon))
            end = start + draw(st.integers(1, 1 + horizon // 2))
            size = draw(st.sampled_from([1, 3, 8, 16, 100])) * draw(st.integers(1, 6))
            alignment = draw(st.sampled_from([1, 1, 2, 8]))
            buffers.append(Buffer(f"p{k}b{i}", start + shift, end + shift, size, alignment))
        shift = max(b.end for b in buffers) - draw(st.sampled_from([0, 0, 3]))
    capacity = draw(st.none() | st.integers(1, 400))
    return Problem(buffers, capacity)


def _greedy_peak(problem: Problem) -> int:
    # A fresh Problem: the greedy runs of the last problem are cached by identity.
    return pack(Problem(problem.buffers, problem.capacity)).peak


@given(programs(), st.sampled_from([0.0, 1e-6, 1e-3, 0.02]), st.booleans(),
       st.sampled_from([None, 5]))
@settings(max_examples=120, deadline=None)
def test_a_time_limit_never_raises_the_peak(problem, limit, minimize, cheap_from):
    # cheap_from=5 sends these small problems through the large-problem portfolio.
    threshold = cheap_from or heuristics.CHEAP_PORTFOLIO_FROM
    with mock.patch.object(heuristics, "CHEAP_PORTFOLIO_FROM", threshold):
        without = _greedy_peak(problem)
        limited = pack(Problem(problem.buffers, problem.capacity),
                       PackOptions(exact=True, minimize=minimize, time_limit=limit))
    validate(limited.problem, limited.solution, check_capacity=False)
    if problem.capacity is not None and not minimize and without <= problem.capacity:
        # Fitting a capacity, the greedy start stops at its first strategy that fits
        # (search/start.py): the answer is a fit, not the lowest of every strategy.
        assert limited.fits
    else:
        assert limited.peak <= without


@given(programs())
@settings(max_examples=40, deadline=None)
def test_a_limit_spent_before_the_call_still_gives_the_greedy_plan(problem):
    # As when Python's start-up alone outlasts `--time-limit`: the deadline is past.
    limited = pack(Problem(problem.buffers, problem.capacity),
                   PackOptions(minimize=True, time_limit=0.5, started=time.perf_counter() - 10))
    assert limited.peak <= _greedy_peak(problem)


def test_cli_time_limit_zero_is_no_worse_than_none(tmp_path, capsys):
    rows = ["id,lower,upper,size"] + [f"b{i},{i % 7},{i % 7 + 1 + i % 5},{8 + 8 * (i % 9)}"
                                     for i in range(60)]
    path = tmp_path / "p.csv"
    path.write_text("\n".join(rows) + "\n")

    def peak(*options: str) -> int:
        assert main(["pack", str(path), "--summary", *options]) == 0
        out = capsys.readouterr().out
        return int(next(line.split()[-1] for line in out.splitlines()
                        if line.startswith("peak ")))

    assert peak("--time-limit", "0") <= peak()


def test_the_limit_counts_from_the_process_start_only_for_the_memplan_command(monkeypatch):
    import sys
    import types

    from memplan.pack.clock import command_started

    before = time.perf_counter()
    assert command_started() >= before  # pytest's process: the limit counts from the call
    fake = types.ModuleType("__main__")
    fake.__file__ = "/usr/local/bin/memplan"  # the console script
    monkeypatch.setitem(sys.modules, "__main__", fake)
    assert command_started() < before  # this process started before the test did


def test_a_spent_deadline_loads_no_search_kernels():
    # With numba's JIT, loading the search's kernels took 0.1 s CPU (0.4 s wall at load
    # 7) after the deadline had passed during the greedy start (issue 35).
    problem = Problem([Buffer(f"b{i}", i, i + 3, 8 + i % 5) for i in range(30)], capacity=1)
    from memplan.pack.search import decide

    with mock.patch.object(decide, "load_search") as load:
        result = pack(problem, PackOptions(minimize=True, time_limit=1.0,
                                           started=time.perf_counter() - 5.0))
        assert load.call_count == 0
        pack(Problem(problem.buffers, 1), PackOptions(minimize=True, time_limit=60.0))
        assert load.call_count >= 1  # the check itself can see a load
    assert result.peak == _greedy_peak(problem)
