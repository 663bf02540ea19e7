"""Build a packing instance of about a million buffers from a smaller one, and time
`memplan pack` on it (issue 25).

The base (idealloc's Y_1, 62,185 buffers: `benchmarks/iopddl/Y_1.csv` of
github.com/cappadokes/idealloc, not shipped here) is repeated COPIES times one
after another in time, each copy's sizes jittered by a seeded factor in
[1 - JITTER, 1 + JITTER] so that no two copies are identical (identical parts
would be solved once). `--prefix N` keeps only the base's first N buffers by
start time, for the small end of a growth curve.

    python benchmarks/million.py BASE.csv --copies 16 -o /tmp/y1x16.csv
    python benchmarks/million.py BASE.csv --copies 16 -o /tmp/y1x16.csv --run "--time-limit 60"
"""

from __future__ import annotations

import argparse
import random
import resource
import shlex
import subprocess
import sys
import time

from memplan.pack import lower_bound, read_problem
from memplan.pack.csvio import read_problem_from


def build(base_path: str, copies: int, jitter: float, prefix: int | None, seed: int,
          out_path: str) -> int:
    base = read_problem(base_path).buffers
    if prefix is not None:
        base = sorted(base, key=lambda b: (b.start, b.end))[:prefix]
    t0 = min(b.start for b in base)
    span = max(b.end for b in base) - t0
    rng = random.Random(seed)
    n = 0
    with open(out_path, "w", encoding="utf-8") as out:
        out.write("id,lower,upper,size\n")
        for k in range(copies):
            shift = k * span - t0
            for b in base:
                size = max(1, round(b.size * rng.uniform(1 - jitter, 1 + jitter)))
                out.write(f"{n},{b.start + shift},{b.end + shift},{size}\n")
                n += 1
    return n


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base")
    parser.add_argument("--copies", type=int, default=16)
    parser.add_argument("--jitter", type=float, default=0.1)
    parser.add_argument("--prefix", type=int, help="keep the base's first N buffers")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--run", help="options for `memplan pack OUTPUT --summary ...`: time it")
    args = parser.parse_args()
    n = build(args.base, args.copies, args.jitter, args.prefix, args.seed, args.output)
    print(f"{args.output}: {n:,} buffers", file=sys.stderr)
    if args.run is None:
        return 0
    command = ["memplan", "pack", args.output, "--summary", *shlex.split(args.run)]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - started
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(args.output, encoding="utf-8") as f:
        bound = lower_bound(read_problem_from(f, args.output))
    peak = next(int(line.split()[-1]) for line in done.stdout.splitlines()
                if line.startswith("peak "))
    print(f"buffers {n}  wall {wall:.1f} s  cpu {usage.ru_utime + usage.ru_stime:.1f} s  "
          f"max rss {usage.ru_maxrss / 1024:.0f} MiB  peak {peak}  bound {bound}  "
          f"ratio {peak / bound:.4f}  exit {done.returncode}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
