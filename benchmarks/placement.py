"""Placement time on synthetic functions: many buffers competing for one stack frame.

    python benchmarks/placement.py [--sizes 100 300 1000] [--seed 0] [--old]

Each case is one MLIR function with N `memref.alloca`/`memref.alloc` of random static
sizes (16 B to 2 KiB) whose lifetimes overlap at random (each buffer is read by a
`memref.load` some ops later). On x86_64 (32 KiB frame, unbounded heap) the frame
admits a few dozen of them and the rest spill to the heap. The census is taken once;
the table times `place` alone, median of 3 runs. `--old` also times the previous
admission (`tests/place_reference.py`: binary search over the smallest-first prefix,
then a full re-pack per remaining buffer) and says whether both place every buffer alike.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

from memplan.analysis.census import take_census
from memplan.frontends.mlir_census import request_of
from memplan.ir import MlirChunk, parse_mlir
from memplan.place import place
from memplan.place.admission import AdmitGroup, admit_group_incremental
from memplan.report.table import format_table
from memplan.targets import load_target

# The previous admission lives beside the tests that compare against it, not in the package.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from place_reference import admit_group_reference  # noqa: E402


def synthetic_function(n: int, seed: int) -> str:
    """MLIR text: `n` allocations of random static sizes with random overlapping lifetimes."""
    rng = random.Random(seed)
    steps = 2 * n
    starts = sorted(rng.randrange(steps) for _ in range(n))
    ends = [min(steps, s + 1 + int(rng.expovariate(1 / (steps / 8)))) for s in starts]
    sizes = [rng.randint(4, 512) for _ in range(n)]  # f32 elements: 16 B .. 2 KiB
    ops: list[list[str]] = [[] for _ in range(steps + 1)]
    for i, (start, end, size) in enumerate(zip(starts, ends, sizes, strict=True)):
        op = "memref.alloca" if i % 2 else "memref.alloc"
        ops[start].append(f"    %b{i} = {op}() : memref<{size}xf32>")
        ops[end].append(f"    %v{i} = memref.load %b{i}[%c0] : memref<{size}xf32>")
    body = [line for step in ops for line in sorted(step, key=lambda s: "load" in s)]
    return "\n".join(["func.func @f() {", "    %c0 = arith.constant 0 : index", *body,
                      "    return", "}", ""])


def requests_for(text: str) -> list:
    chunk = MlirChunk("synthetic.mlir", 0, 1, parse_mlir(text, "synthetic.mlir"))
    return [request_of(a, i, ("cpu",)) for i, a in enumerate(take_census(chunk))]


def timed(requests, target, admission: AdmitGroup, repeat: int):
    seconds, result = [], None
    for _ in range(repeat):
        started = time.perf_counter()
        result = place(requests, target, admission=admission)
        seconds.append(time.perf_counter() - started)
    return statistics.median(seconds), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[100, 300, 1000])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--old", action="store_true",
                        help="also time the previous admission (slow: ~1 min at 1000)")
    parser.add_argument("--target", default="x86_64")
    args = parser.parse_args()
    target = load_target(args.target)

    header = ["n", "on stack", "frame peak", "lower bound", "seconds"]
    if args.old:
        header += ["old on stack", "old peak", "old seconds", "same decisions"]
    rows = []
    for n in args.sizes:
        requests = requests_for(synthetic_function(n, args.seed + n))
        seconds, new = timed(requests, target, admit_group_incremental, args.repeat)
        (frame,) = [u for u in new.usage if u.space == "stack"]
        row = [str(n), str(frame.buffers), str(frame.peak), str(frame.lower_bound),
               f"{seconds:.3f}"]
        if args.old:
            old_seconds, old = timed(requests, target, admit_group_reference, args.repeat)
            (old_frame,) = [u for u in old.usage if u.space == "stack"]
            same = [d.space for d in new.decisions] == [d.space for d in old.decisions]
            row += [str(old_frame.buffers), str(old_frame.peak), f"{old_seconds:.3f}",
                    "yes" if same else "no"]
        rows.append(row)
    print(format_table(header, rows))


if __name__ == "__main__":
    main()
