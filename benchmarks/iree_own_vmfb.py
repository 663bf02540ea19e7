"""The CPU of each way to finish an IREE program's `.vmfb` after memplan has read IREE's
layout (issue 33: keep IREE's own `.vmfb` when its layout is at the bound), measured as
the CPU time of the IREE tools each starts (`RUSAGE_CHILDREN`):

- read: `iree-compile --compile-to=stream` with the dumps before the layout pass, and the
  reproduction checked with IREE's pass (what every `memplan plan --runtime iree` does);
- resumed: memplan's route for a plan it writes (IREE's stream stages rerun, then
  `--compile-from=stream`), here with nothing rewritten;
- own: what is kept on a tie, IREE's compile finished from its own stream phase;
- plain: `iree-compile` of the input, the `--check-run` reference.

All three `.vmfb`s are asserted byte-identical.

    python benchmarks/iree_own_vmfb.py tests/data/iree_mlp.mlir [MORE.mlir ...]
"""

from __future__ import annotations

import resource
import sys
from pathlib import Path

from memplan.runtimes.iree import program as ip


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def measure(path: str) -> str:
    source = Path(path).read_bytes()
    start = _children_cpu()
    program = ip.read_program(source, path)
    read = _children_cpu() - start
    start = _children_cpu()
    resumed = ip.write_program(program, {})
    resumed_s = _children_cpu() - start
    start = _children_cpu()
    own = ip.own_vmfb(program)
    own_s = _children_cpu() - start
    start = _children_cpu()
    plain = ip.reference_vmfb(source, path)
    plain_s = _children_cpu() - start
    assert resumed == own == plain, "the three routes differ"
    return (f"| {path} | {read:.2f} | {resumed_s:.2f} | {own_s:.2f} | {plain_s:.2f} |")


def main(paths: list[str]) -> None:
    print("| program | read s | resumed compile s | own from stream s | plain iree-compile s |")
    print("| --- | --- | --- | --- | --- |")
    for path in paths:
        print(measure(path))


if __name__ == "__main__":
    main(sys.argv[1:])
