"""Programs side by side on one time axis, as one CSV: the A-K instance of docs/benchmarks.md.

    python benchmarks/side_by_side.py DIR OUT [--ids named|numeric] [--shuffle SEED]

Reads DIR's `[A-Z].*.csv` (minimalloc's benchmark CSVs: google/minimalloc's
benchmarks/challenging holds A-K; tests/data/minimalloc ships A-F), keeps each
program's own times, and writes all their buffers to one file named
`OUT/<letters>[-numeric][-shuffled<SEED>].<capacity>.csv`, the capacity being
the sum of the inputs' capacities (each program's own plan stacked fits it).
`--ids named` prefixes each id with its program's letter (`A17`); `--ids numeric`
numbers the rows 0, 1, ... in the order written, so nothing but the times and
sizes tells the programs apart. `--shuffle SEED` writes the rows in a random
order (numbered after shuffling). Prints the path written.
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
from pathlib import Path

from memplan.pack import Buffer, Problem, read_problem
from memplan.pack.csvio import capacity_from_name


def side_by_side(directory: Path, ids: str, seed: int | None) -> tuple[str, Problem]:
    """(file name, problem): every program of `directory` on one time axis."""
    buffers: list[Buffer] = []
    letters, capacity = "", 0
    for path in sorted(directory.glob("[A-Z].*.csv")):
        letter = path.name.split(".")[0]
        letters += letter
        capacity += capacity_from_name(path) or 0
        buffers += [Buffer(f"{letter}{b.id}", b.start, b.end, b.size, b.alignment)
                    for b in read_problem(path).buffers]
    if seed is not None:
        random.Random(seed).shuffle(buffers)
    if ids == "numeric":
        buffers = [Buffer(str(i), b.start, b.end, b.size, b.alignment)
                   for i, b in enumerate(buffers)]
    tags = "".join(["-numeric" if ids == "numeric" else "",
                    "" if seed is None else f"-shuffled{seed}"])
    return f"{letters}{tags}.{capacity}.csv", Problem(buffers, capacity)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", type=Path)
    parser.add_argument("out", type=Path)
    parser.add_argument("--ids", choices=("named", "numeric"), default="named")
    parser.add_argument("--shuffle", type=int, default=None, metavar="SEED")
    args = parser.parse_args()
    name, problem = side_by_side(args.directory, args.ids, args.shuffle)
    if not problem.buffers:
        print(f"{args.directory}: no [A-Z].*.csv files", file=sys.stderr)
        return 2
    path = args.out / name
    with path.open("w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        aligned = any(b.alignment != 1 for b in problem.buffers)
        writer.writerow(["id", "lower", "upper", "size"] + (["alignment"] if aligned else []))
        writer.writerows([b.id, b.start, b.end, b.size] + ([b.alignment] if aligned else [])
                         for b in problem.buffers)
    print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
