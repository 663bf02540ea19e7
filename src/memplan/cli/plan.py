"""`memplan plan MODEL`: a whole model's tensor arena (.tflite, .onnx; see plan_models)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from ..errors import InputError
from ..files import Outputs
from .args import inputs_of, non_negative_seconds, parse_values

EXIT_1 = "the written model runs differently or needs a larger arena (--check-run)"
# The written model is what --check-run runs, so it is written before the check: the one
# command whose exit 1 leaves its output.
WRITES_ON_EXIT_1 = True


def add_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("plan", help="plan a whole model's tensor arena (.tflite, .onnx)",
                            description="Plan the arena of a model at static offsets; for "
                            ".tflite, write the plan as TFLM OfflineMemoryAllocation metadata.")
    p.add_argument("file", help="model file; the suffix says its format")
    p.add_argument("--target", help="a preset name or a target .toml file (pools, alignment)")
    p.add_argument("-o", "--output", help="write the model with the plan (.tflite only)")
    p.add_argument("--time-limit", type=non_negative_seconds, default=10.0, metavar="S",
                   help="seconds for the exact solver (default 10; 0: heuristics only)")
    p.add_argument("--dim", action="append", default=[], metavar="NAME=N",
                   help="value of a symbolic input dimension (.onnx); repeatable")
    p.add_argument("--check-run", action="store_true", help="run the input and the written "
                   "model under TFLM's interpreter: smallest arenas, identical outputs")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--summary", action="store_true", help="omit the per-tensor table")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..plan_models import check_tflite_run, plan_model
    from ..report.model_plan_report import format_model_plan_text, model_plan_json

    Outputs(inputs_of(args)).claim(args.output, "planned model")  # checked before work
    options: dict[str, object] = {"output": args.output,
                                  "time_limit": args.time_limit or None}
    if args.target:
        from ..targets import load_target

        options["target"] = load_target(args.target)
    if args.dim:
        if Path(args.file).suffix.lower() != ".onnx":
            raise InputError(args.file, "--dim applies to .onnx models only")
        options["dims"] = parse_values("--dim", args.dim, "NAME=INTEGER")
    if args.check_run and not args.output:
        raise InputError(args.file, "--check-run runs the written model: add -o FILE")
    plan = plan_model(args.file, **options)
    if plan.output is not None:
        print(f"memplan: wrote planned model to {plan.output}", file=sys.stderr)
    check = check_tflite_run(plan) if args.check_run else None
    if args.json:
        print(json.dumps(model_plan_json(plan, check), indent=2))
    else:
        print(format_model_plan_text(plan, check, show_tensors=not args.summary), end="")
    return 1 if check is not None and not (check.identical and check.no_larger) else 0
