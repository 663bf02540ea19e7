"""Copy accounting before and after the tensor rewrites, beside IREE's own figures.

One row per function and stage: memplan's estimate of transient and copied bytes
(analysis/copies.py) and, when asked, what `iree-compile --compile-to=stream`
allocates and copies for the same module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from ..analysis.copies import estimate_copies, stream_counts
from ..ir import MlirChunk, load_mlir, parse_mlir
from ..run.iree_exec import CompileError, compile_to_stream
from ..run.state_compare import QUIET_FLAGS
from ..transforms import rewrite_tensor_level
from .table import format_table


@dataclass
class CopyRow:
    function: str
    stage: str  # "before" | "after"
    transient: int
    copied: int
    bound: bool  # a dynamic size was taken at its shape's maximum
    iree_transient: int | None = None
    iree_copied: int | None = None
    iree_constant_copied: int | None = None
    iree_memcpy_dispatches: int | None = None
    iree_error: str | None = None


def copy_rows(path: str, at: Mapping[str, int] | None = None, iree: bool = True) -> list[CopyRow]:
    rows: list[CopyRow] = []
    for before, after in zip(load_mlir(path), load_mlir(path), strict=True):
        rewrite_tensor_level(after)
        for stage, chunk in (("before", before), ("after", after)):
            stage_rows = [CopyRow(e.function, stage, e.transient_bytes, e.copied_bytes, e.bound)
                          for e in estimate_copies(chunk.module, path, at)]
            if iree:
                _add_iree(stage_rows, chunk, at)
            rows += stage_rows
    order = {r.function: i for i, r in enumerate(rows)}
    return sorted(rows, key=lambda r: (order[r.function], r.stage != "before"))


def _add_iree(rows: list[CopyRow], chunk: MlirChunk, at: Mapping[str, int] | None) -> None:
    try:
        stream = compile_to_stream(str(chunk.module), chunk.path, QUIET_FLAGS)
    except CompileError as err:
        for row in rows:
            row.iree_error = str(err)
        return
    counts = {c.function: c for c in stream_counts(parse_mlir(stream, "<stream>"), at)}
    for row in rows:
        c = counts.get(row.function)
        if c is not None:
            row.iree_transient, row.iree_copied = c.transient_bytes, c.copied_bytes
            row.iree_constant_copied = c.constant_copied_bytes
            row.iree_memcpy_dispatches = c.memcpy_dispatches


def format_copy_table(rows: list[CopyRow], iree: bool = True) -> str:
    headers = ["function", "stage", "transient B", "copied B"]
    if iree:
        headers += ["IREE transient B", "IREE copied B", "IREE copied from const B"]
    body = []
    for r in rows:
        mark = "*" if r.bound else ""
        line: list[object] = [r.function, r.stage, f"{r.transient:,}{mark}", f"{r.copied:,}{mark}"]
        if iree:
            line += [_n(r.iree_transient, r.iree_error), _n(r.iree_copied, r.iree_error),
                     _n(r.iree_constant_copied, r.iree_error)]
        body.append(line)
    text = format_table(headers, body, right_align=[False, False] + [True] * (len(headers) - 2))
    if any(r.bound for r in rows):
        text += "\n* a dynamic size was taken at the maximum its shape allows (use --at)"
    errors = sorted({r.iree_error for r in rows if r.iree_error})
    return text + "".join(f"\n{e}" for e in errors) + "\n"


def _n(value: int | None, error: str | None) -> str:
    if error:
        return "fails"
    return "?" if value is None else f"{value:,}"


def copy_json(rows: list[CopyRow]) -> list[dict[str, object]]:
    return [asdict(r) for r in rows]
