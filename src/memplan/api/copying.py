"""`copies`: transient and copied bytes per function, before and after the tensor rewrites,
beside what IREE's own stream level allocates and copies."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..analysis.copies import estimate_copies
from ..analysis.stream import StreamFunction, is_stream_level
from ..analysis.stream import stream_listing as _stream_listing
from ..analysis.stream_counts import stream_counts
from ..ir import MlirChunk, clone_chunks, parse_mlir
from ..ir.walk import FunctionOps
from ..report.copies_report import CopyRow, Stage
from ..runtimes.iree.compile import CompileError, compile_to_stream
from ..runtimes.iree.state_compare import QUIET_FLAGS
from ..transforms.passes import TENSOR_PIPELINE, PassContext, parse_pipeline, run_pipeline


def stream_listing(chunks: Sequence[MlirChunk], at: Mapping[str, int] | None = None
                   ) -> list[StreamFunction] | None:
    """A stream-level file's allocas and copies as they are; None for any other file."""
    if not any(is_stream_level(chunk) for chunk in chunks):
        return None
    return [f for chunk in chunks for f in _stream_listing(chunk, at)]


def copies(chunks: Sequence[MlirChunk], at: Mapping[str, int] | None = None,
           iree: bool = True, walked: Mapping[int, Sequence[FunctionOps]] | None = None
           ) -> list[CopyRow]:
    """Rows per function: the input as parsed, then a copy rewritten by the tensor passes
    (`walked`: each chunk's `function_ops` by chunk index, when the caller has them;
    `iree`: also compile each stage to IREE's stream level and count its figures)."""
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


def _add_iree(rows: list[CopyRow], chunk: MlirChunk, at: Mapping[str, int] | None) -> None:
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
