"""When a command's time limit starts: at the process's start, so that Python's
start-up and the imports count against `--time-limit S` like the search does."""

from __future__ import annotations

import os
import sys
import time


def command_started() -> float:
    """The start of this command on the `time.perf_counter` clock: the process's start
    (Linux: from /proc, to the kernel's tick) when the process is the `memplan` command,
    else (a test or a program calling `memplan.cli.main`, or no /proc) now."""
    now = time.perf_counter()
    if not _is_memplan_command():
        return now
    try:
        with open("/proc/self/stat", "rb") as f:
            # Field 22 (starttime, in clock ticks since boot) follows the command name,
            # which may hold spaces and parentheses: count from the last ')'.
            fields = f.read().rsplit(b")", 1)[1].split()
        elapsed = time.clock_gettime(time.CLOCK_BOOTTIME) - int(fields[19]) / os.sysconf(
            "SC_CLK_TCK")
    except (OSError, ValueError, IndexError, AttributeError):
        return now
    return now - max(elapsed, 0.0)


def _is_memplan_command() -> bool:
    """Whether the process was started as `memplan` (the console script) or
    `python -m memplan`."""
    main = sys.modules.get("__main__")
    spec = getattr(main, "__spec__", None)
    if spec is not None and spec.name.split(".")[0] == "memplan":
        return True
    return os.path.basename(getattr(main, "__file__", "") or "") == "memplan"
