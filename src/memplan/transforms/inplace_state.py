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
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir
from iree.compiler.dialects import arith, tensor

from ..analysis.notes import diagnostic_at
from ..diagnostic import Diagnostic
from ..ir import source_loc
from ..ir import tensor_ops as t
from .rewrite_report import RewriteReport

Entry = int | ir.Value  # a static or dynamic offset/size
REWRITTEN, REFUSED = "state-in-place", "state-in-place-refused"




class Refusal(Exception):
    """Raised by a match step: the op it names and why the pattern is unsafe."""

    def __init__(self, op: ir.OpView, reason: str):
        super().__init__(reason)
        self.op = op
        self.reason = reason


@dataclass
class Append:
    """A matched append: what the rewrite needs."""

    global_name: str
    state: ir.Value
    prefix: ir.OpView  # tensor.extract_slice
    concat: ir.OpView
    write_back: ir.OpView  # tensor.insert_slice
    dim: int
    pos: Entry  # size of the prefix along dim = where the new data goes


def rewrite_inplace_state(module: ir.Module, path: str = "<input>") -> RewriteReport:
    """Rewrite every provably safe state append of `module` in place."""
    report = RewriteReport()
    with module.context:
        for fn in t.functions(module):
            concats = [op for op in t.walk(fn) if op.operation.name == "tensor.concat"]
            for concat in concats:
                _rewrite_one(concat, path, report)
    return report


def _rewrite_one(concat: ir.OpView, path: str, report: RewriteReport) -> None:
    try:
        append = match_append(concat)
    except Refusal as refusal:
        report.refused.append(diagnostic_at("note", refusal.op, path,
                                            f"state update left alone: {refusal.reason}",
                                            REFUSED))
        return
    if append is None:
        return
    where = source_loc(append.write_back, path)  # before the op is replaced
    _rewrite(append)
    report.rewritten.append(Diagnostic(
        "remark", where, f"append to @{append.global_name} along dim {append.dim} now writes "
        "only the new data in place; readers of the concatenation read a slice of the state",
        code=REWRITTEN))


# --- matching -------------------------------------------------------------------

def match_append(concat: ir.OpView) -> Append | None:
    """The append rooted at `concat`; None if it is not one, Refusal if it is unsafe."""
    operands = list(concat.operation.operands)
    prefix = t.defining_op(operands[0])
    if prefix is None or prefix.operation.name != "tensor.extract_slice":
        return None
    state = prefix.operation.operands[0]
    load = t.defining_op(state)
    if load is None or load.operation.name not in t.STATE_LOADS:
        return None
    name = t.global_symbol(load)
    dim = ir.IntegerAttr(concat.operation.attributes["dim"]).value
    write_back = _write_back(concat, state, name)
    if write_back is None:
        return None  # reads a prefix of the state but never updates it: not an append
    if None in t.shape(state):
        raise Refusal(concat, f"@{name} has a dynamic shape")
    pos = _check_prefix(prefix, dim, name)
    _check_write_back(write_back, prefix, concat, dim, pos, name)
    _check_no_other_readers(state, prefix, write_back, name)
    return Append(name, state, prefix, concat, write_back, dim, pos)


def _write_back(concat: ir.OpView, state: ir.Value, name: str) -> ir.OpView | None:
    """The insert_slice of the concat into the same state, stored back to the global."""
    for use in concat.results[0].uses:
        owner = use.owner.opview
        if owner.operation.name == "tensor.insert_slice" and use.operand_number == 0 \
                and owner.operation.operands[1] == state:
            if owner.operation.block != concat.operation.block:
                raise Refusal(owner, "the write-back is in another block than the concat")
            if not _stored_to(owner.results[0], name):
                raise Refusal(owner, f"the write-back is not stored into @{name}")
            return owner
    return None


def _stored_to(value: ir.Value, name: str) -> bool:
    return any(use.owner.name in t.GLOBAL_STORES and use.operand_number == 0
               and t.global_symbol(use.owner.opview) == name for use in value.uses)


def _check_prefix(prefix: ir.OpView, dim: int, name: str) -> Entry:
    offsets = t.mixed(prefix, "offsets")
    if t.as_int(offsets[dim]) != 0:
        raise Refusal(prefix, f"the prefix of @{name} does not start at offset 0 along dim {dim}")
    if any(t.as_int(s) != 1 for s in t.mixed(prefix, "strides")):
        raise Refusal(prefix, f"the prefix of @{name} has non-unit strides")
    return t.mixed(prefix, "sizes")[dim]


def _check_write_back(write_back: ir.OpView, prefix: ir.OpView, concat: ir.OpView, dim: int,
                      pos: Entry, name: str) -> None:
    offsets, sizes = t.mixed(write_back, "offsets"), t.mixed(write_back, "sizes")
    want_sizes = t.mixed(prefix, "sizes")
    if any(t.as_int(s) != 1 for s in t.mixed(write_back, "strides")) or \
            not all(_same(a, b) for a, b in zip(offsets, t.mixed(prefix, "offsets"), strict=True)):
        raise Refusal(write_back, f"the write-back into @{name} is not at the prefix's offsets")
    others_match = all(_same(sizes[i], want_sizes[i]) for i in range(len(sizes)) if i != dim)
    if not others_match or not _is_prefix_plus_new(sizes[dim], pos, concat, dim):
        raise Refusal(write_back, f"the write-back sizes into @{name} are not the prefix's "
                      "plus the new data")


# Ops whose result depends only on their operands and attributes: two of them with the
# same name, attributes and (equal) operands give the same value.
_PURE_INDEX_OPS = ("arith.addi", "arith.subi", "arith.muli", "arith.index_cast",
                   "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci")


def _same(a: Entry, b: Entry, depth: int = 0) -> bool:
    """Whether two offsets/sizes provably have the same value (also when computed twice)."""
    ia, ib = t.as_int(a), t.as_int(b)
    if ia is not None or ib is not None:
        return ia == ib
    if a == b:
        return True
    op_a, op_b = t.defining_op(a), t.defining_op(b)
    if op_a is None or op_b is None or depth > 8:
        return False
    x, y = op_a.operation, op_b.operation
    return (x.name == y.name and x.name in _PURE_INDEX_OPS and len(x.operands) == len(y.operands)
            and str(x.attributes) == str(y.attributes)
            and all(_same(u, v, depth + 1) for u, v in zip(x.operands, y.operands, strict=True)))


def _new_length(concat: ir.OpView, dim: int) -> int | None:
    """Total static size of the appended operands along dim (None if dynamic)."""
    total = 0
    for value in list(concat.operation.operands)[1:]:
        size = t.shape(value)[dim]
        if size is None:
            return None
        total += size
    return total


def _is_prefix_plus_new(size: Entry, pos: Entry, concat: ir.OpView, dim: int) -> bool:
    """Whether `size` provably equals `pos` + the appended length (the concat's size)."""
    new = _new_length(concat, dim)
    static_pos = t.as_int(pos)
    if t.as_int(size) is not None:
        return new is not None and static_pos is not None and t.as_int(size) == static_pos + new
    op = t.defining_op(size)
    if op is None:
        return False
    if op.operation.name == "tensor.dim":
        return op.operation.operands[0] == concat.results[0] and \
            t.const_int(op.operation.operands[1]) == dim
    if op.operation.name == "arith.addi" and new is not None:
        lhs, rhs = op.operation.operands
        return any(_same(a, pos) and t.as_int(b) == new for a, b in ((lhs, rhs), (rhs, lhs)))
    return False


def _check_no_other_readers(state: ir.Value, prefix: ir.OpView, write_back: ir.OpView,
                            name: str) -> None:
    for use in state.uses:
        owner = use.owner
        if owner == prefix.operation or (owner == write_back.operation
                                         and use.operand_number == 1):
            continue
        raise Refusal(owner.opview, f"{owner.name} reads the old contents of @{name}; "
                      "updating it in place would force a copy of the whole state")


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
    size = t.shape(value)[dim]
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
    static = [e if isinstance(e, int) else t.DYNAMIC for e in entries]
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
