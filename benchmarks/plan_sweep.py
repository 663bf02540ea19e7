"""`memplan plan` over many models, one process each: the JSON document validated against
the schema, the plot written, and with --check-run the runtime's verdict in one line.

    python benchmarks/plan_sweep.py MODEL... [--check-run] [--time-limit S] [--target T]
                                    [--dim NAME=N]

Prints one row per model: exit status, whether stdout was one JSON document valid against
`report/schemas/plan.schema.json`, arenas, memplan's and the runtime's totals, the proof of each
arena, whether the plot was written, and the one line on stderr when the run failed.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

from memplan.report.json_schema import plan_json_problems
from memplan.report.table import format_table

WRITES = {".tflite": ".tflite", ".pt2": ".pte"}


def sweep_one(path: Path, tmp: Path, check_run: bool, time_limit: float,
              target: str | None, dims: list[str]) -> list[object]:
    plot = tmp / f"{path.name}.svg"
    command = [sys.executable, "-m", "memplan", "plan", str(path), "--json", "--plot", str(plot),
               "--time-limit", str(time_limit)]
    if target:
        command += ["--target", target]
    for dim in dims:
        command += ["--dim", dim]
    out = WRITES.get(path.suffix)
    if check_run and out:
        command += ["-o", str(tmp / f"{path.name}{out}"), "--check-run"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=1800)
    try:
        document = json.loads(done.stdout)
        problems = plan_json_problems(document)
        valid = "yes" if not problems else f"NO: {problems[0]}"
    except json.JSONDecodeError:
        document, valid = None, "no JSON" if not done.stdout else "NOT ONE DOCUMENT"
    line = [ln for ln in done.stderr.splitlines()
            if ln.startswith("memplan: ") and not ln.startswith("memplan: wrote")]
    arenas = document["arenas"] if document else []
    check = (document or {}).get("check") or {}
    return [path.name[-48:], done.returncode, valid, len(arenas),
            document["total"]["memplan"] if document else "-",
            document["total"]["runtime"] if document else "-",
            ",".join(a["status"] for a in arenas) or "-",
            "yes" if plot.exists() else "no",
            {True: "identical", False: "DIFFER"}.get(check.get("identical"), "-"),
            (line[-1].split(": ", 2)[-1][:100] if line else "")]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", type=Path)
    parser.add_argument("--check-run", action="store_true")
    parser.add_argument("--time-limit", type=float, default=2.0)
    parser.add_argument("--target")
    parser.add_argument("--dim", action="append", default=[], help="NAME=N for .onnx models")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in args.models:
            dims = args.dim if path.suffix == ".onnx" else []
            rows.append(sweep_one(path, Path(tmp), args.check_run, args.time_limit,
                                  args.target, dims))
            print(f"  {path.name}: exit {rows[-1][1]}", file=sys.stderr)
    print(format_table(["model", "exit", "schema", "arenas", "memplan", "runtime", "status",
                        "plot", "check", "stderr"], rows))


if __name__ == "__main__":
    main()
