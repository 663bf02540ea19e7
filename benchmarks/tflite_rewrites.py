"""Below the schedule's bound on TFLM (issue 34): the floor of any operator order, the
bound as given, the bound after `--rewrite all`, and TFLM's smallest arena for the input
(TFLM's own plan) and for the rewritten, planned model, both bisected on TFLM's
interpreter, with the outputs compared byte for byte.

    python benchmarks/tflite_rewrites.py [MODEL.tflite | FOLDER ...] [--time-limit S]
                                         [--rewrite all|KIND,...] [--no-built]

A folder stands for its .tflite files in name order (e.g. the ones
benchmarks/keras_tflite.py builds); `--rewrite` as `memplan plan --rewrite` (default all).

Beside the files given, two models built here (tests/tflite_ops.py): `branches` (two
branches, the large one listed first) and `add_inplace_int8` (an int8 ADD of two large
tensors at the model's peak).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from tflite_ops import branches_model, kernel_model  # noqa: E402

from memplan.plan.contract import ReadOptions  # noqa: E402
from memplan.plan.driver import RunFailure, check_run, plan_model  # noqa: E402
from memplan.plan.rewrites import parse  # noqa: E402
from memplan.report.table import format_table  # noqa: E402


def row(path: Path, time_limit: float, rewrite: str = "all") -> list[object]:
    options = ReadOptions(write=True, time_limit=time_limit or None,
                          rewrites=parse(rewrite, "tflm"))
    fe, plan = plan_model(str(path), options=options)
    kept = [r.kind.value for r in plan.rewrites if r.kept]
    try:
        check = check_run(fe, plan)
        before, after = check.original.arena, check.planned.arena
        identical = "yes" if check.identical else "NO"
    except RunFailure as err:
        before = after = None
        identical = f"not run: {err}"
    ratio = f"{after / before:.3f}" if before and after else "-"
    return [path.stem, plan.floor, plan.original_lower_bound, plan.lower_bound,
            ",".join(kept) or "-", before, after, ratio, identical]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", type=Path)
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--rewrite", default="all")
    parser.add_argument("--no-built", action="store_true",
                        help="leave out the two models built here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        built = {} if args.no_built else {
            "branches": branches_model(), "add_inplace_int8": kernel_model("ADD", "int8")}
        paths = [f for path in args.models
                 for f in (sorted(path.glob("*.tflite")) if path.is_dir() else [path])]
        for name, data in built.items():
            paths.append(Path(tmp) / f"{name}.tflite")
            paths[-1].write_bytes(data)
        rows = []
        for p in paths:
            rows.append(row(p, args.time_limit, args.rewrite))
            print(f"  {p.stem}: done", file=sys.stderr)
    print(format_table(["model", "floor", "bound as given", "bound rewritten", "kept",
                        "arena TFLM", "arena rewritten", "ratio", "identical"], rows))


if __name__ == "__main__":
    main()
