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


def bare_parse_seconds(text: str) -> float:
    started = time.perf_counter()
    parse_chunks(text, "<bench>", ir.Context())
    return time.perf_counter() - started


def timed(command: list[str]) -> tuple[float, float]:
    """(wall seconds, peak MiB) of one whole process."""
    proc = subprocess.run(["/usr/bin/time", "-f", "%e %M", *command], capture_output=True,
                          text=True)
    wall, kib = proc.stderr.strip().splitlines()[-1].split()
    if proc.returncode not in (0, 1):
        sys.exit(f"{' '.join(command)} failed: {proc.stderr.strip().splitlines()[0]}")
    return float(wall), int(kib) / 1024


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
        parse = statistics.median(bare_parse_seconds(text) for _ in range(args.repeat))
        rows = [["bare parse (bindings, one context)", f"{parse:.2f}", "-", "1.0"]]
        for name, command in commands.items():
            runs = [timed(command) for _ in range(args.repeat)]
            wall = statistics.median(r[0] for r in runs)
            peak = statistics.median(r[1] for r in runs)
            rows.append([f"memplan {name}", f"{wall:.2f}", f"{peak:.0f}", f"{wall / parse:.1f}"])
    print(f"{ops:,} ops in {chunks:,} chunks, {len(text) / 2**20:.1f} MiB; medians of "
          f"{args.repeat}")
    print(format_table(["what", "seconds", "peak MiB", "x bare parse"], rows))


if __name__ == "__main__":
    main()
