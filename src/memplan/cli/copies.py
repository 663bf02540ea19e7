"""`memplan copies FILE.mlir`: transient and copied bytes before and after the tensor
rewrites, beside IREE's own stream figures."""

from __future__ import annotations

import argparse
import json

from .args import InputKind, load_input, parse_values, refuse_other_kind

EXIT_1 = None  # a report: no budget to break


def add_command(commands: argparse._SubParsersAction) -> None:
    c = commands.add_parser("copies", help="transient and copied bytes before/after the "
                            "tensor rewrites, beside IREE's stream figures",
                            description="Estimate, per function, the transient buffers and "
                            "copied bytes the tensor program implies before and after "
                            "`memplan opt`'s tensor rewrites, and (unless --no-iree) what "
                            "`iree-compile --compile-to=stream` allocates and copies. A file "
                            "already at stream level (`--compile-to=stream` output, or the "
                            "input of IREE's stream passes) is read as it is: every "
                            "stream.async/resource alloca with its size and lifetime, every "
                            "copy with its bytes.")
    c.add_argument("file", help="MLIR file")
    c.add_argument("--at", action="append", default=[], metavar="NAME=VALUE",
                   help="value of an index global (seq_step=511), an argument (arg0=3), the "
                   "first element of a tensor argument (an exported position: arg1=511) or a "
                   "tensor argument's dimension (arg0.dim1=37) for dynamic sizes; default: the "
                   "maximum the shape allows, or unknown (?)")
    c.add_argument("--no-iree", action="store_true", help="skip iree-compile")
    c.add_argument("--json", action="store_true", help="print JSON instead of text")
    c.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..api import copies, stream_listing
    from ..report.copies_report import copy_json, format_copy_table
    from ..report.stream_report import format_stream_listing, stream_json

    refuse_other_kind(args.file, InputKind.MLIR)
    at = parse_values("--at", args.at, "NAME=INTEGER")
    chunks = load_input(args.file)
    listing = stream_listing(chunks, at)
    if listing is not None:
        if args.json:
            print(json.dumps(stream_json(listing), indent=2))
        else:
            print(format_stream_listing(listing), end="")
        return 0
    rows = copies(chunks, at, iree=not args.no_iree)
    if args.json:
        print(json.dumps(copy_json(rows), indent=2))
    else:
        print(format_copy_table(rows, iree=not args.no_iree), end="")
    return 0
