"""A round of searches on threads answers as one thread would (pack/races.py)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from conftest import DATA, REPO

from memplan.pack.csvio import read_problem
from memplan.pack.search.decide import Decider
from memplan.pack.search.races import run_in_order
from memplan.pack.search.status import SearchStatus


class CountingSearch:
    """Counts nodes up to the limit; answers at node `answer_at`, if given."""

    def __init__(self, answer_at: int | None = None, fails: bool = False):
        self.counters = np.zeros(2, dtype=np.int64)
        self.answer_at = answer_at
        self.fails = fails

    def resume(self, deadline: float) -> int:
        if self.fails:
            raise ValueError("broken search")
        while self.counters[0] < self.counters[1]:
            self.counters[0] += 1
            if self.counters[0] == self.answer_at:
                return SearchStatus.OK
        return SearchStatus.NODE_LIMIT


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_the_searches_after_the_answer_do_not_count(threads: int) -> None:
    searches = [CountingSearch(), CountingSearch(answer_at=50), CountingSearch(answer_at=1)]
    statuses = run_in_order(searches, 20_000, float("inf"), threads)
    # The third answers first in time on threads; the second answers first in order.
    assert statuses == [SearchStatus.NODE_LIMIT, SearchStatus.OK]
    assert [int(s.counters[0]) for s in searches] == [20_000, 50, 0]


@pytest.mark.parametrize("threads", [1, 3])
def test_a_round_without_an_answer_runs_every_search_to_the_limit(threads: int) -> None:
    searches = [CountingSearch(), CountingSearch(), CountingSearch(answer_at=700)]
    assert run_in_order(searches, 500, float("inf"), threads) == [SearchStatus.NODE_LIMIT] * 3
    assert [int(s.counters[0]) for s in searches] == [500, 500, 500]


def test_a_failing_search_raises_in_the_caller() -> None:
    searches = [CountingSearch(), CountingSearch(fails=True), CountingSearch()]
    with pytest.raises(ValueError, match="broken search"):
        run_in_order(searches, 1000, float("inf"), 3)


def test_threads_change_neither_the_verdict_nor_its_node_count() -> None:
    # Node counts set the exact solver's budgets: they must not depend on the cores.
    problem = read_problem(DATA / "minimalloc" / "C.1048576.csv")
    verdicts = [Decider(problem, workers=w).decide(problem.capacity) for w in (1, 3)]
    assert verdicts[0].status == "feasible"
    assert verdicts[0] == verdicts[1]


def test_ctrl_c_in_a_kernel_is_held_until_it_returns() -> None:
    from memplan.pack.kernels import held_interrupts

    reached = []
    # Python installs this handler only when SIGINT is not ignored at start-up; a run
    # started in the background (`nohup`, `&` in a script) inherits SIG_IGN.
    given = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with held_interrupts():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)  # the handler runs here, in the main thread
                reached.append(True)
        assert reached == [True]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, given)


def test_ctrl_c_during_the_search_is_an_interruption() -> None:
    # The search runs in compiled code: Ctrl-C must still end the run as one, with the
    # line of every interruption, not as an internal error or after the search's round.
    child_code = (
        "import signal, sys\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"  # as in a terminal
        "from memplan.cli import main\n"
        "print('ready', flush=True)\n"
        f"sys.exit(main(['pack', {str(DATA / 'minimalloc' / 'D.1048576.csv')!r}, "
        "'--minimize', '--summary']))\n")
    child = subprocess.Popen([sys.executable, "-c", child_code], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True,
                             env={**os.environ, "PYTHONPATH": str(REPO / "src")})
    try:
        assert child.stdout.readline() == "ready\n"
        time.sleep(1.0)  # D's optimum is open: its minimisation searches for a minute
        child.send_signal(signal.SIGINT)
        _, err = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 2
    assert err.strip().splitlines()[-1] == "memplan: interrupted; nothing written"
