"""`memplan check FILE.mlir --target T`: census, budgets and diagnostics."""

from __future__ import annotations

import argparse
import json

from .args import add_mlir_input_arguments, assumptions_of, load_input

EXIT_1 = "any error diagnostic"


def add_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("check", help="census of allocations; stack, frame, workgroup and "
                            "constant-write diagnostics",
                            description="List every allocation of an MLIR file with its proven "
                            "size and report stack allocations in loops, unbounded ones, and "
                            "frames over the target's limits (exit 1 on any error).")
    add_mlir_input_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..analysis.access import access_modes
    from ..analysis.census import take_census
    from ..analysis.ranges import check_assumptions
    from ..check import CheckContext, run_checks
    from ..diagnostic import count_errors
    from ..report.access_report import access_json, format_access
    from ..report.census_report import (
        check_json,
        format_census,
        format_frames,
        format_kernel_budgets,
        kernel_json,
    )
    from ..report.copies_report import copy_json, format_copy_table
    from ..report.diagnostics import format_diagnostics
    from ..targets import load_target
    from .copies import copy_rows

    assumptions = assumptions_of(args)
    target = load_target(args.target)
    chunks = load_input(args.file)
    check_assumptions(assumptions, chunks)
    census = [a for chunk in chunks for a in take_census(chunk, assumptions)]
    context = CheckContext(census, target, args.file, chunks)
    diags = run_checks(context)
    errors = count_errors(diags)
    accesses = [a for chunk in chunks for a in access_modes(chunk)]
    copies = copy_rows(chunks, iree=False)
    if args.json:
        data = check_json(args.file, target.name, census, context.frames, diags)
        data["workgroup"] = [kernel_json(k) for k in context.kernels]
        data["access"] = access_json(accesses)
        data["copies"] = copy_json(copies)
        print(json.dumps(data, indent=2))
        return 1 if errors else 0
    parts = [format_census(census) if census else "no allocations"]
    if context.frames:
        parts.append(format_frames(context.frames,
                                   target.stack.max_frame if target.stack else None))
    # Memref-level programs have no tensor facts worth a table (their checks say it all).
    if any(a.type.startswith("tensor<") for a in accesses):
        parts.append(format_access(accesses))
    if any(r.transient != 0 or r.copied != 0 for r in copies):
        parts.append("copies per call, before and after `memplan opt`:\n"
                     + format_copy_table(copies, iree=False).rstrip())
    if context.kernels:
        parts.append(format_kernel_budgets(context.kernels))
    if diags:
        parts.append(format_diagnostics(diags, args.file))
    warnings = sum(1 for d in diags if d.severity == "warning")
    parts.append(f"{errors} error(s), {warnings} warning(s) for target '{target.name}'")
    print("\n\n".join(parts))
    return 1 if errors else 0
