"""State appends: a prefix of a global, concatenated with new data and written back.

The matcher both `check` (warn: the append copies the whole context) and the
in-place rewrite (transforms/inplace_state.py) use. It matches, in one block:

    %state  = util.global.load @G            (or ml_program.global_load @G)
    %prefix = tensor.extract_slice %state[0 along d, ...][%pos along d, ...][1, ...]
    %cat    = tensor.concat dim(d) %prefix, %new_0, ..., %new_k
    %upd    = tensor.insert_slice %cat into %state[<prefix offsets>][<cat sizes>][1, ...]
    util.global.store %upd, @G               (or ml_program.global_store @G = %upd)

and raises `Refusal` (the op and why) for an append that is not safe to update in place.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir

from ..ir import ops
from ..ir import tensor_ops as t
from ..ir.types import shape_of
from ..ir.walk import defining_op, function_of, int_constant
from .ranges import RangeAnalysis
from .relations import Relations

Entry = int | ir.Value  # a static or dynamic offset/size


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


def match_append(concat: ir.OpView, path: str = "<input>") -> Append | None:
    """The append rooted at `concat`; None if it is not one, Refusal if it is unsafe
    (`path` names the input in the reasons)."""
    operands = list(concat.operation.operands)
    prefix = defining_op(operands[0])
    if prefix is None or prefix.name != "tensor.extract_slice":
        return None
    prefix = prefix.opview
    state = prefix.operation.operands[0]
    load = defining_op(state)
    if load is None or load.name not in ops.STATE_LOAD_OPS:
        return None
    name = t.global_symbol(load)
    dim = ir.IntegerAttr(concat.operation.attributes["dim"]).value
    write_back = _write_back(concat, state, name)
    if write_back is None:
        return None  # reads a prefix of the state but never updates it: not an append
    if None in shape_of(state.type):
        raise Refusal(concat, f"@{name} has a dynamic shape")
    pos = _check_prefix(prefix, dim, name)
    function = function_of(concat.operation)
    relations = Relations(RangeAnalysis(function), path) if function is not None else None
    _check_write_back(write_back, prefix, concat, dim, pos, name, relations)
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
    return any(use.owner.name in ops.GLOBAL_STORE_OPS and use.operand_number == 0
               and t.global_symbol(use.owner) == name for use in value.uses)


def _check_prefix(prefix: ir.OpView, dim: int, name: str) -> Entry:
    offsets = t.mixed(prefix, "offsets")
    if t.as_int(offsets[dim]) != 0:
        raise Refusal(prefix, f"the prefix of @{name} does not start at offset 0 along dim {dim}")
    if any(t.as_int(s) != 1 for s in t.mixed(prefix, "strides")):
        raise Refusal(prefix, f"the prefix of @{name} has non-unit strides")
    return t.mixed(prefix, "sizes")[dim]


def _check_write_back(write_back: ir.OpView, prefix: ir.OpView, concat: ir.OpView, dim: int,
                      pos: Entry, name: str, relations: Relations | None) -> None:
    offsets, sizes = t.mixed(write_back, "offsets"), t.mixed(write_back, "sizes")
    want_sizes = t.mixed(prefix, "sizes")

    def same(a: Entry, b: Entry) -> bool:
        return same_value(a, b) or (relations is not None and relations.equal(a, b))

    at_prefix = all(same(a, b) for a, b in zip(offsets, t.mixed(prefix, "offsets"), strict=True))
    if any(t.as_int(s) != 1 for s in t.mixed(write_back, "strides")) or not at_prefix:
        raise Refusal(write_back, f"the write-back into @{name} is not at the prefix's offsets")
    others_match = all(same(sizes[i], want_sizes[i]) for i in range(len(sizes)) if i != dim)
    if not others_match:
        raise Refusal(write_back, f"the write-back sizes into @{name} are not the prefix's "
                      "plus the new data")
    if _is_prefix_plus_new(sizes[dim], pos, concat, dim):
        return
    # Exported code computes the two lengths separately (torch's slice normalisation of p
    # and of p + 1): the relations read through it with the program's own asserts.
    new = _new_length(concat, dim)
    if relations is None or new is None:
        raise Refusal(write_back, f"the write-back sizes into @{name} are not the prefix's "
                      "plus the new data")
    diff = relations.difference(sizes[dim], pos)
    if diff.offset != new:
        why = relations.explain(sizes[dim], pos, new)
        raise Refusal(write_back, f"the write-back length of @{name} along dim {dim} is not "
                      f"provably the prefix length + {new}: {why}")


def same_value(a: Entry, b: Entry, depth: int = 0) -> bool:
    """Whether two offsets/sizes provably have the same value (also when computed twice)."""
    ia, ib = t.as_int(a), t.as_int(b)
    if ia is not None or ib is not None:
        return ia == ib
    if a == b:
        return True
    x, y = defining_op(a), defining_op(b)
    if x is None or y is None or depth > 8:
        return False
    # Two pure ops with the same name, attributes and (equal) operands give the same value.
    return (x.name == y.name and x.name in ops.PURE_INDEX_OPS
            and len(x.operands) == len(y.operands) and _attributes(x) == _attributes(y)
            and all(same_value(u, v, depth + 1)
                    for u, v in zip(x.operands, y.operands, strict=True)))


def _attributes(op: ir.Operation) -> dict[str, str]:
    # By name and printed value: the attribute map itself prints as a Python object.
    return {name: str(op.attributes[name]) for name in op.attributes}


def _new_length(concat: ir.OpView, dim: int) -> int | None:
    """Total static size of the appended operands along dim (None if dynamic)."""
    total = 0
    for value in list(concat.operation.operands)[1:]:
        size = shape_of(value.type)[dim]
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
    op = defining_op(size)
    if op is None:
        return False
    if op.name == "tensor.dim":
        return op.operands[0] == concat.results[0] and int_constant(op.operands[1]) == dim
    if op.name == "arith.addi" and new is not None:
        lhs, rhs = op.operands
        return any(same_value(a, pos) and t.as_int(b) == new for a, b in ((lhs, rhs), (rhs, lhs)))
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
