"""`memplan plan MODEL`: a whole model's arenas, for every front end (`memplan.plan.driver`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..errors import BudgetError, InputError, MemplanError
from ..files import Outputs
from .args import (
    inputs_of,
    non_negative_int,
    non_negative_seconds,
    parse_values,
    require_readable,
)

EXIT_1 = ("the planned model runs differently, fails where the input ran or needs a larger "
          "arena (--check-run), or the plan is over --budget")


def add_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("plan", help="plan a whole model's tensor arenas (.tflite, .onnx, "
                            ".pt2)",
                            description="Plan the arenas of a model at static offsets with "
                            "the runtime's own plan beside memplan's; write the model with the "
                            "plan in the runtime's form (.tflite: TFLM OfflineMemoryAllocation; "
                            ".pt2: an ExecuTorch .pte planned by memplan) and prove it on the "
                            "runtime (--check-run, in a child process).")
    p.add_argument("file", help="model file; the suffix says its format")
    from ..plan import names

    p.add_argument("--runtime", choices=names(), help="the front end to read it with, when "
                   "the suffix does not say")
    p.add_argument("--target", help="a preset name or a target .toml file (pools, alignment)")
    p.add_argument("-o", "--output", help="write the model with the plan (.tflite; .pte for "
                   "a .pt2); a .tflite is kept only once TFLM has run it in no larger an "
                   "arena than its own plan needs")
    p.add_argument("--time-limit", type=non_negative_seconds, default=10.0, metavar="S",
                   help="seconds for the exact solver per arena (default 10; 0: heuristics "
                   "only)")
    p.add_argument("--dim", action="append", default=[], metavar="NAME=N",
                   help="value of a symbolic input dimension (.onnx); repeatable")
    p.add_argument("--check-run", action="store_true", help="run the input and the written "
                   "model on the runtime (TFLM's interpreter, executorch.runtime) in a child "
                   "process: identical outputs, and for TFLM the smallest arenas")
    p.add_argument("--budget", type=non_negative_int, metavar="BYTES",
                   help="bytes all arenas together may take (with --target: all pools "
                   "together): exit 1 if the plan is over, saying whether any plan could fit")
    p.add_argument("--plot", help="draw memplan's layout, one panel per arena (.svg, .png, "
                   ".pdf)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text "
                   "(docs/json-schema.md)")
    p.add_argument("--kernels", choices=("reference", "cmsis-nn"), default="reference",
                   help="TFLM kernels the firmware links (.tflite): their scratch buffers get "
                   "room in the plan (default reference; cmsis-nn needs a Cortex-M core)")
    p.add_argument("--core", metavar="NAME", help="the Cortex-M core CMSIS-NN is built for "
                   "(cortex-m4, cortex-m55+nomve...; default: the --target's name)")
    p.add_argument("--c-header", metavar="FILE.h", help="write the plan for firmware: each "
                   "arena's size, an aligned uint8_t array and the offsets (TFLM: the whole "
                   "arena to declare, measured by running the written model)")
    p.add_argument("--summary", action="store_true", help="omit the per-tensor table")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    require_readable(args.file)
    from ..plan import entry_for, load
    from ..plan.contract import ReadOptions, verifies_writes
    from ..plan.driver import RunFailure, check_run, over_budget, plan_model
    from ..report.model_plan_report import format_plan_text, plan_json

    fe = load(entry_for(args.file, args.runtime), args.file)
    outputs = Outputs(inputs_of(args))
    outputs.claim(args.output, "planned model")  # checked before any work
    outputs.claim(args.plot, "layout plot", "--plot")
    outputs.claim(args.c_header, "C header", "--c-header")
    if args.plot:
        from ..report.layout_plot import check_plot_path

        plot_format = check_plot_path(args.plot)
    if args.output and fe.writes and Path(args.output).suffix.lower() != fe.writes:
        raise InputError(args.output, f"a model for {fe.runtime} is written as {fe.writes}")
    if args.dim and fe.name != "onnx":
        raise InputError(args.file, "--dim applies to .onnx models only")
    if (args.kernels != "reference" or args.core) and fe.name != "tflm":
        raise InputError(args.file, "--kernels and --core apply to .tflite models only")
    if args.check_run and not args.output:
        raise InputError(args.file, "--check-run runs the planned model: add -o FILE")
    if args.c_header and verifies_writes(fe) and not args.output:
        raise InputError(args.file, f"--c-header declares the whole arena {fe.runtime} "
                         "needs (the plan and its own persistent data), measured by running "
                         "the planned model: add -o FILE")
    target = None
    if args.target:
        from ..targets import load_target

        target = load_target(args.target)
    from ..report.pack_progress import wanted
    from ..report.step_progress import StepProgress, step

    options = ReadOptions(target, parse_values("--dim", args.dim, "NAME=INTEGER")
                          if args.dim else {}, args.output is not None, args.time_limit or None,
                          args.kernels, args.core, step=step)

    check = failure = None
    code = 0
    with StepProgress(wanted(args.json)):
        fe, plan = plan_model(args.file, runtime=args.runtime, options=options)
        # A CMSIS-NN build cannot be run here (TFLM's interpreter has the reference kernels).
        if args.check_run or (args.output and verifies_writes(fe)
                              and args.kernels == "reference"):
            try:
                check = check_run(fe, plan, step=step)  # on the bytes, before anything is written
            except RunFailure as err:
                failure, code = str(err), err.exit_code
    failures = []
    if failure is not None:
        failures.append(failure)
    elif check is not None and not check.identical:
        failures.append("the planned model computes different outputs")
    elif check is not None and not check.no_larger:
        failures.append(f"the planned model needs a larger arena than {fe.runtime} with "
                        "the input's plan")
    if args.budget is not None:
        over = over_budget(plan, args.budget)
        if over:
            failures.append(over)
    if args.json:
        document = plan_json(plan, check=check, check_error=failure, written=args.output)
        print(json.dumps(document, indent=2))
    else:
        print(format_plan_text(plan, check=check, check_error=failure, written=args.output,
                               show_tensors=not args.summary), end="")
    if failures:
        outputs.abandon("; ".join(failures), quiet=True)
        if code == 2:  # the runtime cannot run the input at all: no result
            raise MemplanError(failure)
        raise BudgetError(failure or f"{args.file}: {'; '.join(failures)}")
    written = plan.written
    if written is not None:
        outputs.provide(args.output, lambda f: f.write(written))
    if args.c_header:
        from ..report.c_header import format_c_header, plan_header

        outputs.provide_text(args.c_header,
                             format_c_header(plan_header(plan, args.c_header, check)))
    if args.plot:
        from ..report.layout_plot import write_panels_plot

        panels = [(a.name, a.packing) for a in plan.arenas]
        title = Path(args.file).name
        outputs.provide(args.plot, lambda f: write_panels_plot(panels, f, plot_format, title))
    outputs.commit()
    return 0

