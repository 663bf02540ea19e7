"""Constant destinations: never let a linalg op write into a constant (seed 001).

Matches: a linalg structured op whose `outs` operand is a constant --
`arith.constant`, `util.unfoldable_constant`, or the loaded value of an
immutable `util.global` / `ml_program.global_load_const`.

Rewrites, per destination:
- the op never reads its init (payload ignores the out argument): the
  destination becomes a fresh `tensor.empty`;
- a splat constant: `tensor.empty` + `linalg.fill` with the scalar (a scalar
  `util.unfoldable_constant` for an unfoldable one, so it stays opaque);
- anything else (non-splat constant, immutable global): the constant becomes an
  extra read-only input of the op, indexed like the output, and the result goes
  to a fresh `tensor.empty`. Named ops are generalized to `linalg.generic` first
  (only the ops being rewritten; the rest of the module is untouched). Where the
  payload read the out argument it now reads the extra input -- directly when
  every iterator is parallel; in a reduction only at the first reduction step
  (all reduction indices 0), since later steps must read the partial result,
  which then lives in a zero-filled tensor (never read a `tensor.empty`: IREE
  warns that the program reads uninitialized values). The `arith.select` keeps
  a generic's order of operations: results are bit-identical (`opt --check-run`).

The constant itself is never changed, so another user that reads it stays
correct; it is erased when its destinations were rewritten and nothing uses it
any more (a constant that is only read, or not used at all, is left alone).
Created ops carry the location of the op they replace (the rewritten linalg op;
for the fill, the constant it materialises).

Refuses (note, IR unchanged): inserts into a constant (`tensor.insert_slice`,
`tensor.insert`, ...): the copy is the insert's meaning, not an artifact;
constants with a dynamic shape; and a named reduction (a matmul) of floats into
a non-splat constant: generalized, it is no longer the contraction IREE
compiles, which sums in its own order, and float sums round differently in
another order (integer ones are exact in any order, and rewritten).
"""

from __future__ import annotations

from iree.compiler import ir, passmanager
from iree.compiler.dialects import arith, func, linalg, tensor

from ..analysis.access import is_constant, value_uses
from ..analysis.notes import diagnostic_at
from ..diagnostic import Diagnostic
from ..ir import ops, source_loc
from ..ir import tensor_ops as t
from ..ir.types import is_ranked_tensor, shape_of
from ..ir.walk import functions, ssa_name, walk
from .rewrite_report import RewriteReport

REWRITTEN, REFUSED = "constant-destination", "constant-destination-refused"
# The ops `is_constant` may say yes to, picked by name first.
_MAYBE_CONSTANT = ops.CONSTANT_OPS | ops.GLOBAL_LOAD_OPS




def rewrite_constant_destinations(module: ir.Module, path: str = "<input>") -> RewriteReport:
    """Rewrite every constant destination of `module` in place; see the module docstring."""
    report = RewriteReport()
    immutable = t.immutable_globals(module)
    with module.context:
        for fn in functions(module):
            # Collect first: rewriting erases and creates ops under the walk.
            constants = [op.opview for op in walk(fn) if op.name in _MAYBE_CONSTANT
                         and is_constant(op, immutable) and is_ranked_tensor(op.results[0])]
            for op in constants:
                _rewrite_users(op, path, report)
    return report


def _rewrite_users(const: ir.OpView, path: str, report: RewriteReport) -> None:
    value = const.results[0]
    writers: list[ir.OpView] = []
    for writer in value_uses(value).writers:
        if not any(w.operation == writer for w in writers):
            writers.append(writer.opview)
    if not writers:
        return  # only read (or not used at all): none of this pass's business
    if None in shape_of(value.type):
        report.add_refused(diagnostic_at("note", const, path, "constant with a dynamic "
                                            "shape used as a destination: left alone", REFUSED))
        return
    for writer in writers:
        if not t.is_linalg_structured(writer):
            report.add_refused(diagnostic_at(
                "note", writer, path, f"{writer.operation.name} inserts into constant "
                f"{ssa_name(value)}: the copy is the op's meaning; left alone", REFUSED))
            continue
        if any(o == value for o in writer.outputs):
            where = source_loc(writer, path)  # before the op is replaced
            how = _rewrite_op(writer, value, const)
            if isinstance(how, Refusal):
                report.add_refused(Diagnostic("note", where, str(how), code=REFUSED))
            else:
                report.add_rewritten(Diagnostic("remark", where, how, code=REWRITTEN))
        else:  # written through a view (e.g. outs = extract_slice %cst)
            report.add_refused(diagnostic_at(
                "note", writer, path, f"writes a view of constant {ssa_name(value)}: "
                "left alone", REFUSED))
    if not list(value.uses):
        const.operation.erase()


def _rewrite_op(op: ir.OpView, value: ir.Value, const: ir.OpView) -> str:
    """Give `op` fresh destinations for every output that is `value`; say what was done."""
    n_in = len(op.inputs)
    slots = [k for k, out in enumerate(op.outputs) if out == value]
    reads = any(t.reads_destination(op, n_in + k) for k in slots)
    name = ssa_name(value)
    if not reads:
        _replace_outputs(op, slots, _empty_like(value, op))
        return f"{op.operation.name} never reads its init {name}: destination is tensor.empty"
    if _is_splat(const):
        _replace_outputs(op, slots, _splat_fill(const, op))
        return f"splat constant {name} as destination: now tensor.empty + linalg.fill"
    inexact = _inexact_reduction(op, value)
    if inexact is not None:
        return inexact
    generic = op if op.operation.name == "linalg.generic" else _generalize(op)
    reduces = bool(_reduction_dims(generic))
    for slot in slots:
        generic = _read_only_input(generic, slot, value)
    if reduces:
        return (f"constant {name} as destination: now a read-only input, added at the first "
                "reduction step; result in a zero-filled tensor")
    return f"constant {name} as destination: now a read-only input; result in tensor.empty"


class Refusal(str):
    """What `_rewrite_op` returns when it leaves the op alone: the reason."""


def _inexact_reduction(op: ir.OpView, value: ir.Value) -> Refusal | None:
    """Why a named reduction into a non-splat float constant must stay as it is, if it must.

    The rewrite reads the constant at the first reduction step of a `linalg.generic`. For a
    generic that is the op's own order. A named op (a matmul, a convolution) would have to be
    generalized first, and then it is no longer the contraction IREE compiled: IREE vectorises
    and tiles a matmul along K its own way, the generic another, so a float sum is taken in
    another order and rounds differently (4.8e-7 apart on a 4x8x4 matmul, measured with
    `memplan opt --check-run`). Integer arithmetic wraps exactly in any order."""
    if op.operation.name == "linalg.generic" or not _op_reduction_dims(op):
        return None
    element = ir.RankedTensorType(value.type).element_type
    if isinstance(element, ir.IntegerType | ir.IndexType):
        return None
    return Refusal(f"{op.operation.name} reduces into non-splat constant {ssa_name(value)} of "
                   f"{element}: generalized to read it at the first reduction step, it would no "
                   "longer be the contraction IREE compiles, and its float sums would round in "
                   "another order; left alone")


def _replace_outputs(op: ir.OpView, slots: list[int], new: ir.Value) -> None:
    n_in = len(op.inputs)
    for k in slots:
        op.operation.operands[n_in + k] = new


def _empty_like(value: ir.Value, at: ir.OpView) -> ir.Value:
    ranked = ir.RankedTensorType(value.type)
    with ir.InsertionPoint(at), at.location:
        return tensor.EmptyOp(list(ranked.shape), ranked.element_type).result


def _is_splat(const: ir.OpView) -> bool:
    if const.operation.name not in ops.CONSTANT_OPS:
        return False  # a global's contents are not known here
    attr = const.operation.attributes["value"]
    return isinstance(attr, ir.DenseElementsAttr) and attr.is_splat


def _splat_fill(const: ir.OpView, at: ir.OpView) -> ir.Value:
    attr = ir.DenseElementsAttr(const.operation.attributes["value"])
    ranked = ir.RankedTensorType(const.results[0].type)
    with ir.InsertionPoint(at), const.location:
        if const.operation.name == "util.unfoldable_constant":
            # Keep the value opaque to folding (the op's purpose), now as a scalar.
            scalar = ir.Operation.create(
                "util.unfoldable_constant", results=[ranked.element_type],
                attributes={"value": attr.get_splat_value()}).result
        else:
            scalar = arith.ConstantOp(ranked.element_type, attr.get_splat_value()).result
        empty = tensor.EmptyOp(list(ranked.shape), ranked.element_type).result
        return _fill(scalar, empty)


def _fill(scalar: ir.Value, dest: ir.Value) -> ir.Value:
    """`linalg.fill ins(scalar) outs(dest)`, its body built directly (opdsl's `linalg.fill`
    builder costs milliseconds per op)."""
    fill = linalg.FillOp([dest.type], [scalar], [dest])
    element = ir.RankedTensorType(dest.type).element_type
    body = fill.regions[0].blocks.append(scalar.type, element)
    with ir.InsertionPoint(body):
        linalg.YieldOp([body.arguments[0]])
    return fill.result


def _generalize(op: ir.OpView) -> ir.OpView:
    """`linalg-generalize-named-ops` on this op alone, via a scratch module."""
    operands = list(op.operation.operands)
    generic, _scratch = _generalized_copy(op)
    with ir.InsertionPoint(op):
        back = generic.operation.clone()
    for i, v in enumerate(operands):
        back.operands[i] = v
    for old, new in zip(op.results, back.results, strict=True):
        old.replace_all_uses_with(new)
    op.operation.erase()
    return back.opview


def _generalized_copy(op: ir.OpView) -> tuple[ir.OpView, ir.Module]:
    """The op as a `linalg.generic`, in a scratch module (returned too: it owns the copy)."""
    operands = list(op.operation.operands)
    with op.location:
        scratch = ir.Module.create()
        with ir.InsertionPoint(scratch.body):
            fn = func.FuncOp("scratch", ([v.type for v in operands],
                                         [r.type for r in op.results]))
            entry = fn.add_entry_block()
            with ir.InsertionPoint(entry):
                clone = op.operation.clone()
                for i, arg in enumerate(entry.arguments):
                    clone.operands[i] = arg
                func.ReturnOp(list(clone.results))
    passmanager.PassManager.parse(
        "builtin.module(func.func(linalg-generalize-named-ops))").run(scratch.operation)
    generic = next(o for o in walk(scratch.operation) if o.name == "linalg.generic").opview
    return generic, scratch


def _read_only_input(op: ir.OpView, slot: int, value: ir.Value) -> ir.OpView:
    """Rebuild generic `op` with `value` as an extra input, read where out `slot` was."""
    n_in, maps = len(op.inputs), list(ir.ArrayAttr(op.operation.attributes["indexing_maps"]))
    empty = _empty_like(value, op)
    if _reduction_dims(op):
        # Later reduction steps read the partial result: give them initialised memory, so
        # the program never reads a `tensor.empty` (IREE warns that it would).
        zero = _zero(value, op)
        with ir.InsertionPoint(op), op.location:
            empty = _fill(zero, empty)
    outputs = [empty if k == slot else v for k, v in enumerate(op.outputs)]
    with ir.InsertionPoint(op), op.location:
        new = linalg.GenericOp([r.type for r in op.results], [*op.inputs, value], outputs,
                               ir.ArrayAttr.get([*maps[:n_in], maps[n_in + slot], *maps[n_in:]]),
                               op.operation.attributes["iterator_types"])
    for name in op.operation.attributes:  # keep user attributes (doc, library_call, ...)
        if name not in new.operation.attributes and name != "operandSegmentSizes":
            new.operation.attributes[name] = op.operation.attributes[name]
    _move_body(op, new, n_in, slot)
    for old, fresh in zip(op.results, new.results, strict=True):
        old.replace_all_uses_with(fresh)
    op.operation.erase()
    return new


def _reduction_dims(op: ir.OpView) -> list[int]:
    kinds = ir.ArrayAttr(op.operation.attributes["iterator_types"])
    return [d for d, kind in enumerate(kinds) if "reduction" in str(kind)]


def _op_reduction_dims(op: ir.OpView) -> list[int]:
    """`_reduction_dims` of any structured op; a named op prints no iterator types, so a
    generalized copy of it is asked."""
    if op.operation.name == "linalg.generic":
        return _reduction_dims(op)
    generic, _scratch = _generalized_copy(op)
    return _reduction_dims(generic)


def _zero(value: ir.Value, at: ir.OpView) -> ir.Value:
    element = ir.RankedTensorType(value.type).element_type
    with ir.InsertionPoint(at), at.location:
        integer = isinstance(element, ir.IntegerType | ir.IndexType)
        attr = ir.IntegerAttr.get(element, 0) if integer else ir.FloatAttr.get(element, 0.0)
        return arith.ConstantOp(element, attr).result


def _move_body(old: ir.OpView, new: ir.OpView, n_in: int, slot: int) -> None:
    """Move the payload into `new`, whose out argument `slot` starts as the extra input."""
    old_block = old.regions[0].blocks[0]
    args = list(old_block.arguments)
    order = [*args[:n_in], args[n_in + slot], *args[n_in:]]
    block = new.regions[0].blocks.append(*[a.type for a in order],
                                         arg_locs=[a.location for a in order])
    new_args = list(block.arguments)
    for i, arg in enumerate(args):
        arg.replace_all_uses_with(new_args[i if i < n_in else i + 1])
    for inner in list(old_block.operations):
        inner.operation.detach_from_parent()
        ir.InsertionPoint(block).insert(inner.operation)
    out, extra = new_args[n_in + 1 + slot], new_args[n_in]
    reductions = _reduction_dims(new)
    if not reductions:  # every point is visited once: the out value *is* the constant's
        out.replace_all_uses_with(extra)
        return
    # A reduction accumulates into `out`: only its first step (all reduction indices 0,
    # the first in linalg's iteration order) may read the constant; later steps read the
    # partial result. A select keeps the original association order, so results are exact.
    with ir.InsertionPoint.at_block_begin(block), new.location:
        zero = arith.ConstantOp(ir.IndexType.get(), 0).result
        first = None
        for d in reductions:
            is_zero = arith.CmpIOp(arith.CmpIPredicate.eq, linalg.IndexOp(d).result, zero).result
            first = is_zero if first is None else arith.AndIOp(first, is_zero).result
        start = arith.SelectOp(first, extra, out)
    out.replace_all_uses_except(start.result, start.operation)
