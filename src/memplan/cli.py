"""The `memplan` command: thin wiring from arguments to layers and back.

Every failure a user can cause ends here as one line on stderr and an exit
code (2 bad input, 1 violated budget); tracebacks are for memplan's own bugs.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from . import __version__
from .errors import InputError, MemplanError
from .files import refuse_overwriting_input, write_text

if TYPE_CHECKING:  # the CLI imports layers lazily; these names are for annotations only
    from .analysis.access import Access
    from .ir import MlirChunk
    from .report.copies_report import CopyRow


def non_negative_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{value} is negative")
    return value


# --- memplan pack -----------------------------------------------------------

def add_pack_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("pack", help="pack buffers with lifetimes at static offsets",
                            description="Pack the buffers of a minimalloc-style CSV "
                            "(id,lower,upper,size[,alignment][,offset]) into one memory.")
    p.add_argument("file", help="CSV file; a name like A.1048576.csv gives the capacity")
    p.add_argument("--capacity", type=non_negative_int, help="bytes available (overrides the "
                   "file name)")
    p.add_argument("-o", "--output", help="write the plan as CSV with an offset column")
    p.add_argument("--plot", help="draw the layout (.svg, .png or .pdf)")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--summary", action="store_true", help="omit the per-buffer table")
    p.add_argument("--exact", action="store_true", help="search until the buffers fit the "
                   "capacity, or prove they cannot")
    p.add_argument("--minimize", action="store_true", help="find the lowest peak and prove "
                   "it optimal (implies --exact)")
    p.add_argument("--time-limit", type=non_negative_seconds, metavar="S",
                   help="stop the exact search after S seconds with the best plan so far")
    p.set_defaults(run=run_pack)


def non_negative_seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not value >= 0 or value == float("inf"):  # also refuses nan
        raise argparse.ArgumentTypeError(f"{text} is not a finite non-negative number")
    return value


def run_pack(args: argparse.Namespace) -> int:
    from .pack import format_solution, plan, read_problem
    from .report.pack_report import format_pack_text, pack_json

    for output in (args.output, args.plot):
        if output:
            refuse_overwriting_input(output, [args.file])
    exact = args.exact or args.minimize
    if args.time_limit is not None and not exact:
        raise InputError(args.file, "--time-limit applies to the exact solver: add --exact "
                         "or --minimize")
    problem = read_problem(args.file, args.capacity)
    if exact:
        from .pack.planner import plan_exact

        result = plan_exact(problem, minimize=args.minimize, time_limit=args.time_limit)
    else:
        result = plan(problem)
    if args.plot:
        from .report.layout_plot import save_layout_plot

        save_layout_plot(result, args.plot, title=args.file)
    if args.output:
        write_text(args.output, format_solution(problem, result.solution))
    if args.json:
        print(json.dumps(pack_json(result), indent=2))
    else:
        print(format_pack_text(result, show_buffers=not args.summary), end="")
    return 1 if result.fits is False else 0


# --- memplan check / opt --------------------------------------------------------

def add_mlir_input_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", help="MLIR file (`// -----` splits it into modules)")
    p.add_argument("--target", required=True, help="a preset name (see `memplan targets`) or a "
                   "target .toml file")
    p.add_argument("--assume", action="append", default=[], metavar="[@FUNC:]ARG<=N",
                   help="bound a function argument, named by SSA name (n or %%n) or 0-based "
                   "position; also ARG>=N, ARG==N; repeatable")


def add_check_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("check", help="census of allocations; stack, frame, workgroup and "
                            "constant-write diagnostics",
                            description="List every allocation of an MLIR file with its proven "
                            "size and report stack allocations in loops, unbounded ones, and "
                            "frames over the target's limits (exit 1 on any error).")
    add_mlir_input_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(run=run_check)


def run_check(args: argparse.Namespace) -> int:
    from .analysis.census import take_census
    from .analysis.ranges import parse_assumption
    from .check import CheckContext, run_checks
    from .check.stack import stack_frames
    from .ir import load_mlir
    from .place.workgroup import format_kernel_budgets, kernel_budgets, kernel_json
    from .report.census_report import check_json, format_census, format_frames
    from .report.diagnostics import count_errors, format_diagnostics
    from .targets import load_target

    assumptions = [parse_assumption(text) for text in args.assume]
    target = load_target(args.target)
    chunks = load_mlir(args.file)
    census = [a for chunk in chunks for a in take_census(chunk, assumptions)]
    diags = run_checks(CheckContext(census, target, args.file, chunks))
    frames = stack_frames(census, target)
    kernels = kernel_budgets(census, target)
    errors = count_errors(diags)
    accesses, copies = tensor_facts(args.file, chunks)
    if args.json:
        data = check_json(args.file, target.name, census, frames, diags)
        data["workgroup"] = [kernel_json(k) for k in kernels]
        print(json.dumps({**data, **tensor_json(accesses, copies)}, indent=2))
        return 1 if errors else 0
    parts = [format_census(census) if census else "no allocations"]
    if frames:
        parts.append(format_frames(frames, target.stack.max_frame if target.stack else None))
    parts += tensor_text(accesses, copies)
    if kernels:
        parts.append(format_kernel_budgets(kernels))
    if diags:
        parts.append(format_diagnostics(diags, args.file))
    warnings = sum(1 for d in diags if d.severity == "warning")
    parts.append(f"{errors} error(s), {warnings} warning(s) for target '{target.name}'")
    print("\n\n".join(parts))
    return 1 if errors else 0


def add_opt_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("opt", help="hoist and bound allocations, rewrite constant "
                            "destinations and state appends",
                            description="Rewrite MLIR: allocations leave their loops, stack "
                            "allocations become static at the function entry (views of the "
                            "dynamic size in the loop). Remarks and errors go to stderr; exit 1 "
                            "if an allocation could not be hoisted or bounded.")
    add_mlir_input_arguments(p)
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
    p.add_argument("--place", action="store_true",
                   help="after hoisting, place every allocation in the target's stack, pools or "
                   "heap and write the placement into the IR (see `memplan place`)")
    p.set_defaults(run=run_opt)


def run_opt(args: argparse.Namespace) -> int:
    from .analysis.census import take_census
    from .analysis.ranges import parse_assumption
    from .check.stack import stack_frames
    from .ir import load_mlir
    from .ir.print import print_chunks
    from .report.census_report import format_frames
    from .report.diagnostics import count_errors, format_diagnostics
    from .report.placement_report import format_unplaced
    from .targets import load_target
    from .transforms import rewrite_tensor_level
    from .transforms.hoist import hoist_and_bound
    from .transforms.placement import place_chunks

    if args.output:
        refuse_overwriting_input(args.output, [args.file])
    assumptions = [parse_assumption(text) for text in args.assume]
    target = load_target(args.target)
    chunks = load_mlir(args.file)
    diags = [d for chunk in chunks for d in hoist_and_bound(chunk, assumptions).diagnostics]
    diags += [d for chunk in chunks for d in rewrite_tensor_level(chunk)]
    placements = place_chunks(chunks, target, assumptions) if args.place else []
    text = print_chunks(chunks, keep_locations=args.keep_locations)
    if args.check_state:
        check_state(args, chunks)
    if args.output:
        write_text(args.output, text)
    else:
        print(text, end="")
    census = [a for chunk in chunks for a in take_census(chunk, assumptions)]
    frames = stack_frames(census, target)
    summary = [format_diagnostics(diags, args.file)] if diags else []
    if frames:
        summary.append(format_frames(frames, target.stack.max_frame if target.stack else None))
    unplaced = format_unplaced(placements, args.file)
    summary += unplaced
    if summary:
        print("\n".join(summary), file=sys.stderr)
    differs = check_run(args, text) if args.check_run else False
    return 1 if count_errors(diags) or differs or unplaced else 0


def check_run(args: argparse.Namespace, rewritten: str) -> bool:
    """Run before and after with IREE; print one line per function; True if any differs."""
    from .run.memref_harness import check_equivalent, runnable_calls

    values = {}
    for item in args.run_arg:
        key, _, value = item.partition("=")
        key = key.strip().replace("%", "")  # `n`, `%n`, `@f:%n` and `@f:n` name the same
        try:
            values[key] = int(value)
        except ValueError:
            raise InputError("--run-arg", f"cannot read '{item}': expected ARG=INTEGER") from None
    calls, skipped = runnable_calls(args.file, values)
    for reason in skipped:
        print(f"execution check: skipped {reason}", file=sys.stderr)
    if not calls:
        return False
    comparisons = check_equivalent(Path(args.file).read_text(encoding="utf-8"), rewritten, calls)
    for c in comparisons:
        verdict = "identical" if c.identical else "DIFFERENT"
        buffers = f"{len(c.inputs)} random buffer{'' if len(c.inputs) == 1 else 's'}"
        print(f"execution check: @{c.function}: {verdict} results before and after "
              f"(IREE llvm-cpu, {buffers})", file=sys.stderr)
    return not all(c.identical for c in comparisons)


# --- tensor level: facts for `check`, state check for `opt`, `memplan copies` ----------

def tensor_facts(path: str, chunks: Sequence[MlirChunk]) -> tuple[list[Access], list[CopyRow]]:
    """Access modes of the input and copy accounting before/after the tensor rewrites."""
    from .analysis.access import access_modes
    from .report.copies_report import copy_rows

    accesses = [a for chunk in chunks for a in access_modes(chunk)]
    return accesses, copy_rows(path, iree=False)


def tensor_text(accesses: list[Access], copies: list[CopyRow]) -> list[str]:
    from .report.access_report import format_access
    from .report.copies_report import format_copy_table

    # Memref-level programs have no tensor facts worth a table (their checks say it all).
    tensor_level = any(a.type.startswith("tensor<") for a in accesses)
    parts = [format_access(accesses)] if tensor_level else []
    if any(r.transient or r.copied for r in copies):
        parts.append("copies per call, before and after `memplan opt`:\n"
                     + format_copy_table(copies, iree=False).rstrip())
    return parts


def tensor_json(accesses: list[Access], copies: list[CopyRow]) -> dict[str, object]:
    from .report.access_report import access_json
    from .report.copies_report import copy_json

    return {"access": access_json(accesses), "copies": copy_json(copies)}


def check_state(args: argparse.Namespace, chunks: Sequence[MlirChunk]) -> None:
    """Before and after called --steps times: same outputs and globals, else exit 1."""
    from .errors import BudgetError
    from .ir import load_mlir
    from .run.state_compare import compare_steps

    for before, after in zip(load_mlir(args.file), chunks, strict=True):
        result = compare_steps(before.module, after.module, args.check_state, args.steps,
                               path=args.file)
        globals_ = ", ".join(f"@{g} max diff {d:g}" for g, d in result.max_global_diff.items())
        print(f"memplan: @{args.check_state}: {args.steps} steps, outputs max diff "
              f"{result.max_output_diff:g}" + (f", {globals_}" if globals_ else ""),
              file=sys.stderr)
        if not result.equal:
            raise BudgetError(f"{args.file}: before and after differ: {result.mismatches[0]}")


def bindings(items: Sequence[str]) -> dict[str, int]:
    """`--at NAME=VALUE` items; `@seq_step` and `%arg0` name the same as without the sigil."""
    from .errors import InputError

    values = {}
    for item in items:
        name, sep, value = item.partition("=")
        try:
            if not sep or not name.strip("@% "):
                raise ValueError
            values[name.strip().lstrip("@%")] = int(value)
        except ValueError:
            raise InputError("--at", f"cannot read '{item}': expected NAME=INTEGER") from None
    return values


def add_copies_command(commands: argparse._SubParsersAction) -> None:
    c = commands.add_parser("copies", help="transient and copied bytes before/after the "
                            "tensor rewrites, beside IREE's stream figures")
    c.add_argument("file", help="MLIR file")
    c.add_argument("--at", action="append", default=[], metavar="NAME=VALUE",
                   help="value of an index global (seq_step=511) or argument (arg0=3) for "
                   "dynamic sizes; default: the maximum the shape allows")
    c.add_argument("--no-iree", action="store_true", help="skip iree-compile")
    c.add_argument("--json", action="store_true", help="print JSON instead of text")
    c.set_defaults(run=run_copies)


def run_copies(args: argparse.Namespace) -> int:
    from .report.copies_report import copy_json, copy_rows, format_copy_table

    rows = copy_rows(args.file, bindings(args.at), iree=not args.no_iree)
    if args.json:
        print(json.dumps(copy_json(rows), indent=2))
    else:
        print(format_copy_table(rows, iree=not args.no_iree), end="")
    return 0


# --- memplan targets ---------------------------------------------------------

def add_targets_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("targets", help="list target descriptions or show one",
                            description="List the shipped target descriptions, or show one "
                            "(a preset name or a .toml file) in detail.")
    p.add_argument("target", nargs="?", help="preset name or path to a target .toml file")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(run=run_targets)


def run_targets(args: argparse.Namespace) -> int:
    from .report.target_report import format_target, format_target_list, target_json
    from .targets import list_presets, load_target

    targets = [load_target(args.target)] if args.target else [
        load_target(name) for name in list_presets()]
    if args.json:
        print(json.dumps([target_json(t) for t in targets], indent=2))
    elif args.target:
        print(format_target(targets[0]), end="")
    else:
        print(format_target_list(targets), end="")
    return 0


# --- memplan place -----------------------------------------------------------

def add_place_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("place", help="decide which memory space holds each allocation",
                            description="Place every allocation of an MLIR file in the "
                            "target's stack, pools or heap, packing each space with lifetimes.")
    p.add_argument("file", help="MLIR file (// ----- separates modules)")
    p.add_argument("--target", required=True, help="preset name or path to a target .toml file")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--apply", action="store_true",
                   help="write the IR with the placement applied to -o: one frame per "
                   "function, one global per pool, each buffer a view at its offset")
    p.add_argument("-o", "--output", help="where --apply writes the rewritten MLIR")
    p.set_defaults(run=run_place)


def run_place(args: argparse.Namespace) -> int:
    from .analysis.census import take_census
    from .ir import load_mlir
    from .place.module import place_chunk
    from .report.placement_report import format_placement_text, format_unplaced, placement_json
    from .targets import load_target

    if args.apply != bool(args.output):
        raise InputError(args.file, "--apply and -o OUT.mlir go together")
    if args.output:
        refuse_overwriting_input(args.output, [args.file])
    target = load_target(args.target)
    chunks = load_mlir(args.file)
    placements = [place_chunk(chunk, take_census(chunk), target) for chunk in chunks]
    if args.json:
        print(json.dumps(placement_json(placements, args.file), indent=2))
    else:
        print(format_placement_text(placements, args.file), end="")
    errors = format_unplaced(placements, args.file)
    for line in errors:
        print(line, file=sys.stderr)
    if errors:
        return 1  # nothing is written when a buffer has nowhere to go
    if args.apply:
        from .ir.print import print_chunks
        from .transforms.placement import apply_placement

        for chunk, placement in zip(chunks, placements, strict=True):
            apply_placement(chunk.module, placement, chunk.path)
        write_text(args.output, print_chunks(chunks))  # verified before a byte is written
    return 0


# --- wiring -------------------------------------------------------------------

class OneLineParser(argparse.ArgumentParser):
    """Bad arguments are bad input like any other: one line, exit 2."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="memplan",
        description="Bounded, placed and minimal memory allocation for ML compilers.")
    parser.add_argument("--version", action="version", version=f"memplan {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    add_pack_command(commands)
    add_check_command(commands)
    add_opt_command(commands)
    add_copies_command(commands)
    add_targets_command(commands)
    add_place_command(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except MemplanError as err:
        print(f"memplan: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print("memplan: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (`memplan ... | head`): not an error worth a traceback.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
