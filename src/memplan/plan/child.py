"""Run a front end's `run` in a child process: the runtime may crash (TFLM's interpreter
segfaults in some arenas), and a crash there must be one line, not memplan's death.

The parent sends the front end's name and the two models on the child's stdin (pickled:
our own data, between our own processes); the child reports on a pipe of its own, one
pickled message at a time: ("progress", which, what) before each step that may crash,
then ("done", RunCheck) or ("refused", which, reason). Whatever the runtime prints on
stdout or stderr is kept from the user's terminal.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from .contract import RunCheck


@dataclass(frozen=True)
class Crash:
    """The child ended without an answer."""

    which: str | None  # "original" or "planned": the model it was running, if known
    what: str  # the step it was in, e.g. "at arena 3488 B"
    signal: str | None  # "SIGSEGV"; None when it exited with a status instead
    status: int


@dataclass(frozen=True)
class Refusal:
    which: str
    reason: str


def run_in_child(front_end: str, original: bytes, written: bytes, seed: int = 0,
                 timeout: float | None = 600.0) -> RunCheck | Crash | Refusal:
    """`FRONT_END.run(original, written, seed)` of the named front end, in a child."""
    read_end, write_end = os.pipe()
    env = dict(os.environ)
    here = str(Path(__file__).resolve().parents[2])  # this memplan's source tree
    env["PYTHONPATH"] = os.pathsep.join([here, *filter(None, [env.get("PYTHONPATH")])])
    payload = pickle.dumps((front_end, original, written, seed))
    try:
        child = subprocess.Popen(
            [sys.executable, "-m", "memplan.plan.child", str(write_end)],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(write_end,),
            env=env)
    finally:
        os.close(write_end)
    messages: list[tuple] = []
    with os.fdopen(read_end, "rb") as pipe:
        try:
            child.stdin.write(payload)
            child.stdin.close()
        except BrokenPipeError:
            pass
        while (message := _receive(pipe)) is not None:
            messages.append(message)
    try:
        status = child.wait(timeout)
    except subprocess.TimeoutExpired:
        child.kill()
        status = child.wait()
    last = next((m for m in reversed(messages) if m[0] == "progress"), None)
    for m in messages:
        if m[0] == "done":
            return m[1]
        if m[0] == "refused":
            return Refusal(m[1], m[2])
    which, what = (last[1], last[2]) if last else (None, "")
    name = signal.Signals(-status).name if status < 0 else None
    return Crash(which, what, name, status)


def _receive(pipe) -> tuple | None:
    head = pipe.read(8)
    if len(head) < 8:
        return None
    (length,) = struct.unpack("<Q", head)
    body = pipe.read(length)
    return pickle.loads(body) if len(body) == length else None


def _send(fd: int, message: tuple) -> None:
    body = pickle.dumps(message)
    os.write(fd, struct.pack("<Q", len(body)) + body)


def _main(fd: int) -> int:
    from . import entry_for, load, names
    from .contract import RuntimeRefused

    front_end, original, written, seed = pickle.loads(sys.stdin.buffer.read())
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
