"""State appends in IREE's flow form (seed 004 as iree-org/iree#16128 shows it).

After IREE's global optimisation a KV-cache append is no longer a `tensor.concat`:
the context is assembled in a fresh buffer and written back whole,

    %state  = util.global.load @G
    %prefix = flow.tensor.slice %state[0, ... for ..., %p, ...]      (along dim d)
    %empty  = flow.tensor.empty : tensor<..?..>{%n}
    %a      = flow.tensor.update %prefix, %empty[0, ...]
    %ctx    = flow.tensor.update %new, %a[..., %q, ...]              (%q == %p)
    %upd    = flow.tensor.update %ctx, %state[0, ...]
    util.global.store %upd, @G

which costs a transient of the context and a copy of it twice per step. The
matcher (rooted at the write-back `%upd`) proves the pieces line up -- the prefix
and the context start at 0, the new data lands at the prefix's end, the context
is `%p + new` long (analysis/relations.py) -- and that nothing else reads the old
state; then only the new data need be written, at `%p`, and the context read
back as a slice of the updated state. `Refusal` says why one is unsafe.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir

from ..ir import ops
from ..ir import tensor_ops as t
from ..ir.types import shape_of
from ..ir.walk import defining_op, function_of
from .ranges import RangeAnalysis
from .relations import Relations
from .state_append import Refusal


@dataclass
class FlowAppend:
    """A matched flow-form append: what the rewrite needs."""

    global_name: str
    state: ir.Value
    prefix: ir.OpView  # flow.tensor.slice
    assemble: list[ir.OpView]  # the empty, the prefix update, the new-data update
    context: ir.Value  # %ctx
    new: ir.Value
    write_back: ir.OpView  # flow.tensor.update into the state
    dim: int
    pos: ir.Value  # where the new data goes (the prefix length)
    length: ir.Value  # the context's length along dim


def _op(value: ir.Value, name: str) -> ir.OpView | None:
    op = defining_op(value)
    return op.opview if op is not None and op.name == name else None


def _all_zero(values: list[ir.Value]) -> bool:
    return all(t.as_int(v) == 0 for v in values)


def match_flow_append(write_back: ir.OpView, path: str = "<input>") -> FlowAppend | None:
    """The append written back by `write_back` (a flow.tensor.update); None if it is not
    one, Refusal if it is unsafe (`path` names the input in the reasons)."""
    state = write_back.target
    load = defining_op(state)
    if load is None or load.name not in ops.STATE_LOAD_OPS:
        return None
    name = t.global_symbol(load)
    ctx_op = _op(write_back.update, "flow.tensor.update")
    if ctx_op is None:
        return None
    a_op = _op(ctx_op.target, "flow.tensor.update")
    prefix = _op(a_op.update, "flow.tensor.slice") if a_op is not None else None
    empty = _op(a_op.target, "flow.tensor.empty") if a_op is not None else None
    if prefix is None or empty is None or prefix.source != state:
        return None  # not a context assembled from a prefix of this state
    if not any(use.owner.name in ops.GLOBAL_STORE_OPS and t.global_symbol(use.owner) == name
               for use in write_back.result.uses):
        raise Refusal(write_back, f"the write-back is not stored into @{name}")
    if None in shape_of(state.type):
        raise Refusal(write_back, f"@{name} has a dynamic shape")
    if not (_all_zero(list(write_back.start_indices)) and _all_zero(list(a_op.start_indices))
            and _all_zero(list(prefix.start_indices))):
        raise Refusal(write_back, f"the prefix of @{name}, its copy or the write-back does "
                      "not start at 0")
    dim, pos = _prefix_dim(prefix, state, name)
    relations = Relations(RangeAnalysis(function_of(write_back.operation)), path)
    starts = list(ctx_op.start_indices)
    if not (relations.equal(starts[dim], pos) and
            all(t.as_int(s) == 0 for i, s in enumerate(starts) if i != dim)):
        raise Refusal(ctx_op, f"the new data of @{name} is not written at the end of the prefix")
    new = ctx_op.update
    new_len = shape_of(new.type)[dim]
    ctx_shape = shape_of(ctx_op.result.type)
    if new_len is None or ctx_shape[dim] is not None or len(list(empty.result_dims)) != 1:
        raise Refusal(ctx_op, f"the context of @{name} is not dynamic along dim {dim} only, "
                      "or the new data's length is dynamic")
    if [s for i, s in enumerate(ctx_shape) if i != dim] != \
            [s for i, s in enumerate(shape_of(new.type)) if i != dim]:
        raise Refusal(ctx_op, f"the new data of @{name} does not cover the context's other "
                      "dimensions")
    length = list(empty.result_dims)[0]
    diff = relations.difference(length, pos)
    if diff.offset != new_len:
        why = relations.explain(length, pos, new_len)
        raise Refusal(ctx_op, f"the context of @{name} is not provably the prefix length + "
                      f"{new_len} long: {why}")
    for use in state.uses:
        if use.owner not in (prefix.operation, write_back.operation):
            raise Refusal(use.owner.opview, f"{use.owner.name} reads the old contents of "
                          f"@{name}; updating it in place would force a copy of the whole state")
    for value, allowed in ((a_op.result, ctx_op.operation), (empty.result, a_op.operation),
                           (prefix.result, a_op.operation)):
        if any(use.owner != allowed for use in value.uses):
            raise Refusal(ctx_op, f"a partial context of @{name} is read elsewhere")
    return FlowAppend(name, state, prefix, [empty, a_op, ctx_op], ctx_op.result, new,
                      write_back, dim, pos, length)


def _prefix_dim(prefix: ir.OpView, state: ir.Value, name: str) -> tuple[int, ir.Value]:
    """The one dimension the prefix does not take whole, and its length there."""
    full = shape_of(state.type)
    partial = [(i, v) for i, (v, n) in enumerate(zip(prefix.lengths, full, strict=True))
               if t.as_int(v) != n]
    if len(partial) != 1:
        raise Refusal(prefix, f"the prefix of @{name} is not cut along exactly one dimension")
    return partial[0]
