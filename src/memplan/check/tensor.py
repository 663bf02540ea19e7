"""Tensor checks: constants written as destinations, state appends that copy the context.

- `constant-written` (warning): a linalg op writes into a constant (its `outs`);
  IREE copies it every call, or fails to compile a small non-splat one.
- `state-append-copies` (warning): an `extract_slice` + `concat` + write-back
  append to a global state (or its flow form, analysis/flow_append.py); IREE
  materialises the whole context and copies it every step. `memplan opt` rewrites
  it to an in-place insert of the new data.
- `state-in-place-refused` (warning): an append that `memplan opt` leaves alone,
  why, and what it costs per step (the concat's transient and the bytes it and the
  write-back copy, at the largest sizes the shapes allow): the copy stays.

These read the modules only (the matcher in analysis/state_append.py, not the rewrite).
"""

from __future__ import annotations

from ..analysis.access import written_constants
from ..analysis.copies import append_cost
from ..analysis.flow_append import match_flow_append
from ..analysis.notes import diagnostic_at
from ..analysis.state_append import Refusal, match_append
from ..diagnostic import Diagnostic
from .context import CheckContext


def check_constant_writes(context: CheckContext) -> list[Diagnostic]:
    return [d for chunk in context.chunks
            for d in written_constants(chunk, context.function_ops(chunk))]


def check_state_appends(context: CheckContext) -> list[Diagnostic]:
    diags = []
    for chunk in context.chunks:
        for func in context.function_ops(chunk):
            for root_name, match, does in _FORMS:
                for root in func.named({root_name}):
                    diags += _append_diagnostics(root.opview, chunk.path, match, does)
    return diags


# The op an append is rooted at, its matcher, and what the append does every step.
_FORMS = (
    ("tensor.concat", match_append, "concatenates and writes back the whole context"),
    ("flow.tensor.update", match_flow_append,
     "assembles the context in a new buffer and writes it back whole"),
)


def _append_diagnostics(root, path: str, match, does: str) -> list[Diagnostic]:
    try:
        append = match(root, path)
    except Refusal as refusal:
        return [diagnostic_at("warning", refusal.op, path, "state append copies the whole "
                              f"context every step{_cost(root)}; `memplan opt` leaves it "
                              f"alone: {refusal.reason}", "state-in-place-refused")]
    if append is None:
        return []
    return [diagnostic_at("warning", append.write_back, path,
                          f"append to @{append.global_name} {does}: IREE copies it every step; "
                          "`memplan opt` writes only the new data in place",
                          "state-append-copies")]


def _cost(root) -> str:
    """` (N B copied, M B transient ...)` for a concat; the flow form is not estimated."""
    if root.operation.name != "tensor.concat":
        return ""
    cost = append_cost(root)
    at = "at the largest sizes the shapes allow" if cost.bound else "per step"
    return f" ({_bytes(cost.copied)} copied, {_bytes(cost.transient)} transient {at})"


def _bytes(size: int | None) -> str:
    return "an unknown number of B" if size is None else f"{size:,} B"


TENSOR_CHECKS = [check_constant_writes, check_state_appends]
