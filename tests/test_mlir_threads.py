"""Issue 31: `check` hung on two-token mutations of an IREE dispatch. `Module.parse` holds
the GIL while MLIR verifies nested ops on its worker threads; a worker's diagnostic goes to
the bindings' Python handler, which waits for the GIL: a deadlock, whenever the race is
lost (three of three runs of a mutant with a bad `data_layout` and an out-of-range binding
under load). memplan's contexts are single-threaded, so no worker exists to wait."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("iree.compiler")

DISPATCH = Path(__file__).parent / "data" / "matmul.llvm-cpu.sources.mlir"

_PROBE = """
import os, sys
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


def test_parsing_an_iree_dispatch_starts_no_mlir_worker_thread():
    done = subprocess.run([sys.executable, "-c", _PROBE, str(DISPATCH)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    error, workers = done.stdout.strip().splitlines()
    assert "bad.mlir:14:16" in error and "binding ordinal 4294967296" in error
    assert workers == "0"


def test_the_default_context_does_start_workers():
    """The probe can fail: MLIR's default context verifies on worker threads."""
    probe = ("import os; from iree.compiler import ir; "
             f"ir.Module.parse(open({str(DISPATCH)!r}).read(), ir.Context()); "
             "print(sum(open(f'/proc/self/task/{t}/comm').read().startswith('llvm-worker') "
             "for t in os.listdir('/proc/self/task')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                          timeout=120)
    assert int(done.stdout) > 0, done.stderr
