"""A round of searches run as one thread would run them, on several threads.

One thread runs a round's searches one after the other and stops at the first
that answers (finds a plan, proves there is none, or meets the deadline): the
searches after it never start. On threads the searches are taken in the same
order, and a search that answers stops the later ones that are running (they
pause at their next node) and keeps the rest from starting; the nodes of a
stopped search are not counted. The statuses returned and every node count are
then the serial run's, whatever the number of threads and whichever finishes
first: extra threads only shorten the wall time, and spend no nodes a serial
run would not spend beyond those of the searches they stopped.

The calling thread only waits: Ctrl-C reaches Python there at once, where a
compiled search running on it would hold the signal until the search returns
(seconds, in a late round); the searches are then stopped at their next node.
Helpers live for the process: a round lasts milliseconds, and starting threads
anew for each cost 0.6 s of a 5 s run (loaded machine).
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Protocol

import numpy as np

from .status import SearchStatus


class Resumable(Protocol):
    counters: np.ndarray  # [nodes so far, node limit]: the search reads both at every node

    def resume(self, deadline: float) -> int:
        """Search until the node limit (a SearchStatus)."""


def run_in_order(searches: Sequence[Resumable], limit: int, deadline: float,
                 threads: int) -> list[int]:
    """Advance each search to `limit` nodes, in order, until one answers: the statuses up
    to that one, or all of them (each NODE_LIMIT) when none does. A search after the
    answer is left as it was (its node count too), except for its limit. `threads`
    helper threads run the searches; 0 runs them on the calling thread."""
    race = _Race(searches, limit, deadline)
    helpers = min(threads, len(searches))
    crew = _crew(helpers) if helpers > 0 else None
    if crew is None or not crew.run(race):
        race.work()
    return race.result()


class _Race:
    def __init__(self, searches: Sequence[Resumable], limit: int, deadline: float):
        self.searches = searches
        self.limit = limit
        self.deadline = deadline
        self.statuses: list[int] = [SearchStatus.NODE_LIMIT] * len(searches)
        self.nodes_before = [int(s.counters[0]) for s in searches]
        self.taken = 0  # searches started so far, in order
        self.answer = len(searches)  # the first search known to have answered
        self.error: BaseException | None = None
        self.lock = threading.Lock()

    def work(self) -> None:
        """Take the next search not yet started until none is left before the answer."""
        while True:
            with self.lock:
                index = self.taken
                if index >= self.answer:
                    return
                self.taken += 1
                # Set under the lock, so that a stop (below) cannot come before it.
                self.searches[index].counters[1] = self.limit
            try:
                status = self.searches[index].resume(self.deadline)
            except BaseException as err:  # an interrupt, or a bug: stop every search, then raise
                self.stop(err)
                return
            with self.lock:
                self.statuses[index] = status
                if status != SearchStatus.NODE_LIMIT and index < self.answer:
                    self._stop_after(index)

    def _stop_after(self, index: int) -> None:
        self.answer = index
        for later in self.searches[index + 1: self.taken]:
            later.counters[1] = 0  # it pauses at its next node

    def stop(self, err: BaseException) -> None:
        """Stop every search (an interrupt): `result` raises `err`."""
        with self.lock:
            self.error = self.error or err
            self._stop_after(-1)

    def result(self) -> list[int]:
        if self.error is not None:
            raise self.error
        counted = min(self.answer + 1, len(self.searches))
        for later, before in zip(self.searches[counted:], self.nodes_before[counted:],
                                 strict=True):
            later.counters[0] = before  # a serial run would not have run it
        return self.statuses[:counted]


class _Crew:
    """`size` helper threads that run whatever race the caller hands them."""

    def __init__(self, size: int):
        self.size = size
        self.ready = threading.Condition()
        self.race: _Race | None = None
        self.generation = 0
        self.working = 0
        self.in_use = threading.Lock()  # one race at a time
        for number in range(size):
            threading.Thread(target=self._help, name=f"search-{number + 1}", daemon=True).start()

    def run(self, race: _Race) -> bool:
        """Run `race` on the helpers and wait for them; False (nothing run) when they are
        busy with another caller's race."""
        if not self.in_use.acquire(blocking=False):
            return False
        try:
            with self.ready:
                self.race = race
                self.generation += 1
                self.working = self.size
                self.ready.notify_all()
                while self.working:
                    try:
                        self.ready.wait()
                    except BaseException as err:  # Ctrl-C: the searches stop at their next node
                        race.stop(err)
        finally:
            self.in_use.release()
        return True

    def _help(self) -> None:
        seen = 0
        while True:
            with self.ready:
                while self.generation == seen:
                    self.ready.wait()
                seen, race = self.generation, self.race
            assert race is not None
            race.work()
            with self.ready:
                self.working -= 1
                self.ready.notify_all()


_crews: dict[int, _Crew] = {}
_crews_lock = threading.Lock()


def _crew(helpers: int) -> _Crew:
    with _crews_lock:
        if helpers not in _crews:
            _crews[helpers] = _Crew(helpers)
        return _crews[helpers]
