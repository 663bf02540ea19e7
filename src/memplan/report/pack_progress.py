"""A one-line live status of a long packing run on the terminal (stderr).

Shown only once the run has taken a second, and only when both stdout and
stderr are terminals and the output is not JSON; it disappears when the run
ends, so what is printed afterwards is the same with or without it.
"""

from __future__ import annotations

import sys
import time
from types import TracebackType

SHOW_AFTER = 1.0  # seconds


class PackProgress:
    """Context manager; `update(best peak, bound)` is the solver's progress callback."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.started = time.perf_counter()
        self.peak: int | None = None
        self.bound: int | None = None
        self._live = None

    def update(self, peak: int, bound: int) -> None:
        self.peak, self.bound = peak, bound

    def __rich__(self) -> object:
        from rich.text import Text

        elapsed = time.perf_counter() - self.started
        if elapsed < SHOW_AFTER:
            return Text("")
        if self.peak is None or self.bound is None:
            return Text(f"packing: greedy start  {elapsed:.1f} s", style="dim")
        gap = (self.peak - self.bound) / self.bound if self.bound else 0.0
        return Text(f"packing: best peak {self.peak:,}  bound {self.bound:,}  gap {gap:.2%}  "
                    f"{elapsed:.1f} s", style="dim")

    def __enter__(self) -> PackProgress:
        if self.enabled:
            from rich.console import Console
            from rich.live import Live

            self._live = Live(self, console=Console(stderr=True), transient=True,
                              refresh_per_second=4)
            self._live.start()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self._live is not None:
            self._live.stop()


def wanted(json_output: bool) -> bool:
    """Progress goes to a person watching a terminal, never into captured output."""
    return not json_output and sys.stdout.isatty() and sys.stderr.isatty()
