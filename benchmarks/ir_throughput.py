"""How fast `memplan check` and `memplan opt` read a large MLIR file, against a bare parse.

    python benchmarks/ir_throughput.py [--ops 150000] [--repeat 3]

Builds one file of `// -----` chunks, as IREE dispatch dumps joined are: every
bundled example and case, chunk after chunk, repeated until the file holds at
least `--ops` operations. Then times, as whole processes (`/usr/bin/time`: wall
seconds and peak resident memory), `memplan check FILE --target x86_64 --json`
and `memplan opt FILE --target x86_64 -o OUT`, beside the MLIR bindings' own
parse of the same chunks in one context (in this process, no memplan), the
floor any reader of the file pays. Medians of `--repeat` runs.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from iree.compiler import ir

from memplan.ir.load import parse_chunks, split_chunks
from memplan.ir.walk import walk
from memplan.report.table import format_table

REPO = Path(__file__).resolve().parents[1]
SOURCES = sorted((REPO / "examples").glob("*.mlir")) + sorted(
    (REPO / "tests" / "data" / "cases").glob("*.mlir"))


def build(min_ops: int) -> tuple[str, int, int]:
    """The file's text, its op count and its chunk count."""
    pieces: list[tuple[str, int]] = []
    context = ir.Context()
    for path in SOURCES:
        for _, text in split_chunks(path.read_text()):
            module = ir.Module.parse(text, context)
            pieces.append((text.strip("\n"), sum(1 for _ in walk(module.operation))))
    chunks, ops = [], 0
    while ops < min_ops:
        for text, count in pieces:
            chunks.append(text)
            ops += count
    return "\n// -----\n".join(chunks) + "\n", ops, len(chunks)


def bare_parse_seconds(text: str) -> tuple[float, float]:
    """(wall, CPU) seconds of the bindings parsing every chunk in one context."""
    started, cpu = time.perf_counter(), time.process_time()
    parse_chunks(text, "<bench>", ir.Context())
    return time.perf_counter() - started, time.process_time() - cpu


def timed(command: list[str]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak MiB) of one whole process."""
    proc = subprocess.run(["/usr/bin/time", "-f", "%e %U %S %M", *command],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall, user, system, kib = proc.stderr.strip().splitlines()[-1].split()
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} failed: {proc.stderr.strip().splitlines()[0]}")
    return float(wall), float(user) + float(system), int(kib) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ops", type=int, default=150_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    text, ops, chunks = build(args.ops)
    memplan = str(Path(sys.executable).with_name("memplan"))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "joined.mlir"
        path.write_text(text)
        commands = {
            "check": [memplan, "check", str(path), "--target", "x86_64", "--json"],
            "opt": [memplan, "opt", str(path), "--target", "x86_64", "-o",
                    str(Path(tmp) / "out.mlir")],
        }
        parses = [bare_parse_seconds(text) for _ in range(args.repeat)]
        parse_wall = statistics.median(p[0] for p in parses)
        parse_cpu = statistics.median(p[1] for p in parses)
        rows = [["bare parse (bindings, one context)", f"{parse_wall:.2f}", f"{parse_cpu:.2f}",
                 "-", "1.0"]]
        for name, command in commands.items():
            runs = [timed(command) for _ in range(args.repeat)]
            wall = statistics.median(r[0] for r in runs)
            cpu = statistics.median(r[1] for r in runs)
            peak = statistics.median(r[2] for r in runs)
            rows.append([f"memplan {name}", f"{wall:.2f}", f"{cpu:.2f}", f"{peak:.0f}",
                         f"{cpu / parse_cpu:.1f}"])
    print(f"{ops:,} ops in {chunks:,} chunks, {len(text) / 2**20:.1f} MiB; medians of "
          f"{args.repeat}; CPU = user + system seconds (a shared machine stretches wall time)")
    print(format_table(["what", "wall s", "CPU s", "peak MiB", "CPU x bare parse"], rows))


if __name__ == "__main__":
    main()
