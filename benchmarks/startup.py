"""Start-up cost of memplan commands: CPU seconds per process and modules imported.

    python benchmarks/startup.py [--before SRC] [--repeat N] [--only TEXT] [--floor]
    python benchmarks/startup.py --limits DIR [--seconds 0 0.2 0.5] [--repeat N]

Runs each command N times in a fresh interpreter (`python -m memplan ...` from
this checkout's src/, and from SRC when given, the two alternated so that the
machine's load falls on both alike) and prints the median CPU time (user + system
of the child) and how many modules `-X importtime` saw imported. The commands
read the repository's examples and never write a file. With --floor, each run is
paired with one of `python -c "import numpy"` (Python's and numpy's start-up, the
floor of a Python tool that uses numpy), and the medians of both are printed with
the median of the pairs' differences.

With --limits, runs `memplan pack FILE --exact --time-limit S --summary` on every
CSV of DIR (minimalloc's A-K) for each S, and prints the whole process's median
and longest wall time: `--time-limit` promises the whole run ends within S, and
the process's exit (start-up, the final check, the report) may take 0.2 s more.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMMANDS = [
    ("--help", ["--help"]),
    ("pack --help", ["pack", "--help"]),
    ("check, missing file", ["check", "missing.mlir", "--target", "x86_64"]),
    ("plan, missing .pt2", ["plan", "missing.pt2"]),
    ("pack example", ["pack", "examples/mobilenet_blocks.294912.csv", "--summary"]),
    ("pack --exact, 5 buffers", ["pack", "tests/data/minimalloc/example.12.csv", "--exact",
                                 "--summary"]),
    ("check example", ["check", "examples/loop_alloca.mlir", "--target", "x86_64"]),
    ("plan .tflite, heuristics", ["plan", "examples/attention_block.tflite", "--summary",
                                  "--time-limit", "0"]),
    ("plan .pt2, a 3-block ResNet", ["plan", "examples/tiny_resnet.pt2", "--summary"]),
]


# Past S, a run may still stop its search, check and report the plan, and exit.
LIMIT_GRACE = 0.2


def cpu_seconds(src: Path, argv: list[str]) -> float:
    return cpu_and_wall(src, argv)[0]


def cpu_and_wall(src: Path, argv: list[str],
                 python_argv: tuple[str, ...] = ("-m", "memplan")) -> tuple[float, float]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    subprocess.run([sys.executable, *python_argv, *argv], cwd=REPO, check=False,
                   capture_output=True, env={**os.environ, "PYTHONPATH": str(src)})
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def modules_imported(src: Path, argv: list[str]) -> int:
    with tempfile.TemporaryFile("w+") as log:
        subprocess.run([sys.executable, "-X", "importtime", "-m", "memplan", *argv], cwd=REPO,
                       check=False, stdout=subprocess.DEVNULL, stderr=log,
                       env={**os.environ, "PYTHONPATH": str(src)})
        log.seek(0)
        return sum(1 for line in log if line.startswith("import time:") and "|" in line) - 1


def time_limits(folder: Path, seconds: list[float], repeat: int) -> None:
    print(f"| instance | S | median wall s | longest wall s | runs over S + {LIMIT_GRACE} |")
    print("| --- " * 5 + "|")
    for path in sorted(folder.glob("*.csv")):
        for limit in seconds:
            argv = ["pack", str(path.resolve()), "--exact", "--time-limit", str(limit),
                    "--summary"]
            walls = [cpu_and_wall(REPO / "src", argv)[1] for _ in range(repeat)]
            over = sum(wall > limit + LIMIT_GRACE for wall in walls)
            print(f"| {path.name.split('.')[0]} | {limit:g} | {statistics.median(walls):.3f} | "
                  f"{max(walls):.3f} | {over} of {repeat} |", flush=True)


def above_the_floor(repeat: int, only: str | None) -> None:
    print("| command | CPU s | `python -c \"import numpy\"` CPU s | above it, median of pairs s |")
    print("| --- " * 4 + "|")
    for label, argv in COMMANDS:
        if only and only not in label + " ".join(argv):
            continue
        ours, floor = [], []
        for _ in range(repeat):
            ours.append(cpu_seconds(REPO / "src", argv))
            floor.append(cpu_and_wall(REPO / "src", [], ("-c", "import numpy"))[0])
        above = statistics.median(a - b for a, b in zip(ours, floor, strict=True))
        print(f"| `memplan {' '.join(argv)}` ({label}) | {statistics.median(ours):.3f} | "
              f"{statistics.median(floor):.3f} | {above:+.3f} |", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another memplan src/ to compare with")
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--limits", type=Path, metavar="DIR",
                        help="time `pack --exact --time-limit S` on DIR's CSV files instead")
    parser.add_argument("--seconds", type=float, nargs="+", default=[0, 0.2, 0.5])
    parser.add_argument("--only", metavar="TEXT", help="only the commands whose label or "
                        "arguments contain TEXT (e.g. .pt2)")
    parser.add_argument("--floor", action="store_true", help="pair each run of this "
                        "checkout with one of `python -c \"import numpy\"`")
    args = parser.parse_args()
    if args.limits:
        time_limits(args.limits, args.seconds, args.repeat)
        return
    if args.floor:
        above_the_floor(args.repeat, args.only)
        return
    trees = [("before", args.before)] if args.before else []
    trees.append(("after" if args.before else "this", REPO / "src"))
    print("| command | " + " | ".join(f"{n} CPU s | {n} modules" for n, _ in trees) + " |")
    print("| --- " * (1 + 2 * len(trees)) + "|")
    for label, argv in COMMANDS:
        if args.only and args.only not in label + " ".join(argv):
            continue
        times: dict[str, list[float]] = {name: [] for name, _ in trees}
        for _ in range(args.repeat):
            for name, src in trees:
                times[name].append(cpu_seconds(src, argv))
        cells = [f"{statistics.median(times[name]):.3f} | {modules_imported(src, argv)}"
                 for name, src in trees]
        print(f"| `memplan {' '.join(argv)}` ({label}) | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
