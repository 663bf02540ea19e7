"""`memplan plan MODEL`: a whole model's tensor arena (.tflite, .onnx: see plan_models;
.pt2: ExecuTorch, see models/executorch_program)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..errors import BudgetError, InputError
from ..files import Outputs
from .args import inputs_of, non_negative_int, non_negative_seconds, parse_values

EXIT_1 = ("the planned model runs differently or needs a larger arena (--check-run), or the "
          "plan is over --budget")


def add_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("plan", help="plan a whole model's tensor arena (.tflite, .onnx, "
                            ".pt2)",
                            description="Plan the arena of a model at static offsets; for "
                            ".tflite, write the plan as TFLM OfflineMemoryAllocation metadata; "
                            "for .pt2, lower it with ExecuTorch planned by memplan and by "
                            "ExecuTorch's own planner.")
    p.add_argument("file", help="model file; the suffix says its format")
    p.add_argument("--target", help="a preset name or a target .toml file (pools, alignment)")
    p.add_argument("-o", "--output", help="write the model with the plan (.tflite; .pte for "
                   "a .pt2)")
    p.add_argument("--time-limit", type=non_negative_seconds, default=10.0, metavar="S",
                   help="seconds for the exact solver (default 10; 0: heuristics only)")
    p.add_argument("--dim", action="append", default=[], metavar="NAME=N",
                   help="value of a symbolic input dimension (.onnx); repeatable")
    p.add_argument("--check-run", action="store_true", help="run the input and the written "
                   "model under TFLM's interpreter: smallest arenas, identical outputs (.pt2: "
                   "both programs under executorch.runtime)")
    p.add_argument("--budget", type=non_negative_int, metavar="BYTES",
                   help="bytes the one arena may take (.pt2): exit 1 if the plan is over, "
                   "saying whether any plan could fit")
    p.add_argument("--plot", help="draw memplan's layout of the first arena (.pt2; .svg, "
                   ".png, .pdf)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--summary", action="store_true", help="omit the per-tensor table")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    suffix = Path(args.file).suffix.lower()
    if suffix in EXECUTORCH:
        return EXECUTORCH[suffix](args)
    for option in ("budget", "plot"):
        if getattr(args, option) is not None:
            raise InputError(args.file, f"--{option} applies to .pt2 models only")
    from ..plan_models import check_tflite_run, plan_model
    from ..report.model_plan_report import format_model_plan_text, model_plan_json

    outputs = Outputs(inputs_of(args))
    outputs.claim(args.output, "planned model")  # checked before any work
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
        raise InputError(args.file, "--check-run runs the planned model: add -o FILE")
    plan = plan_model(args.file, **options)
    if plan.model_bytes is not None:
        model = plan.model_bytes
        outputs.provide(args.output, lambda f: f.write(model))
    check = check_tflite_run(plan) if args.check_run else None  # on the bytes, before writing
    if args.json:
        print(json.dumps(model_plan_json(plan, check), indent=2))
    else:
        print(format_model_plan_text(plan, check, show_tensors=not args.summary), end="")
    if check is not None and not (check.identical and check.no_larger):
        outputs.abandon("the planned model " + ("computes different outputs" if not
                        check.identical else "needs a larger arena than TFLM's own plan"))
        return 1
    outputs.commit()
    return 0


# --- ExecuTorch: several arenas, ExecuTorch's planners beside memplan's -----------------

def _run_executorch(args: argparse.Namespace) -> int:
    from ..models.pt2 import check_archive, quiet_torch

    check_archive(args.file)  # a hostile file is refused before torch and ExecuTorch load
    quiet_torch()  # before ExecuTorch's import, which logs through torch's logger
    from ..models.executorch import PlanningError, pools_from_target
    from ..models.executorch_program import (
        arena_layout,
        identical,
        load_exported,
        plan_model,
        random_inputs,
    )
    from ..models.executorch_program import run as run_program
    from ..report.executorch_report import format_model_text, model_json

    outputs = Outputs(inputs_of(args))
    outputs.claim(args.output, "planned program")
    outputs.claim(args.plot, "layout plot", "--plot")
    if args.output and Path(args.output).suffix.lower() != ".pte":
        raise InputError(args.output, "an ExecuTorch program is written as .pte")
    if args.dim:
        raise InputError(args.file, "--dim applies to .onnx models only")
    if args.budget is not None and args.target:
        raise InputError(args.file, "--budget bounds the one arena; with --target the pools' "
                         "capacities are the budget")
    pools = ()
    if args.target:
        from ..targets import load_target

        pools = pools_from_target(load_target(args.target))
    exported = load_exported(args.file)
    try:
        plan = plan_model(exported, pools=pools, time_limit=args.time_limit or None)
    except PlanningError as err:
        raise BudgetError(f"{args.file}: {err}") from None
    if args.plot:
        from ..report.layout_plot import save_layout_plot

        first = plan.memplan.arenas[0].mem_id if plan.memplan.arenas else 1
        save_layout_plot(arena_layout(plan.memplan, first), args.plot,
                         title=f"{Path(args.file).name}, arena {first}")
    program = plan.memplan.program
    outputs.provide(args.output, lambda f: f.write(program))
    if args.json:
        print(json.dumps(model_json(plan, args.file), indent=2))
    else:
        print(format_model_text(plan, args.file, show_tensors=not args.summary), end="")
    failures = []
    if args.check_run:
        if plan.executorch is None:
            raise InputError(args.file, f"--check-run needs ExecuTorch's own plan, which "
                             f"refused the model: {plan.executorch_error}")
        inputs = random_inputs(exported)
        same = identical(run_program(plan.executorch.program, inputs),
                         run_program(program, inputs))
        print(f"execution check: outputs {'identical' if same else 'DIFFER'} (executorch.runtime,"
              f" ExecuTorch's plan and memplan's, same random inputs)")
        if not same:
            failures.append("memplan's program computes different outputs")
    if args.budget is not None and plan.memplan.total > args.budget:
        failures.append(_over_budget(plan.memplan, args.budget))
    if failures:
        outputs.abandon("; ".join(failures))
        raise BudgetError(f"{args.file}: {'; '.join(failures)}")
    outputs.commit()
    return 0


def _over_budget(lowered, budget: int) -> str:
    arenas = lowered.arenas
    proven = bool(arenas) and all(a.proof.name in ("AT_BOUND", "OPTIMAL") for a in arenas)
    bound = sum(a.lower_bound for a in arenas)
    why = (f"no plan can: {bound:,} B are live at once" if bound > budget else
           "no plan can (the exact solver proved memplan's minimal)" if proven else
           f"not proven either way (lower bound {bound:,} B)")
    return f"memplan's plan takes {lowered.total:,} B, over the budget of {budget:,} B; {why}"


def _refuse_pte(args: argparse.Namespace) -> int:
    raise InputError(args.file, "a .pte is already planned and lowered; plan the "
                     "torch.export program (.pt2) it came from")


# ExecuTorch's formats: their plans span several arenas and are proven by ExecuTorch's
# runtime, so they have their own library half (models/executorch_program.py) and report.
EXECUTORCH = {".pt2": _run_executorch, ".pte": _refuse_pte}
