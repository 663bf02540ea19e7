"""Run a front end's `run` in a child process: the runtime may crash (TFLM's interpreter
segfaults in some arenas), and a crash there must be one line, not memplan's death.
`call_in_child` does the same for any function of memplan that runs native code on the
input (IREE's runtime running a compiled program, `opt --check-run`): what it returns or
raises comes back; a death, a time limit or a memory limit is a `Crash`.

The parent sends the front end's name and the two models on the child's stdin (pickled:
our own data, between our own processes); the child reports on a pipe of its own, one
pickled message at a time: ("progress", which, what) before each step that may crash,
then ("done", RunCheck) or ("refused", which, reason). Whatever the runtime prints on
stdout or stderr is kept from the user's terminal.
"""

from __future__ import annotations

import math
import os
import pickle
import resource
import select
import signal
import struct
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError, MemplanError
from .contract import RunCheck


@dataclass(frozen=True)
class Crash:
    """The child ended without an answer."""

    which: str | None  # "original" or "planned": the model it was running, if known
    what: str  # the step it was in, e.g. "at arena 3488 B"
    signal: str | None  # "SIGSEGV"; None when it exited with a status instead
    status: int
    # Why memplan stopped it, when it did: "ran past 600 s", "used more than 4 GiB".
    stopped: str | None = None


@dataclass(frozen=True)
class Refusal:
    which: str
    reason: str


# A runtime's check-run child: the resident memory it may take (it and any process it
# starts), watched by the parent. An address-space limit (RLIMIT_AS) would refuse torch's
# and TVM's start-up, which reserve far more virtual memory than they touch.
RUN_MEMORY = 4 * 2**30
# How often the parent reads the child's resident memory: a runtime that allocates at
# several GB/s overshoots the limit by at most a few hundred MB before it is stopped.
WATCH_SECONDS = 0.05


def run_in_child(front_end: str, original: bytes, written: bytes, seed: int = 0,
                 timeout: float | None = 600.0, resident: int | None = RUN_MEMORY
                 ) -> RunCheck | Crash | Refusal:
    """`FRONT_END.run(original, written, seed)` of the named front end, in a child that is
    stopped past `timeout` seconds or `resident` bytes of resident memory (a `Crash`)."""
    messages, status, stopped = _run_child(("run", front_end, original, written, seed),
                                           timeout, None, resident)
    for m in messages:
        if m[0] == "done":
            return m[1]
        if m[0] == "refused":
            return Refusal(m[1], m[2])
    crash = _crash(messages, status)
    if stopped is not None:
        crash = Crash(crash.which, crash.what, None, status, stopped)
    return crash


# A child running native code on the input: the time and address space it may take. IREE's
# runtime and compiler fit well inside both on every test and benchmark program.
CALL_TIMEOUT = 600.0
CALL_MEMORY = 8 * 2**30


def call_in_child(function: str, *args, name: str, what: str,
                  timeout: float = CALL_TIMEOUT, memory: int | None = CALL_MEMORY):
    """`function(*args)` (`memplan.PACKAGE.MODULE:NAME`) in a child process; its result, or
    the memplan error it raised. A child that dies, runs past `timeout` seconds or past
    `memory` bytes of address space is an `InputError` on `name`: "WHAT died (SIGABRT)"."""
    messages, status, stopped = _run_child(("call", function, args), timeout, memory, None)
    timed_out = stopped is not None
    for m in messages:
        if m[0] == "returned":
            return m[1]
        if m[0] == "raised":
            _, cls, attributes, message = m
            err = cls.__new__(cls)
            Exception.__init__(err, message)
            err.__dict__.update(attributes)
            raise err
    crash = _crash(messages, status)
    if timed_out:
        reason = f"{what} did not finish in {timeout:g} s"
    elif crash.signal:
        reason = f"{what} died ({crash.signal})"
    else:
        reason = f"{what} failed (exit status {crash.status})"
    if crash.what:
        reason += f": {crash.what}"
    if memory is not None and not timed_out:
        reason += f"; limits: {timeout:g} s, {memory // 2**30} GiB of address space"
    raise InputError(name, reason)


def _crash(messages: list[tuple], status: int) -> Crash:
    last = next((m for m in reversed(messages) if m[0] == "progress"), None)
    which, what = (last[1], last[2]) if last else (None, "")
    name = signal.Signals(-status).name if status < 0 else None
    return Crash(which, what, name, status)


def _run_child(payload: tuple, timeout: float | None, memory: int | None,
               resident: int | None) -> tuple[list[tuple], int, str | None]:
    """Start the child with `payload` on its stdin, under `memory` bytes of address space
    and, watched from here, `resident` bytes of resident memory; its messages, its exit
    status, and why it was killed ("ran past 600 s", "used more than 4 GiB of memory"),
    or None when it ended by itself."""
    read_end, write_end = os.pipe()
    env = dict(os.environ)
    here = str(Path(__file__).resolve().parents[2])  # this memplan's source tree
    env["PYTHONPATH"] = os.pathsep.join([here, *filter(None, [env.get("PYTHONPATH")])])
    body = pickle.dumps(payload)
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "memplan.plan.child", str(write_end)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(write_end,), env=env,
            preexec_fn=None if memory is None else lambda: resource.setrlimit(
                resource.RLIMIT_AS, (memory, memory)))
    finally:
        os.close(write_end)
    messages: list[tuple] = []
    deadline = None if timeout is None else time.monotonic() + timeout
    try:
        child.stdin.write(body)
        child.stdin.close()
    except BrokenPipeError:
        pass
    stopped = None
    try:
        # The deadline covers the reads too: a child that hangs holds the pipe open.
        while True:
            left = math.inf if deadline is None else deadline - time.monotonic()
            if left <= 0:
                stopped = f"ran past {timeout:g} s"
                break
            wait = left if resident is None else min(left, WATCH_SECONDS)
            ready = select.select([read_end], [], [], None if wait == math.inf else wait)[0]
            if resident is not None and _resident_bytes(child.pid) > resident:
                stopped = f"used more than {_gib(resident)} of memory"
                break
            if ready:
                if (message := _receive(read_end)) is None:
                    break
                messages.append(message)
    finally:
        os.close(read_end)
    while stopped is None:  # the pipe closed: the child is ending, still watched
        left = None if deadline is None else max(0.0, deadline - time.monotonic())
        if resident is not None:
            left = WATCH_SECONDS if left is None else min(left, WATCH_SECONDS)
        try:
            return messages, child.wait(left), None
        except subprocess.TimeoutExpired:
            if deadline is not None and time.monotonic() >= deadline:
                stopped = f"ran past {timeout:g} s"
            elif resident is not None and _resident_bytes(child.pid) > resident:
                stopped = f"used more than {_gib(resident)} of memory"
    _kill_tree(child)
    return messages, child.wait(), stopped


def _gib(size: int) -> str:
    return f"{size / 2**30:g} GiB" if size >= 2**30 else f"{size / 2**20:g} MiB"


def _descendants(pid: int) -> list[int]:
    """`pid` and every process below it (Linux's /proc; just `pid` elsewhere)."""
    found, todo = [], [pid]
    while todo:
        one = todo.pop()
        found.append(one)
        try:
            for task in os.listdir(f"/proc/{one}/task"):
                with open(f"/proc/{one}/task/{task}/children") as f:
                    todo.extend(int(c) for c in f.read().split())
        except OSError:
            continue  # it ended meanwhile, or no /proc
    return found


def _resident_bytes(pid: int) -> int:
    """The resident memory of `pid` and its descendants; 0 where /proc cannot say."""
    total = 0
    for one in _descendants(pid):
        try:
            with open(f"/proc/{one}/statm") as f:
                total += int(f.read().split()[1]) * _PAGE
        except (OSError, IndexError, ValueError):
            continue
    return total


_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def _kill_tree(child: subprocess.Popen) -> None:
    """SIGKILL the child and what it started (a runtime's compiler, say): the processes
    are listed first, so one that the child's death re-parents is still found."""
    for one in reversed(_descendants(child.pid)):
        try:
            os.kill(one, signal.SIGKILL)
        except OSError:
            pass


def _receive(fd: int) -> tuple | None:
    head = _read_exactly(fd, 8)
    if len(head) < 8:
        return None
    (length,) = struct.unpack("<Q", head)
    body = _read_exactly(fd, length)
    return pickle.loads(body) if len(body) == length else None


def _read_exactly(fd: int, size: int) -> bytes:
    parts, left = [], size
    while left and (part := os.read(fd, min(left, 1 << 20))):
        parts.append(part)
        left -= len(part)
    return b"".join(parts)


def _send(fd: int, message: tuple) -> None:
    body = pickle.dumps(message)
    os.write(fd, struct.pack("<Q", len(body)) + body)


def _main(fd: int) -> int:
    payload = pickle.loads(sys.stdin.buffer.read())
    if payload[0] == "call":
        return _call(fd, payload[1], payload[2])
    return _run(fd, *payload[1:])


def _call(fd: int, function: str, args: tuple) -> int:
    import importlib

    module, _, name = function.partition(":")
    assert module.startswith("memplan."), function  # our own functions only
    try:
        value = getattr(importlib.import_module(module), name)(*args)
    except MemplanError as err:
        _send(fd, ("raised", type(err), dict(err.__dict__), str(err)))
        return 0
    except Exception as err:  # memplan's own bug, said in one line by the parent
        _send(fd, ("progress", None, f"{type(err).__name__}: {str(err).splitlines()[0][:200]}"
                   if str(err) else type(err).__name__))
        return 1
    _send(fd, ("returned", value))
    return 0


def _run(fd: int, front_end: str, original: bytes, written: bytes, seed: int) -> int:
    from . import entry_for, load, names
    from .contract import RuntimeRefused

    assert front_end in names()
    runner = load(entry_for("", front_end))
    try:
        check = runner.run(original, written, seed,
                           lambda which, what: _send(fd, ("progress", which, what)))
    except RuntimeRefused as err:
        _send(fd, ("refused", err.which, err.reason))
        return 0
    except Exception as err:  # the runtime's Python side failed: said as a crash, in one line
        _send(fd, ("progress", None, f"{type(err).__name__}: {str(err).splitlines()[0][:200]}"
                   if str(err) else type(err).__name__))
        return 1
    _send(fd, ("done", check))
    return 0


if __name__ == "__main__":
    sys.exit(_main(int(sys.argv[1])))
