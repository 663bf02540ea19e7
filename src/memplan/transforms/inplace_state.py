"""In-place state updates: append to a KV cache without copying the context (seed 004).

Matches, in one block:

    %state  = util.global.load @G            (or ml_program.global_load @G)
    %prefix = tensor.extract_slice %state[0 along d, ...][%pos along d, ...][1, ...]
    %cat    = tensor.concat dim(d) %prefix, %new_0, ..., %new_k
    %upd    = tensor.insert_slice %cat into %state[<prefix offsets>][<cat sizes>][1, ...]
    util.global.store %upd, @G               (or ml_program.global_store @G = %upd)

Rewrites it to write only the new data at the current position, with every other
reader of the concatenation reading a slice of the updated state:

    %upd = tensor.insert_slice %new_0 into %state[.., %pos, ..][<new_0 sizes>]  (then %new_1 ...)
    %ctx = tensor.extract_slice %upd[<prefix offsets>][.., %pos + <new sizes>, ..]

so bufferization updates the global in place: no transient of the context, and
the bytes copied per step are those of the new data. Any concat dimension, any
number of appended operands, several states per function.

Refuses (a note says why; IR unchanged) what it cannot prove safe:
- another op reads the old state: updating it in place would force a copy;
- the prefix is not at offset 0 along the concat dimension, or has non-unit strides;
- the write-back's offsets/sizes are not the prefix's plus the new data
  (its length along d must be provably `%pos + new`, e.g. `arith.addi %pos, %c1`);
- the write-back is not stored into the same global, or lives in another block.

Other readers of the prefix after the concat read it as a slice of the updated
state (the same values: the new data lands after the prefix). Created ops carry
the location of the op they replace (the insert of the write-back, the slice of
the concat, the prefix's slice).

The same append in IREE's flow form (analysis/flow_append.py: the context
assembled with `flow.tensor.empty` + `flow.tensor.update`s and written back whole)
becomes `flow.tensor.update %new, %state[.., %pos, ..]` and a `flow.tensor.slice`
of the updated state for the context's readers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from iree.compiler import ir
from iree.compiler.dialects import arith, flow, tensor

from ..analysis.flow_append import FlowAppend, match_flow_append
from ..analysis.notes import diagnostic_at
from ..analysis.state_append import Append, Entry, Refusal, match_append
from ..diagnostic import Diagnostic
from ..ir import source_loc
from ..ir import tensor_ops as t
from ..ir.types import DYNAMIC, shape_of
from ..ir.walk import functions, walk
from .rewrite_report import RewriteReport

REWRITTEN, REFUSED = "state-in-place", "state-in-place-refused"




def rewrite_inplace_state(module: ir.Module, path: str = "<input>") -> RewriteReport:
    """Rewrite every provably safe state append of `module` in place."""
    report = RewriteReport()
    with module.context:
        for fn in functions(module):
            found = _roots(fn)
            for form in _FORMS:
                rewrites = len(report.rewritten)
                for root in found[form.root]:
                    _rewrite_one(form, root, path, report)
                if len(report.rewritten) > rewrites:
                    found = _roots(fn)  # the next form must not see ops this one erased
    return report


def _roots(fn: ir.Operation) -> dict[str, list[ir.OpView]]:
    """The ops of `fn` each form is rooted at, by root name, in walk order."""
    found: dict[str, list[ir.OpView]] = {form.root: [] for form in _FORMS}
    for op in walk(fn):
        roots = found.get(op.name)
        if roots is not None:
            roots.append(op.opview)
    return found


@dataclass(frozen=True)
class _Form:
    """One spelling of the append: the op it is rooted at, its matcher and its rewrite."""

    root: str
    match: Callable[[ir.OpView, str], Append | FlowAppend | None]
    rewrite: Callable[..., None]
    readers: str  # who reads a slice of the state afterwards


def _rewrite_one(form: _Form, root: ir.OpView, path: str, report: RewriteReport) -> None:
    try:
        append = form.match(root, path)
    except Refusal as refusal:
        report.add_refused(diagnostic_at("note", refusal.op, path,
                                         f"state update left alone: {refusal.reason}", REFUSED))
        return
    if append is None:
        return
    where = source_loc(append.write_back, path)  # before the op is replaced
    form.rewrite(append)
    report.add_rewritten(Diagnostic(
        "remark", where, f"append to @{append.global_name} along dim {append.dim} now writes "
        f"only the new data in place; readers of the {form.readers} read a slice of the state",
        code=REWRITTEN))


def _rewrite_flow(append: FlowAppend) -> None:
    empty, assembled, ctx_op = append.assemble
    full = shape_of(append.state.type)
    index = ir.IndexType.get()
    with ir.InsertionPoint(ctx_op), ctx_op.location:
        zero = arith.ConstantOp(index, 0).result
        starts = [zero] * len(full)
        starts[append.dim] = append.pos
        updated = flow.TensorUpdateOp(append.state, [], starts, append.new, []).result
        # A tensor slice, not flow.tensor.slice: IREE fuses it into the dispatch that reads
        # the context, where a flow slice is copied out into a transient first.
        sizes: list[Entry] = list(full)  # type: ignore[arg-type]
        sizes[append.dim] = append.length
        context = _extract_slice(updated, [0] * len(full), sizes, append.context.type,
                                 ctx_op.location)
    append.context.replace_all_uses_except(context, append.write_back.operation)
    append.write_back.result.replace_all_uses_with(updated)
    for op in (append.write_back, ctx_op, assembled, empty, append.prefix):
        op.operation.erase()


# --- rewriting --------------------------------------------------------------------

def _rewrite(append: Append) -> None:
    concat, write_back = append.concat, append.write_back
    offsets = t.mixed(append.prefix, "offsets")
    state_sizes = t.mixed(append.prefix, "sizes")
    updated, at = append.state, append.pos
    with ir.InsertionPoint(concat):
        for new in list(concat.operation.operands)[1:]:
            sizes = list(state_sizes)
            sizes[append.dim] = _size_along(new, append.dim, concat.location)
            offs = list(offsets)
            offs[append.dim] = at
            updated = _insert_slice(new, updated, offs, sizes, write_back.location)
            at = _add(at, sizes[append.dim], concat.location)
        sizes = list(state_sizes)
        sizes[append.dim] = at
        context = _extract_slice(updated, offsets, sizes, concat.results[0].type,
                                 concat.location)
        _read_prefix_from(append, updated)
    concat.results[0].replace_all_uses_except(context, write_back.operation)
    write_back.results[0].replace_all_uses_with(updated)
    write_back.operation.erase()
    concat.operation.erase()
    if not list(append.prefix.results[0].uses):
        append.prefix.operation.erase()


def _read_prefix_from(append: Append, updated: ir.Value) -> None:
    """Later readers of the prefix read it from the updated state (same values: the new
    data lands after it), so nothing still needs the old state after the update."""
    prefix, concat = append.prefix, append.concat
    later = [use.owner.operation for use in prefix.results[0].uses
             if use.owner.operation.block == concat.operation.block
             and concat.operation.is_before_in_block(use.owner.operation)]
    if not later:
        return
    view = _extract_slice(updated, t.mixed(prefix, "offsets"), t.mixed(prefix, "sizes"),
                          prefix.results[0].type, prefix.location)
    for user in later:
        user.replace_uses_of_with(prefix.results[0], view)


def _size_along(value: ir.Value, dim: int, loc: ir.Location) -> Entry:
    size = shape_of(value.type)[dim]
    if size is not None:
        return size
    with loc:
        index = arith.ConstantOp(ir.IndexType.get(), dim).result
        return tensor.DimOp(value, index).result


def _add(a: Entry, b: Entry, loc: ir.Location) -> Entry:
    ia, ib = t.as_int(a), t.as_int(b)
    if ia is not None and ib is not None:
        return ia + ib
    if ib == 0:
        return a
    with loc:
        return arith.AddIOp(_value(a), _value(b)).result


def _value(entry: Entry) -> ir.Value:
    if isinstance(entry, ir.Value):
        return entry
    return arith.ConstantOp(ir.IndexType.get(), entry).result


def _split(entries: list[Entry]) -> tuple[list[ir.Value], list[int]]:
    """Mixed entries -> (dynamic values, static list with the dynamic sentinel)."""
    dynamic = [e for e in entries if not isinstance(e, int)]
    static = [e if isinstance(e, int) else DYNAMIC for e in entries]
    return dynamic, static


def _insert_slice(source: ir.Value, dest: ir.Value, offsets: list[Entry], sizes: list[Entry],
                  loc: ir.Location) -> ir.Value:
    dyn_off, st_off = _split(offsets)
    dyn_size, st_size = _split(sizes)
    with loc:
        return tensor.InsertSliceOp(source, dest, dyn_off, dyn_size, [], st_off, st_size,
                                    [1] * len(offsets)).result


def _extract_slice(source: ir.Value, offsets: list[Entry], sizes: list[Entry],
                   result_type: ir.Type, loc: ir.Location) -> ir.Value:
    dyn_off, st_off = _split(offsets)
    dyn_size, st_size = _split(sizes)
    with loc:
        return tensor.ExtractSliceOp(result_type, source, dyn_off, dyn_size, [], st_off,
                                     st_size, [1] * len(offsets)).result


_FORMS = (_Form("tensor.concat", match_append, _rewrite, "concatenation"),
          _Form("flow.tensor.update", match_flow_append, _rewrite_flow, "context"))
