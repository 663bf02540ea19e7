"""A one-line live status of the step a long command is in (stderr, a terminal only).

Code that takes a while says which step it starts with `step("...")`, a no-op unless a
command shows progress (`StepProgress` around its work). A step is shown once it has
taken a second; the line disappears when the work ends, so what is printed is the same
with or without it (`pack_progress.wanted` decides, as for packing).
"""

from __future__ import annotations

import time
from types import TracebackType

SHOW_AFTER = 1.0  # seconds

_current: StepProgress | None = None


def step(label: str) -> None:
    """The work in progress is now `label` (shown by the active StepProgress, if any)."""
    if _current is not None:
        _current.label, _current.started = label, time.perf_counter()


class StepProgress:
    """Context manager that shows the current `step` while it runs."""

    def __init__(self, enabled: bool):
        self.enabled = enabled
        self.label = ""
        self.started = time.perf_counter()
        self._live = None

    def __rich__(self) -> object:
        from rich.text import Text

        elapsed = time.perf_counter() - self.started
        if not self.label or elapsed < SHOW_AFTER:
            return Text("")
        return Text(f"{self.label}  {elapsed:.0f} s", style="dim")

    def __enter__(self) -> StepProgress:
        global _current
        if self.enabled:
            from rich.console import Console
            from rich.live import Live

            self._live = Live(self, console=Console(stderr=True), transient=True,
                              refresh_per_second=4)
            self._live.start()
            _current = self
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        global _current
        if self._live is not None:
            self._live.stop()
            _current = None
