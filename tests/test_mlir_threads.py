"""Issue 31: `check` hung on two-token mutations of an IREE dispatch. `Module.parse` holds
the GIL while MLIR verifies nested ops on its worker threads; a worker's diagnostic goes to
the bindings' Python handler, which waits for the GIL: a deadlock, whenever the race is
lost (three of three runs of a mutant with a bad `data_layout` and an out-of-range binding
under load). memplan's contexts are single-threaded, so no worker exists to wait.

How many workers MLIR starts follows the cores the process may run on (LLVM's thread
pool: one per core, started when work is queued). So each probe runs once on every core
it is given and once pinned to one (`sched_setaffinity`, before MLIR loads): what a
one-core CI runner sees, on any machine."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("iree.compiler")

DISPATCH = Path(__file__).parent / "data" / "matmul.llvm-cpu.sources.mlir"

# First line of every probe: pinned to one core when asked (argv[-1] == "one").
_PIN = """
import os, sys
if sys.argv[-1] == "one":
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
"""

_PROBE = _PIN + """
from memplan.ir.load import new_context, parse_mlir
from memplan.errors import InputError
text = open(sys.argv[1]).read()
bad = text.replace("p270:32:32", "p270:7:32", 1).replace("binding(1)", "binding(4294967296)", 1)
parse_mlir(text, "good.mlir", context=new_context())
try:
    parse_mlir(bad, "bad.mlir", context=new_context())
except InputError as err:
    print(err)
names = [open(f"/proc/self/task/{t}/comm").read().strip() for t in os.listdir("/proc/self/task")]
print(sum(n.startswith("llvm-worker") for n in names))
"""


@pytest.mark.parametrize("cores", ["all", "one"])
def test_parsing_an_iree_dispatch_starts_no_mlir_worker_thread(cores):
    done = subprocess.run([sys.executable, "-c", _PROBE, str(DISPATCH), cores],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    error, workers = done.stdout.strip().splitlines()
    assert "bad.mlir:14:16" in error and "binding ordinal 4294967296" in error
    assert workers == "0"


_THREADED = _PIN + """
from iree.compiler import ir
context = ir.Context()
context.enable_multithreading(True)  # said, not assumed: MLIR's default, memplan's opposite
ir.Module.parse(open(sys.argv[1]).read(), context)
print(sum(open(f"/proc/self/task/{t}/comm").read().startswith("llvm-worker")
          for t in os.listdir("/proc/self/task")))
"""


@pytest.mark.parametrize("cores", ["all", "one"])
def test_a_threaded_context_does_start_workers(cores):
    """The probe can fail: a context that verifies on worker threads starts them, one
    core or many (on one core, one worker: the parse still hands its ops to it)."""
    done = subprocess.run([sys.executable, "-c", _THREADED, str(DISPATCH), cores],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert int(done.stdout) >= 1, done.stderr
