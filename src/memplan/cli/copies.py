"""`memplan copies FILE.mlir`: transient and copied bytes before and after the tensor
rewrites, beside IREE's own stream figures."""

from __future__ import annotations

import argparse
import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .args import load_input, parse_values

if TYPE_CHECKING:  # the MLIR bindings load only when a command reads MLIR
    from ..ir import MlirChunk
    from ..ir.walk import FunctionOps

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
    from ..analysis.stream import is_stream_level, stream_listing
    from ..report.copies_report import copy_json, format_copy_table
    from ..report.stream_report import format_stream_listing, stream_json

    at = parse_values("--at", args.at, "NAME=INTEGER")
    chunks = load_input(args.file)
    if any(is_stream_level(chunk) for chunk in chunks):
        listing = [f for chunk in chunks for f in stream_listing(chunk, at)]
        if args.json:
            print(json.dumps(stream_json(listing), indent=2))
        else:
            print(format_stream_listing(listing), end="")
        return 0
    rows = copy_rows(chunks, at, iree=not args.no_iree)
    if args.json:
        print(json.dumps(copy_json(rows), indent=2))
    else:
        print(format_copy_table(rows, iree=not args.no_iree), end="")
    return 0


def copy_rows(chunks: Sequence[MlirChunk], at: Mapping[str, int] | None = None,
              iree: bool = True, walked: Mapping[int, Sequence[FunctionOps]] | None = None
              ):  # noqa: ANN201 - list[CopyRow], imported lazily
    """Rows per function: the input as parsed, then a copy rewritten by the tensor passes
    (`walked`: each chunk's `function_ops` by chunk index, when the caller has them)."""
    from ..analysis.copies import estimate_copies
    from ..ir import clone_chunks
    from ..report.copies_report import CopyRow, Stage
    from ..transforms.passes import TENSOR_PIPELINE, PassContext, parse_pipeline, run_pipeline

    rows: list[CopyRow] = []
    for chunk in chunks:
        before = estimate_copies(chunk.module, chunk.path, at,
                                 walked.get(chunk.index) if walked else None)
        if any(e.items for e in before):
            (rewritten,) = clone_chunks([chunk])
            report = run_pipeline([rewritten], parse_pipeline(",".join(TENSOR_PIPELINE)),
                                  PassContext())
            # A pass changes the IR only where it reports a rewrite: else the copy is the input.
            after = estimate_copies(rewritten.module, rewritten.path, at) \
                if report.changed else before
        else:  # the rewrites only remove copies: nothing to remove, nothing to rewrite
            rewritten, after = chunk, before
        for stage, stage_chunk, estimates in ((Stage.BEFORE, chunk, before),
                                              (Stage.AFTER, rewritten, after)):
            stage_rows = [CopyRow(e.function, stage, e.transient_bytes, e.copied_bytes, e.bound)
                          for e in estimates]
            if iree:
                _add_iree(stage_rows, stage_chunk, at)
            rows += stage_rows
    order = {r.function: i for i, r in enumerate(rows)}
    return sorted(rows, key=lambda r: (order[r.function], r.stage is not Stage.BEFORE))


def _add_iree(rows: list, chunk: MlirChunk, at: Mapping[str, int] | None) -> None:
    from ..analysis.copies import stream_counts
    from ..ir import parse_mlir
    from ..run.iree_exec import CompileError, compile_to_stream
    from ..run.state_compare import QUIET_FLAGS

    try:
        stream = compile_to_stream(str(chunk.module), chunk.path, QUIET_FLAGS)
    except CompileError as err:
        for row in rows:
            row.iree_error = str(err)
        return
    module = parse_mlir(stream, "<stream>", context=chunk.context)
    counts = {c.function: c for c in stream_counts(module, at)}
    for row in rows:
        c = counts.get(row.function)
        if c is not None:
            row.iree_transient, row.iree_copied = c.transient_bytes, c.copied_bytes
            row.iree_constant_copied = c.constant_copied_bytes
            row.iree_memcpy_dispatches = c.memcpy_dispatches
