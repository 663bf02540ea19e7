"""Time and peak memory of `memplan pack` on large and hostile CSV files.

    python benchmarks/hostile_csv.py [--repeat N]

Writes each file into a temporary folder, then calls memplan's
`main(["pack", FILE, "--summary"])` in a fresh Python process N times (default
3): the median seconds inside `main` (the command's lazy imports included,
Python's start not) and the process's peak resident memory (VmHWM).
Cases: the 18-buffer example (the floor), 100 MB of blank lines, 10 million
whitespace-only lines, a 3 MB line (refused: exit 2), and 10,000 real buffers
(there most of the time is packing, not reading).

    python benchmarks/hostile_csv.py --at-limit FILE [--rows N]

writes instead the instance the buffer limit is measured on (docs/reliability.md): N rows
(default `csvio.MAX_BUFFERS`) in one time partition, each buffer starting one step after
the last and living 1-400 steps, odd sizes below 1,000 bytes at alignment 16, so that no
two placed blocks touch and the greedy packer's block lists never merge: its worst case
for memory. Measure it with `/usr/bin/time -v memplan pack FILE --summary`.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from memplan.pack.csvio import MAX_BUFFERS
from memplan.report.table import format_table

REPO = Path(__file__).resolve().parents[1]
HEADER = "id,lower,upper,size\n"

# Runs memplan's CLI and reports its exit code and peak RSS (KiB on Linux).
PROBE = """
import contextlib, io, json, sys, time
from memplan.cli import main
started = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(["pack", sys.argv[1], "--summary"])
seconds = time.perf_counter() - started
# VmHWM restarts at exec; getrusage's maxrss would include the parent's memory at fork.
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"code": code, "seconds": seconds, "rss_kib": int(hwm.split()[1])}))
"""


def cases(folder: Path) -> list[tuple[str, Path]]:
    made = []

    def write(name: str, *pieces: tuple[str, int]) -> None:
        """Each piece written `count` times, so this process never holds the file."""
        path = folder / name
        with path.open("w") as f:
            for text, count in pieces:
                for _ in range(count):
                    f.write(text)
        made.append((name, path))

    made.append(("example (18 buffers)", REPO / "examples" / "mobilenet_blocks.294912.csv"))
    write("100 MB of newlines", (HEADER, 1), ("\n" * 1_000_000, 100), ("b,0,1,4\n", 1))
    write("10M whitespace lines", (HEADER, 1), (" \n" * 1_000_000, 10), ("b,0,1,4\n", 1))
    write("one 3 MB line", (HEADER + "b,0,1,4", 1), (" " * 1_000_000, 3), ("\n", 1))
    write("10,000 buffers", (HEADER, 1), ("".join(f"b{i},{i},{i + 50},{1 + i % 97}\n"
                                                  for i in range(10_000)), 1))
    return made


def write_at_limit(path: str, rows: int) -> None:
    rng = random.Random(1)
    with open(path, "w", encoding="utf-8") as f:
        f.write("id,lower,upper,size,alignment\n")
        f.write("".join(f"b{i},{i},{i + 1 + rng.randrange(400)},{1 + 2 * rng.randrange(500)},"
                        "16\n" for i in range(rows)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--at-limit", metavar="FILE", help="write the limit's instance")
    parser.add_argument("--rows", type=int, default=MAX_BUFFERS)
    args = parser.parse_args()
    if args.at_limit:
        write_at_limit(args.at_limit, args.rows)
        return 0
    rows = []
    with tempfile.TemporaryDirectory() as name:
        for label, path in cases(Path(name)):
            runs = []
            for _ in range(args.repeat):
                out = subprocess.run([sys.executable, "-c", PROBE, str(path)], check=True,
                                     capture_output=True, text=True).stdout
                runs.append(json.loads(out))
            rows.append((label, f"{path.stat().st_size / 1e6:.1f}", runs[0]["code"],
                         round(statistics.median(r["seconds"] for r in runs), 2),
                         round(max(r["rss_kib"] for r in runs) / 1024, 1)))
    print(format_table(("input", "MB", "exit", "pack s (median)", "peak RSS MiB"), rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
