"""`memplan plan MODEL`: a whole model's arenas, for every front end (`memplan.plan.driver`)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from ..errors import BudgetError, InputError, MemplanError
from ..files import Outputs
from .args import (
    add_c_header_arguments,
    inputs_of,
    non_negative_int,
    non_negative_seconds,
    parse_dims,
    require_readable,
)

EXIT_1 = ("the planned model runs differently, fails where the input ran or needs a larger "
          "arena (--check-run), or the plan is over --budget")


def add_command(commands: argparse._SubParsersAction) -> None:
    from ..plan import REGISTRY, options_of

    runtimes = "; ".join(f"{e.name}: {e.summary}" for e in REGISTRY)
    p = commands.add_parser("plan", help="plan a whole model's tensor arenas",
                            description="Plan the arenas of a model at static offsets with "
                            "the runtime's own plan beside memplan's; write the model with the "
                            "plan in the runtime's form and prove it on the runtime "
                            f"(--check-run, in a child process). Runtimes: {runtimes}.")
    p.add_argument("file", help="model file; the suffix says its format")
    p.add_argument("--runtime", choices=[e.name for e in REGISTRY], help="the runtime to "
                   "plan for, when the suffix does not say")
    p.add_argument("--target", help="a preset name or a target .toml file (pools, alignment)")
    p.add_argument("-o", "--output", help="write the model with the plan in the runtime's "
                   "form; a runtime that places data of its own around the plan keeps it only "
                   "once a run shows it needs no larger an arena than its own plan")
    p.add_argument("--time-limit", type=non_negative_seconds, default=10.0, metavar="S",
                   help="seconds for the exact solver per arena (default 10; 0: heuristics "
                   "only)")
    p.add_argument("--dim", action="append", default=[], metavar="NAME=N",
                   help="value of a symbolic input dimension; NAME=..N: one plan for every "
                   "size up to N (IREE); repeatable")
    p.add_argument("--check-run", action="store_true", help="run the input and the planned "
                   "model on the runtime in a child process and compare their outputs (the "
                   "planned model is made in memory: -o is not needed)")
    p.add_argument("--budget", type=non_negative_int, metavar="BYTES",
                   help="bytes all arenas together may take (with --target: all pools "
                   "together): exit 1 if the plan is over, saying whether any plan could fit")
    p.add_argument("--plot", help="draw memplan's layout, one panel per arena (.svg, .png, "
                   ".pdf)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text "
                   "(docs/json-schema.md)")
    seen = set()
    for entry in REGISTRY:
        for option in options_of(entry):
            if option.flag in seen:
                continue
            seen.add(option.flag)
            p.add_argument(option.flag, dest=option.dest, choices=option.choices,
                           metavar=option.metavar, default=None,
                           help=f"{entry.name}: {option.help}")
    add_c_header_arguments(p, "write the plan for firmware: each arena's size and an "
                           "aligned uint8_t array (TFLM: the whole arena to declare, measured "
                           "by running the planned model)")
    p.add_argument("--c-offsets", action="store_true", help="with --c-header: also a macro "
                   "per tensor offset (the runtime reads its offsets from the model it loads, "
                   "not from the header)")
    p.add_argument("--summary", action="store_true", help="omit the per-tensor table")
    p.add_argument("--rewrite", metavar="NAMES", help="rewrite the model below its "
                   "schedule's bound before planning, each kept only when the bound drops: "
                   "comma-separated reorder (operator order), inplace (elementwise outputs "
                   "over dying inputs), patches (patch-by-patch first stage), or all; a "
                   "written model is kept only once a run shows the same outputs (.tflite, and "
                   "any rewritten model)")
    p.add_argument("--max-recompute", type=float, default=0.2, metavar="R",
                   help="--rewrite patches: the patched model's multiply-accumulates at "
                   "most (1 + R) times the original model's (default 0.2)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    require_readable(args.file)
    from ..plan import REGISTRY, entry_for, load, options_of
    from ..plan.contract import ReadOptions, takes_dims, unrunnable, verifies_writes
    from ..plan.driver import RunFailure, check_run, over_budget, plan_model
    from ..report.model_plan_report import format_plan_text, plan_json

    entry = entry_for(args.file, args.runtime)
    fe = load(entry, args.file)
    outputs = Outputs(inputs_of(args))
    outputs.claim(args.output, "planned model")  # checked before any work
    outputs.claim(args.plot, "layout plot", "--plot")
    outputs.claim(args.c_header, "C header", "--c-header")
    for flag, value in (("--c-section", args.c_section), ("--c-offsets", args.c_offsets)):
        if value and not args.c_header:
            raise InputError(flag, "shapes a C header: add --c-header FILE.h")
    if args.plot:
        from ..report.layout_plot import check_plot_path

        plot_format = check_plot_path(args.plot)
    if args.output and fe.writes and Path(args.output).suffix.lower() != fe.writes:
        raise InputError(args.output, f"a model for {fe.runtime} is written as {fe.writes}")
    if args.dim and not takes_dims(fe):
        readers = [e.name for e in REGISTRY if e.name != entry.name]
        raise InputError(args.file, f"--dim: the {entry.name} runtime reads no symbolic "
                         f"dimensions (runtimes that do: {', '.join(readers) or 'none'})")
    sizes, bounds = parse_dims(args.dim)
    extra = _runtime_options(args, entry, [(e, options_of(e)) for e in REGISTRY])
    if (args.check_run or (args.c_header and verifies_writes(fe))) and not fe.writes:
        raise InputError(args.file, f"{fe.runtime}: memplan writes no model for it, so there "
                         "is nothing to run")
    target = None
    if args.target:
        from ..targets import load_target

        target = load_target(args.target)
    from ..report.pack_progress import wanted
    from ..report.step_progress import StepProgress, step

    rewrites = None
    if args.rewrite is not None:
        from ..plan.rewrites import parse

        rewrites = parse(args.rewrite, entry.name, args.max_recompute)
    options = ReadOptions(target, sizes, bool(args.output or args.check_run
                                              or (args.c_header and verifies_writes(fe))),
                          args.time_limit or None, extra, step=step, rewrites=rewrites,
                          dim_bounds=bounds)
    cannot_run = unrunnable(fe, options)
    if args.check_run and cannot_run:
        raise InputError(args.file, f"--check-run: {cannot_run}")
    if args.c_header and verifies_writes(fe) and cannot_run:
        # The header's arena is the one a run measures: without a run there is no figure.
        raise InputError(args.file, f"--c-header: the arena a header declares is measured by "
                         f"running the planned model on {fe.runtime}, and {cannot_run}")
    run_it = args.check_run or (options.write and verifies_writes(fe) and not cannot_run)
    check = failure = None
    code = 0
    with StepProgress(wanted(args.json)):
        fe, plan = plan_model(args.file, runtime=args.runtime, options=options)
        # A rewritten model computes through other operators: it is run before it is kept.
        rewritten = any(r.kept for r in plan.rewrites)
        run_it = run_it or (options.write and not cannot_run and rewritten)
        if options.write and cannot_run and rewritten:
            # A rewritten model computes through other operators: unrun, it is not written.
            failure, code = (f"{args.file}: --rewrite: the rewritten model is written only "
                             f"once a run shows the same outputs, and {cannot_run} (plan "
                             "without -o to see the rewrites)"), 2
        elif run_it and plan.own is None:
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
    # The report names the model file only when this run writes it: a refused or withheld
    # write (a failure above, or a runtime keeping its own plan) leaves no file to name.
    written = args.output if not failures and plan.written is not None else None
    if args.json:
        document = plan_json(plan, check=check, check_error=failure, written=written,
                             asked_run=args.check_run)
        print(json.dumps(document, indent=2))
    else:
        print(format_plan_text(plan, check=check, check_error=failure, written=written,
                               show_tensors=not args.summary, asked_run=args.check_run),
              end="")
    if failures:
        outputs.abandon("; ".join(failures), quiet=True)
        if code == 2:  # the runtime cannot run the input at all: no result
            raise MemplanError(failure)
        raise BudgetError(failure or f"{args.file}: {'; '.join(failures)}")
    model = plan.written
    if model is not None:
        outputs.provide(args.output, lambda f: f.write(model),
                        None if plan.own is None else "the runtime's own model, unchanged")
    if args.c_header:
        from dataclasses import replace

        from ..report.c_header import format_c_header, plan_header, without_offsets

        build = getattr(fe, "c_header", plan_header)  # the runtime's own, where it has one
        header = replace(build(plan, args.c_header, check), section=args.c_section)
        if not args.c_offsets:
            header = without_offsets(header)
        outputs.provide_text(args.c_header, format_c_header(header))
    if args.plot:
        from ..report.layout_plot import write_model_plot

        title = Path(args.file).name
        outputs.provide(args.plot, lambda f: write_model_plot(plan, check, f, plot_format,
                                                              title))
    outputs.commit()
    return 0



def _runtime_options(args: argparse.Namespace, entry, declared) -> dict:  # noqa: ANN001
    """The values of the runtimes' own options given on the command line; one that
    belongs to another runtime is refused, naming it."""
    given = {}
    for owner, options in declared:
        for option in options:
            value = getattr(args, option.dest, None)
            if value is None:
                continue
            if owner.name != entry.name:
                raise InputError(args.file, f"{option.flag} applies to the {owner.name} "
                                 f"runtime ({owner.summary}), not {entry.name}")
            given[option.dest] = value
    return given
