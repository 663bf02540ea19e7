"""IREE's compile, cut where it lays out transient arenas, with IREE's own pipelines.

`iree-stream-layout-slices` runs inside IREE's `stream` phase, which `iree-compile`
cannot stop in the middle of. So the program is compiled in three steps, each an
IREE tool running IREE's own passes:

1. `before_layout`: `iree-compile --compile-to=stream` with the module printed
   before every run of `iree-stream-layout-slices` (module scope, with locations).
   The pass runs per function, so the module before it is assembled from the dump
   of each function's last run (`assemble_dumps`). Its output, IREE's stream phase
   with IREE's own layout, is kept: where memplan's plan is no better, `compile_own`
   finishes IREE's own `.vmfb` from it.
2. memplan rewrites the `stream.resource.pack` ops (`iree_packs.py`).
3. `finish`: the stream command stage is run again from its start
   (`iree-stream-cmd-transformation-pipeline`: its stages before the layout find
   nothing left to do, its layout lays out whatever packs remain), then the
   optimization and cleanup stages IREE's stream phase ends with; then
   `iree-compile --compile-from=stream` compiles the rest to a `.vmfb`.

That step 3 is IREE's stream phase resumed, not an approximation of it, is tested:
a module not rewritten compiles to a `.vmfb` byte-identical to a plain compile
(tests/test_iree_arena.py).
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from iree.compiler.tools.binaries import find_tool

from ...errors import InputError
from ..capped import TOOL_MEMORY, TOOL_TIMEOUT, run_capped  # noqa: F401 - IREE's callers use them

LAYOUT_PASS = "iree-stream-layout-slices"
# What IREE's stream phase runs after its command stage (buildStreamTransformPassPipeline),
# as IREE registers the stages; the command stage reruns from its start (see above).
FINISH_STREAM = ("iree-stream-cmd-transformation-pipeline", "iree-stream-optimization-pipeline",
                 "iree-stream-cleanup-pipeline", "symbol-dce")
_DUMP_HEADER = re.compile(r"^// -----// IR Dump Before \w+: " + LAYOUT_PASS
                          + r" \('[\w.]+' operation: @([^)]+)\) //----- //$", re.MULTILINE)


@dataclass(frozen=True)
class Target:
    """What `iree-compile` is asked to compile for (the `--iree-hal-*` flags)."""

    backend: str = "llvm-cpu"
    # A generic CPU keeps results reproducible across machines (as `compile.py`).
    flags: tuple[str, ...] = ("--iree-llvmcpu-target-cpu=generic",)
    runs_here: bool = True  # iree-base-runtime on this machine's CPU can run the .vmfb
    device: str = "llvm-cpu, a generic CPU of this machine's architecture"  # for messages
    # Why IREE compiles for another chip than the preset names (one that runs there); said
    # in the plan's notes.
    stand_in: str | None = None

    def compile_flags(self) -> list[str]:
        return [f"--iree-hal-target-backends={self.backend}", *self.flags]


LLVM_CPU = Target()


def _run(tool: str, args: Sequence[str], name: str, stdin: bytes | None = None
         ) -> subprocess.CompletedProcess[bytes]:
    done = run_capped([find_tool(tool), *args], stdin, name)
    if done.returncode != 0:
        diagnostic = _first_error(done.stderr.decode(errors="replace"))
        raise InputError(name, f"{tool} failed: {diagnostic}")
    return done


def _first_error(text: str) -> str:
    for line in text.splitlines():
        if "error:" in line:
            return line[line.find("error:"):].strip()
    lines = text.strip().splitlines()
    return lines[0] if lines else "no diagnostic"


def before_layout(source: bytes, name: str, target: Target
                  ) -> tuple[list[tuple[str, str]], bytes]:
    """The module as `iree-stream-layout-slices` finds it, once per run of the pass on a
    function: (function, module text), in the order IREE ran them; and the module IREE's
    stream phase ends with (its own layout in it), from which `compile_own` finishes
    IREE's own compile without running the phases up to it again."""
    done = _run("iree-compile", [
        "-", *target.compile_flags(), "--compile-to=stream", "-o", "-",
        f"--mlir-print-ir-before={LAYOUT_PASS}", "--mlir-print-ir-module-scope",
        "--mlir-disable-threading", "--mlir-print-debuginfo"], name, source)
    text = done.stderr.decode()
    heads = list(_DUMP_HEADER.finditer(text))
    if not heads:
        raise InputError(name, f"iree-compile never ran {LAYOUT_PASS}: no stream program")
    return [(head.group(1), text[head.end():heads[i + 1].start() if i + 1 < len(heads) else None])
            for i, head in enumerate(heads)], done.stdout


def finish(module_text: str, name: str, target: Target) -> bytes:
    """The rest of IREE's compile from a module before its layout of slices: a `.vmfb`."""
    pipeline = f"--pass-pipeline=builtin.module({','.join(FINISH_STREAM)})"
    stream = _run("iree-opt", ["-", pipeline, "--mlir-print-debuginfo"], name,
                  module_text.encode()).stdout
    return _run("iree-compile", ["-", *target.compile_flags(), "--compile-from=stream",
                                 "-o", "-"], name, stream).stdout


def compile_own(stream: bytes, name: str, target: Target) -> bytes:
    """IREE's own compile finished from the end of its stream phase (`before_layout`'s
    module): the `.vmfb` `compile_plain` makes, byte for byte (tests/test_iree_arena.py),
    without compiling the input to stream a second time."""
    return _run("iree-compile", ["-", *target.compile_flags(), "--compile-from=stream",
                                 "-o", "-"], name, stream).stdout


def compile_plain(source: bytes, name: str, target: Target) -> bytes:
    """IREE's own compile of the program, untouched: what memplan is compared with."""
    return _run("iree-compile", ["-", *target.compile_flags(), "-o", "-"], name, source).stdout


def layout_with_iree(module_text: str, name: str) -> str:
    """The module after IREE's layout pass alone (on every function-like op)."""
    nest = ",".join(f"{kind}({LAYOUT_PASS})" for kind in ("util.func", "func.func",
                                                          "util.initializer"))
    return _run("iree-opt", ["-", f"--pass-pipeline=builtin.module({nest})"], name,
                module_text.encode()).stdout.decode()
