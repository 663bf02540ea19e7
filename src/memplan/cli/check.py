"""`memplan check FILE.mlir --target T`: census, budgets and diagnostics."""

from __future__ import annotations

import argparse
import json
import sys

from .args import (
    InputKind,
    add_limit_arguments,
    add_mlir_input_arguments,
    assumptions_of,
    load_input,
    overrides_of,
    refuse_other_kind,
)

EXIT_1 = "any error diagnostic"


def add_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("check", help="census of allocations; stack, frame, workgroup and "
                            "constant-write diagnostics",
                            description="List every allocation of an MLIR file with its proven "
                            "size and report stack allocations in loops, unbounded ones, and "
                            "frames over the target's limits (exit 1 on any error).")
    add_mlir_input_arguments(p)
    add_limit_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--dump", action="store_true",
                   help="FILE is a pass-pipeline dump (--mlir-print-ir-after=... or -after-all): "
                   "check each snapshot on its own")
    p.add_argument("--pass", dest="pass_name", metavar="PASS",
                   help="with --dump, only the snapshots after PASS (its argument, e.g. "
                   "iree-codegen-hoist-statically-bound-allocations, or its class name)")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..errors import InputError
    from ..extras import Extra, require

    refuse_other_kind(args.file, InputKind.MLIR, InputKind.TVMSCRIPT)
    if args.file.endswith(".py"):  # a TVMScript module: TIR stack policy (cli/check_tir.py)
        from .check_tir import run as run_tir

        return run_tir(args)
    require(Extra.MLIR, "memplan check")
    if args.pass_name and not args.dump:
        raise InputError(args.file, "--pass chooses snapshots of a dump: add --dump")
    if not args.dump:
        text, diagnostics, errors = check_chunks(args, load_input(args.file))
        print(text)
        _print_diagnostics(diagnostics)
        return 1 if errors else 0
    from ..ir.dumps import load_dump

    results = []
    for item in load_dump(args.file, args.pass_name):
        if item.chunk is None:
            skipped = json.dumps({"snapshot": item.snapshot.title, "skipped": item.skipped}) \
                if args.json else f"skipped: {item.skipped}"
            results.append((item.snapshot, skipped, "", 0))
            continue
        text, diagnostics, errors = check_chunks(args, [item.chunk], item.snapshot.title)
        results.append((item.snapshot, text, diagnostics, errors))
    if args.json:
        print("[" + ",\n".join(text for _, text, _, _ in results) + "]")
    else:
        print("\n\n".join(f"== snapshot {s.index} ({s.title}, line {s.first_line}) ==\n{text}"
                           for s, text, _, _ in results))
        # A dump's lines are the dump file's, so each diagnostic already says where it is.
        _print_diagnostics("\n".join(d for _, _, d, _ in results if d))
    return 1 if any(errors for _, _, _, errors in results) else 0


def _print_diagnostics(text: str) -> None:
    """After the tables: stdout first, so a terminal shows both in the order they were made."""
    if text:
        sys.stdout.flush()
        print(text, file=sys.stderr)


def check_chunks(args: argparse.Namespace, chunks: list,
                 snapshot: str = "") -> tuple[str, str, int]:
    """The report of checking `chunks` (text or JSON, for stdout), its diagnostics as MLIR's
    tools print them (for stderr; in the JSON with --json), and its number of errors."""
    from ..api import check
    from ..check.workgroup import (
        format_workgroup_local,
        workgroup_local_json,
        workgroup_local_layouts,
    )
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
    from ..report.json_text import dumps_indented
    from ..targets import load_target

    assumptions = assumptions_of(args)
    target = load_target(args.target)
    result = check(chunks, target, path=args.file, assumptions=assumptions,
                   overrides=overrides_of(args))
    census, diags, accesses, copies = result.census, result.diagnostics, result.accesses, \
        result.copies
    local = workgroup_local_layouts(census)
    if args.json:
        data = check_json(args.file, target.name, census, result.frames, diags)
        if snapshot:
            data["snapshot"] = snapshot
        data["workgroup"] = [kernel_json(k) for k in result.kernels]
        data["workgroup_local"] = [workgroup_local_json(layout) for layout in local]
        data["access"] = access_json(accesses)
        data["copies"] = copy_json(copies)
        return dumps_indented(data), "", result.errors
    parts = [format_census(census) if census else "no allocations"]
    if result.frames:
        parts.append(format_frames(result.frames))
    # Memref-level programs have no tensor facts worth a table (their checks say it all).
    if any(a.type.startswith("tensor<") for a in accesses):
        parts.append(format_access(accesses))
    if any(r.transient != 0 or r.copied != 0 for r in copies):
        parts.append("copies per call, before and after `memplan opt`:\n"
                     + format_copy_table(copies, iree=False).rstrip())
    if result.kernels:
        parts.append(format_kernel_budgets(result.kernels))
    if local:
        parts.append(format_workgroup_local(local))
    parts.append(f"{result.errors} error(s), {result.warnings} warning(s) for target "
                 f"'{target.name}'")
    return "\n\n".join(parts), format_diagnostics(diags, args.file), result.errors
