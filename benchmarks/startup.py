"""Start-up cost of memplan commands: CPU seconds per process and modules imported.

    python benchmarks/startup.py [--before SRC] [--repeat N]

Runs each command N times in a fresh interpreter (`python -m memplan ...` from
this checkout's src/, and from SRC when given, the two alternated so that the
machine's load falls on both alike) and prints the median CPU time (user + system
of the child) and how many modules `-X importtime` saw imported. The commands
read the repository's examples and never write a file.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
COMMANDS = [
    ("--help", ["--help"]),
    ("pack --help", ["pack", "--help"]),
    ("check, missing file", ["check", "missing.mlir", "--target", "x86_64"]),
    ("plan, missing .pt2", ["plan", "missing.pt2"]),
    ("pack example", ["pack", "examples/mobilenet_blocks.294912.csv", "--summary"]),
    ("check example", ["check", "examples/loop_alloca.mlir", "--target", "x86_64"]),
    ("plan .tflite, heuristics", ["plan", "examples/attention_block.tflite", "--summary",
                                  "--time-limit", "0"]),
]


def cpu_seconds(src: Path, argv: list[str]) -> float:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-m", "memplan", *argv], cwd=REPO, check=False,
                   capture_output=True, env={**os.environ, "PYTHONPATH": str(src)})
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def modules_imported(src: Path, argv: list[str]) -> int:
    with tempfile.TemporaryFile("w+") as log:
        subprocess.run([sys.executable, "-X", "importtime", "-m", "memplan", *argv], cwd=REPO,
                       check=False, stdout=subprocess.DEVNULL, stderr=log,
                       env={**os.environ, "PYTHONPATH": str(src)})
        log.seek(0)
        return sum(1 for line in log if line.startswith("import time:") and "|" in line) - 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, help="another memplan src/ to compare with")
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    trees = [("before", args.before)] if args.before else []
    trees.append(("after" if args.before else "this", REPO / "src"))
    print("| command | " + " | ".join(f"{n} CPU s | {n} modules" for n, _ in trees) + " |")
    print("| --- " * (1 + 2 * len(trees)) + "|")
    for label, argv in COMMANDS:
        times: dict[str, list[float]] = {name: [] for name, _ in trees}
        for _ in range(args.repeat):
            for name, src in trees:
                times[name].append(cpu_seconds(src, argv))
        cells = [f"{statistics.median(times[name]):.3f} | {modules_imported(src, argv)}"
                 for name, src in trees]
        print(f"| `memplan {' '.join(argv)}` ({label}) | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
