"""Time and peak memory of memplan on large and hostile TOML and MLIR text (issue 23).

    python benchmarks/hostile_text.py [--repeat N]

Each case runs in a fresh Python process N times (default 3); the table shows the median
wall seconds inside the measured call, the median CPU seconds of the whole process (imports
included) and the process's peak resident memory (VmHWM):
- the string pattern of the nesting counts (targets/load.py, ir/load.py) on a 20 MB string,
  and the pattern it replaced (a group repeated per character);
- `memplan targets` on a 20 MB target file (refused by its size, unread);
- `memplan check` on one function of 100,000 `memref.alloca` (planned), and of 1,240,000
  (refused before parsing by the allocation limit).

    python benchmarks/hostile_text.py --ops FILE [--count N]

writes instead one function of N chained `arith.addi` (default: `ir/load.py`'s MAX_OPS
less the function and its return), the file the op limit is measured on
(docs/reliability.md): `/usr/bin/time -v memplan check FILE --target cortex-m55`.
`--blob FILE` writes the byte limit's file: a function using a dense resource whose hex
blob fills the file to `MAX_MLIR_BYTES` less 16 bytes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from memplan.ir.load import MAX_MLIR_BYTES, MAX_OPS
from memplan.report.table import format_table

# The pattern the TOML and MLIR nesting counts used before issue 23.
OLD = r'"(?:[^"\\\n]|\\.)*"'

PATTERN = """
import json, os, re, sys, time
from memplan.targets.load import _TOML_STRINGS_AND_COMMENTS as new
text = 'name = "' + 'a' * (20 << 20) + '"\\n'
pattern = re.compile(sys.argv[2]) if sys.argv[1] == "old" else new
started = time.perf_counter()
pattern.sub("", text)
seconds = time.perf_counter() - started
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
cpu = sum(os.times()[:2])
print(json.dumps({"code": 0, "seconds": seconds, "cpu": cpu, "rss_kib": int(hwm.split()[1])}))
"""

COMMAND = """
import contextlib, io, json, os, sys, time
from memplan.cli import main
started = time.perf_counter()
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    code = main(sys.argv[1:])
seconds = time.perf_counter() - started
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
cpu = sum(os.times()[:2])
print(json.dumps({"code": code, "seconds": seconds, "cpu": cpu, "rss_kib": int(hwm.split()[1])}))
"""


def allocas(path: Path, count: int) -> Path:
    with path.open("w") as f:
        f.write("func.func @f() {\n")
        for i in range(count):
            f.write(f"  %a{i} = memref.alloca() : memref<4xf32>\n")
        f.write("  return\n}\n")
    return path


def chained_adds(path: Path, count: int) -> Path:
    with path.open("w") as f:
        f.write("func.func @f(%a: i32) -> i32 {\n  %v0 = arith.addi %a, %a : i32\n")
        f.write("".join(f"  %v{i} = arith.addi %v{i - 1}, %a : i32\n" for i in range(1, count)))
        f.write(f"  return %v{count - 1} : i32\n}}\n")
    return path


def resource_blob(path: Path) -> Path:
    head = ("module {\n  func.func @f() -> tensor<4xi8> {\n    %c = arith.constant "
            "dense_resource<blob> : tensor<4xi8>\n    return %c : tensor<4xi8>\n  }\n}\n{-#\n"
            "  dialect_resources: {\n    builtin: {\n      blob: \"0x01000000")
    tail = "\"\n    }\n  }\n#-}\n"
    digits = MAX_MLIR_BYTES - len(head) - len(tail) - 16
    with path.open("w") as f:
        f.write(head + "ab" * (digits // 2) + tail)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--ops", metavar="FILE", help="write the op limit's file")
    parser.add_argument("--count", type=int, default=MAX_OPS - 10)
    parser.add_argument("--blob", metavar="FILE", help="write the byte limit's file")
    args = parser.parse_args()
    if args.blob:
        resource_blob(Path(args.blob))
        return 0
    if args.ops:
        chained_adds(Path(args.ops), args.count)
        return 0
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        toml = folder / "t.toml"
        toml.write_text('devices = ["cpu"]\nname = "' + "a" * (20 << 20) + '"\n')
        cases = [
            ("string pattern, 20 MB string (before)", PATTERN, ["old", OLD], None),
            ("string pattern, 20 MB string (now)", PATTERN, ["new"], None),
            ("targets, 20 MB target file", COMMAND, ["targets", str(toml)], toml),
            ("check, 100,000 allocas", COMMAND,
             ["check", str(allocas(folder / "a100k.mlir", 100_000)), "--target", "x86_64"],
             folder / "a100k.mlir"),
            ("check, 1,240,000 allocas", COMMAND,
             ["check", str(allocas(folder / "a1m.mlir", 1_240_000)), "--target", "x86_64"],
             folder / "a1m.mlir"),
        ]
        rows = []
        for label, probe, argv, path in cases:
            runs = []
            for _ in range(args.repeat):
                out = subprocess.run([sys.executable, "-c", probe, *argv], check=True,
                                     capture_output=True, text=True).stdout
                runs.append(json.loads(out))
            size = f"{path.stat().st_size / 1e6:.1f}" if path else "21.0"
            rows.append((label, size, runs[0]["code"],
                         round(statistics.median(r["seconds"] for r in runs), 2),
                         round(statistics.median(r["cpu"] for r in runs), 2),
                         round(max(r["rss_kib"] for r in runs) / 1024, 1)))
    print(format_table(("input", "MB", "exit", "s (median)", "process CPU s (median)",
                        "peak RSS MiB"), rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
