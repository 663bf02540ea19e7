"""`memplan opt FILE.mlir --target T`: run a pipeline of passes and print the IR."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import BudgetError
from ..files import Outputs
from .args import (
    InputKind,
    add_limit_arguments,
    add_mlir_input_arguments,
    assumptions_of,
    inputs_of,
    load_input,
    non_negative_int,
    overrides_of,
    parse_values,
    refuse_other_kind,
)

if TYPE_CHECKING:
    from ..ir import MlirChunk

EXIT_1 = ("an allocation could not be hoisted, bounded or placed, the output would fail "
          "`memplan check`, or a check by execution differs")


# The pipeline `memplan opt` runs without -p (transforms.passes.DEFAULT_PIPELINE, which a
# test keeps equal): spelled here so that building the parser loads no MLIR bindings.
DEFAULT_PASSES = "hoist-and-bound,constant-destinations,state-in-place"
DESCRIPTION = (
    f"Rewrite MLIR with a pipeline of passes (default: {DEFAULT_PASSES}; `memplan passes` "
    "lists them). The IR goes to stdout or -o; remarks, errors and the resulting stack frames "
    "go to stderr. Whatever the pipeline, the output is then checked as `memplan check` "
    "would for the same target: what it would reject is reported as an error here too, and "
    "nothing is written. A hoisted buffer that makes a frame too big stays hoisted (it no "
    "longer grows the stack per iteration) and the frame error is reported; --place moves "
    "buffers that do not fit to a pool or the heap instead. Exit 1 if something could not be "
    "rewritten or placed, the output fails the check, or a check by execution differs.")


def _describe() -> str:
    """The description with every pass's summary: built only when help is printed."""
    from ..transforms.passes import PASSES

    summaries = "; ".join(f"{name}: {p.summary}" for name, p in PASSES.items())
    return f"{DESCRIPTION} Passes: {summaries}."


def add_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser(
        "opt", help="hoist and bound allocations, rewrite constant destinations and state "
        "appends, place buffers", description=DESCRIPTION)
    p.describe = _describe  # read by OneLineParser.format_help
    add_mlir_input_arguments(p)
    add_limit_arguments(p)
    p.add_argument("-p", "--passes", metavar="PASS[,PASS...]",
                   help=f"the passes to run, in order (default {DEFAULT_PASSES})")
    p.add_argument("-o", "--output", help="write the rewritten MLIR here (default: stdout)")
    p.add_argument("--keep-locations", action="store_true",
                   help="print the input's locations (loc(...)) on every op")
    p.add_argument("--check-run", action="store_true",
                   help="compile input and output with IREE (llvm-cpu), run every public "
                   "function on the same random buffers, and require bit-identical results")
    p.add_argument("--run-arg", action="append", default=[], metavar="[@FUNC:]ARG=VALUE",
                   help="value of an integer/index argument for --check-run; repeatable")
    p.add_argument("--check-state", metavar="FUNCTION",
                   help="compile input and output with IREE and call FUNCTION --steps times "
                   "in one runtime each: outputs and every mutable global must be equal")
    p.add_argument("--steps", type=non_negative_int, default=4,
                   help="calls for --check-state (default 4)")
    p.add_argument("--inputs", metavar="FILE.npz",
                   help="inputs for --check-state: arrays arg0, arg1, ... with a leading step "
                   "axis (other arguments get random values)")
    p.add_argument("--position", action="append", default=[], metavar="ARG[=START]",
                   help="for --check-state: argument ARG (0-based) holds the step number, "
                   "START + 0, 1, ... (a valid position for a KV-cache step); repeatable")
    p.add_argument("--parameters", action="append", default=[], metavar="[SCOPE=]FILE.irpa",
                   help="parameter archive for --check-state of a module whose globals are "
                   "#flow.parameter.named (scope default: model); repeatable")
    p.add_argument("--place", action="store_true",
                   help="append the place pass: put every allocation in the target's stack, "
                   "pools or heap and write the placement into the IR (see `memplan place`)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from .. import api
    from ..ir.print import print_chunks
    from ..report.census_report import format_frames
    from ..report.diagnostics import format_diagnostics
    from ..targets import load_target
    from ..transforms.passes import DEFAULT_PIPELINE, parse_pipeline

    refuse_other_kind(args.file, InputKind.MLIR)
    outputs = Outputs(inputs_of(args))
    outputs.claim(args.output, "rewritten MLIR")
    assumptions = assumptions_of(args)
    run_values = parse_values("--run-arg", args.run_arg, "[@FUNC:]ARG=INTEGER")
    target = load_target(args.target)
    passes = parse_pipeline(args.passes or ",".join(DEFAULT_PIPELINE))
    result = api.opt(load_input(args.file), target, passes, place=args.place,
                     path=args.file, assumptions=assumptions, overrides=overrides_of(args),
                     keep_originals=bool(args.check_state or args.check_run))
    chunks = result.chunks
    # Printing a large file costs about what parsing it did: a rewrite that fails with an
    # output file given is printed for no one, so it is printed only when something reads it.
    early = bool(not args.output or args.check_run or args.check_state)
    text = print_chunks(chunks, keep_locations=args.keep_locations) if early else None
    if args.check_state:
        check_state(args, result.originals, chunks)
    differs = check_run(result.originals, text, run_values) if args.check_run else False
    if not args.output and not differs:
        print(text, end="")  # stdout shows the rewrite even when part of it failed
    diagnostics = result.diagnostics
    failed = bool(result.errors) or differs
    summary = [format_diagnostics(diagnostics, args.file)] if diagnostics else []
    if result.frames:
        summary.append(format_frames(result.frames))
    if differs:
        summary.append(f"memplan: {args.file}: the rewritten program computes different "
                       "results")
    if summary:
        print("\n".join(summary), file=sys.stderr)
    if failed:
        outputs.abandon("the rewritten program computes different results" if differs
                        else "the rewrite reported errors (above)")
        return 1
    if text is None:
        text = print_chunks(chunks, keep_locations=args.keep_locations)
    outputs.provide_text(args.output, text)
    outputs.commit()
    return 0


def check_run(originals: Sequence[MlirChunk], rewritten: str, values: dict[str, int]) -> bool:
    """Run before and after with IREE; print one line per function; True if any differs."""
    from ..api import compare_runs

    runs = compare_runs(originals, rewritten, values)
    for reason in runs.skipped:
        print(f"execution check: skipped {reason}", file=sys.stderr)
    for c in runs.comparisons:
        verdict = "identical" if c.identical else "DIFFERENT"
        buffers = f"{len(c.inputs)} random buffer{'' if len(c.inputs) == 1 else 's'}"
        print(f"execution check: @{c.function}: {verdict} results before and after "
              f"(IREE llvm-cpu, {buffers})", file=sys.stderr)
    return runs.differs


def check_state(args: argparse.Namespace, originals: Sequence[MlirChunk],
                chunks: Sequence[MlirChunk]) -> None:
    """Before and after called --steps times: same outputs and globals, else exit 1."""
    from ..api import compare_states

    for result in compare_states(originals, chunks, args.check_state, args.steps,
                                 path=args.file, inputs=args.inputs, positions=args.position,
                                 parameters=args.parameters):
        globals_ = ", ".join(f"@{g} max diff {d:g}" for g, d in result.max_global_diff.items())
        print(f"memplan: @{args.check_state}: {args.steps} steps, outputs max diff "
              f"{result.max_output_diff:g}" + (f", {globals_}" if globals_ else ""),
              file=sys.stderr)
        if not result.equal:
            raise BudgetError(f"{args.file}: before and after differ: {result.mismatches[0]}")
