"""A runtime's compiler run as a child process under a time and a memory cap.

IREE's tools (`iree/stages.py`, `iree/compile.py`) and the C compilers TVM's code goes
through (`tvm/c_frame.py`: the target's `c_compiler` for its frames; `tvm/relax_run.py`:
the host compiler linking a Relax executable) all run here. The child gets a session of
its own, so at the deadline its whole group is killed (compilers start children that
would outlive them), and an address-space limit its children inherit: a hostile input
can make a compiler grow without end. Running past either is one line of `InputError`.
"""

from __future__ import annotations

import os
import resource
import signal
import subprocess
from collections.abc import Sequence
from pathlib import Path

from ..errors import InputError

# One tool run; a model far larger than the benchmarks' compiles well inside it.
TOOL_TIMEOUT = 1800
# The address space of one tool run (and of the children it starts, which inherit it).
TOOL_MEMORY = 8 * 2**30


def run_capped(command: Sequence[str], stdin: bytes | None, name: str,
               timeout: float = TOOL_TIMEOUT, *, memory: int = TOOL_MEMORY,
               cwd: str | Path | None = None) -> subprocess.CompletedProcess[bytes]:
    """Run `command` under `timeout` seconds and `memory` bytes of address space; `name`
    is the input the refusal names."""
    tool = os.path.basename(command[0])
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        cwd=cwd, start_new_session=True,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (memory, memory)))
    try:
        out, err = process.communicate(stdin, timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise InputError(name, f"{tool} did not finish in {timeout:g} s") from None
    if process.returncode < 0:
        died = signal.Signals(-process.returncode).name
        raise InputError(name, f"{tool} died ({died}); limits: {timeout:g} s, "
                         f"{memory / 2**30:g} GiB of address space")
    return subprocess.CompletedProcess(command, process.returncode, out, err)
