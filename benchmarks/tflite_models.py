"""TFLM arenas: memplan's offline plan against TFLM's own planner, proven on TFLM; Vela beside.

    python benchmarks/tflite_models.py MODELS_DIR [--time-limit S] [--vela]

MODELS_DIR holds `.tflite` files built by `benchmarks/tflite_build.py` (random weights).
For every model: the lower bound of the arena (memplan's view: an in-place RESHAPE shares
its input's bytes) and of TFLM's view (nothing shared), TFLM's greedy plan reproduced,
memplan's plan (exact within S seconds), then both models run under TFLM's interpreter
(tflite-micro) on the same random inputs: the smallest arena each runs in (searched), the
head and tail TFLM reports there, and whether the outputs are identical.

With --vela, every int8 model is also compiled by Vela (ethos-u-vela) for the Ethos-U55-128
of the cortex-m55+ethos-u55 target (Arm/vela.ini `Ethos_U55_High_End_Embedded`, memory mode
`Shared_Sram`: feature maps and weight staging in SRAM) with each of its tensor allocators.
Vela's SRAM allocation (its `--verbose-allocation` listing: every buffer it keeps in SRAM,
with live range and size) is packed again by memplan: the same buffers, the same lifetimes,
another packer.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from memplan.pack import Buffer, PackOptions, Problem, lower_bound, pack
from memplan.plan.contract import ReadOptions
from memplan.plan.driver import RunFailure, check_run, plan_model
from memplan.report.table import format_table
from memplan.targets import load_target

TARGET = "cortex-m55+ethos-u55"
VELA_ARGS = ["--accelerator-config", "ethos-u55-128", "--config", "Arm/vela.ini",
             "--system-config", "Ethos_U55_High_End_Embedded", "--memory-mode", "Shared_Sram"]
ALLOCATORS = ("LinearAlloc", "Greedy", "HillClimb")


def tflm_rows(paths: list[Path], time_limit: float) -> list[tuple]:
    target = load_target(TARGET)
    rows = []
    for path in paths:
        fe, plan = plan_model(str(path), options=ReadOptions(target, {}, True, time_limit))
        [arena] = plan.arenas
        runtime = plan.view.arenas[0].runtime
        try:
            check = check_run(fe, plan)
        except RunFailure as err:  # TFLM crashed or refused: said in the row
            check, failure = None, str(err).split(": ", 1)[-1]
        cells = ("-",) * 5 + (failure,) if check is None else (
            check.original.extra["head"], check.planned.extra["head"],
            check.original.arena, check.planned.arena,
            check.planned.arena - check.original.arena,
            "yes" if check.identical else "NO")
        rows.append((
            path.stem, len(arena.buffers),
            sum(1 for t in arena.buffers if t.shares_with is not None),
            runtime.lower_bound, arena.runtime, arena.lower_bound, arena.size,
            arena.proof.value, *cells,
        ))
        print(f"  {path.stem}: done", file=sys.stderr)
    return rows


TFLM_HEADERS = ("model", "tensors", "shared", "bound TFLM view", "TFLM greedy",
                "bound", "memplan", "status", "head TFLM", "head memplan",
                "arena TFLM", "arena memplan", "change", "identical")

_ROW = re.compile(r"^\s*(\d+)\s*-\s*(\d+):\s*(0x[0-9a-f]+)\s*-\s*(0x[0-9a-f]+):\s*(\d+):")


def vela_sram(path: Path, allocator: str, tmp: str) -> tuple[list[Buffer], int, str]:
    """Vela's SRAM buffers (merged where Vela gives several tensors one address and range),
    the peak of its allocation, and its 'Total SRAM used' line."""
    out = subprocess.run(
        [str(Path(sys.executable).parent / "vela"), str(path), *VELA_ARGS,
         "--tensor-allocator", allocator, "--output-dir", tmp, "--verbose-allocation"],
        capture_output=True, text=True, check=True).stdout
    buffers: dict[tuple[int, int, int, int], Buffer] = {}
    in_sram = False
    for line in out.splitlines():
        if line.startswith(("Allocation, memory", "Tensor Allocation for", "Allocation Peak")):
            in_sram = line.startswith("Allocation, memory Sram")
        m = _ROW.match(line)
        if m and in_sram:
            start, end, lo, hi = int(m[1]), int(m[2]), int(m[3], 16), int(m[4], 16)
            buffers.setdefault((start, end, lo, hi),
                               Buffer(f"v{len(buffers)}", start, end + 1, hi - lo, 16, None))
    peak = max(int(lo) + b.size for (_, _, lo, _), b in buffers.items())
    total = next((ln.split("used", 1)[1].strip() for ln in out.splitlines()
                  if ln.startswith("Total SRAM used")), "?")
    return list(buffers.values()), peak, total


def vela_rows(paths: list[Path], time_limit: float) -> list[tuple]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            for allocator in ALLOCATORS:
                try:
                    buffers, peak, total = vela_sram(path, allocator, tmp)
                except subprocess.CalledProcessError as err:
                    rows.append((path.stem, allocator, "vela failed: "
                                 + (err.stderr or "").strip().splitlines()[-1:][0][:60],
                                 "", "", "", "", ""))
                    continue
                problem = Problem(buffers)
                ours = pack(problem, PackOptions(minimize=True, time_limit=time_limit))
                rows.append((path.stem, allocator, total, len(buffers), lower_bound(problem),
                             peak, ours.peak, ours.status))
            print(f"  {path.stem}: vela done", file=sys.stderr)
    return rows


VELA_HEADERS = ("model", "Vela allocator", "Vela SRAM used", "buffers", "bound",
                "Vela peak", "memplan", "status")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", type=Path)
    parser.add_argument("--time-limit", type=float, default=30.0,
                        help="seconds for the exact solver per model (default 30)")
    parser.add_argument("--vela", action="store_true", help="also compile int8 models with Vela")
    args = parser.parse_args()
    paths = sorted(args.models.glob("*.tflite"))
    if not paths:
        parser.error(f"no .tflite files in {args.models}")
    print(format_table(TFLM_HEADERS, tflm_rows(paths, args.time_limit)))
    if args.vela:
        print()
        int8 = [p for p in paths if "int8" in p.stem]
        print(format_table(VELA_HEADERS, vela_rows(int8, args.time_limit)))


if __name__ == "__main__":
    main()
