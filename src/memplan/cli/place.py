"""`memplan place FILE.mlir --target T`: every allocation in a memory space of the target."""

from __future__ import annotations

import argparse
import json
import sys

from ..errors import InputError
from ..files import Outputs
from .args import (
    InputKind,
    add_mlir_input_arguments,
    assumptions_of,
    inputs_of,
    refuse_other_kind,
)

EXIT_1 = "a buffer has nowhere to go"


def add_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("place", help="decide which memory space holds each allocation",
                            description="Place every allocation of an MLIR file in the "
                            "target's stack, pools or heap, packing each space with lifetimes.")
    add_mlir_input_arguments(p)
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.add_argument("--apply", action="store_true",
                   help="write the IR with the placement applied to -o: one frame per "
                   "function, one global per pool, each buffer a view at its offset")
    p.add_argument("-o", "--output", help="where --apply writes the rewritten MLIR")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..api import place
    from ..ir import load_mlir
    from ..report.diagnostics import format_diagnostic
    from ..report.placement_report import format_placement_text, placement_json
    from ..targets import load_target

    refuse_other_kind(args.file, InputKind.MLIR)
    outputs = Outputs(inputs_of(args))
    outputs.claim(args.output, "placed MLIR")
    if args.apply != (args.output is not None):
        raise InputError(args.file, "--apply and -o OUT.mlir go together")
    assumptions = assumptions_of(args)
    target = load_target(args.target)
    chunks = load_mlir(args.file)
    result = place(chunks, target, assumptions=assumptions)
    if args.json:
        print(json.dumps(placement_json(result.placements, args.file), indent=2))
    else:
        print(format_placement_text(result.placements, args.file), end="")
    for diag in result.unplaced:
        print(format_diagnostic(diag, args.file), file=sys.stderr)
    if result.unplaced:
        outputs.abandon(EXIT_1)
        return 1
    if args.apply:
        from ..ir.print import print_chunks

        result.apply(chunks)
        outputs.provide_text(args.output, print_chunks(chunks))  # verified first
    outputs.commit()
    return 0
