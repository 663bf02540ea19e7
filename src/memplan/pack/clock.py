"""When a command's time limit starts: at the process's start, so that Python's
start-up and the imports count against `--time-limit S` like the search does."""

from __future__ import annotations

import os
import time

# A process that has run longer than this before the command began is not a fresh
# `memplan` process (a test or a program calling `memplan.cli.main`): its limit
# counts from the call instead.
START_UP_MAX = 2.0  # seconds


def command_started() -> float:
    """The start of this command on the `time.perf_counter` clock: the process's start
    (Linux: from /proc, to the kernel's tick) when it is recent, else now."""
    now = time.perf_counter()
    try:
        with open("/proc/self/stat", "rb") as f:
            # Field 22 (starttime, in clock ticks since boot) follows the command name,
            # which may hold spaces and parentheses: count from the last ')'.
            fields = f.read().rsplit(b")", 1)[1].split()
        elapsed = time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf(
            "SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - elapsed if 0.0 <= elapsed <= START_UP_MAX else now
