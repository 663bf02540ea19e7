"""Copy accounting: transient bytes and copied bytes a tensor program implies, per function.

The tensor-level model (what bufferization of the program must do):
- `tensor.concat` with a dynamically sized operand (a KV-cache prefix)
  materialises its result: a transient of the result's size, and every operand
  is copied into it (bytes = the result's size), as IREE 3.13 does with
  `*_slow_memcpy` dispatches; a static concat (RoPE's `cat(-x2, x1)`) costs
  nothing here, since IREE fuses it with its producers into one dispatch that
  writes the result (measured: 0 B transient and copied);
- `tensor.insert_slice` copies its source into the destination (the source's
  bytes) unless a linalg op produces the source for this insert alone (it then
  writes the slice directly, as IREE emplaces dispatch results); when the
  destination cannot be updated in place -- a constant, a function argument, or
  a value another op reads later -- the destination is first copied to a
  transient as well;
- a non-splat constant (or immutable global) used as a destination is copied
  into the op's result buffer (a copy of its size; the buffer itself is needed
  anyway); a splat one is filled, not copied;
- `tensor.extract_slice` and reshapes are views: no bytes.

IREE's own figures, beside which `memplan copies` shows these, are counted in
`stream_counts.py`.

Dynamic sizes are evaluated at given values (`at={"seq_step": 511}` binds the
index global `@seq_step`, `arg0` a function argument, or the first element of a
tensor argument such as an exported position `tensor<1xi64>`, `arg0.dim1` dimension 1
of a tensor argument, through `tensor.dim` or `hal.buffer_view.dim`); an unbound size is
taken at the maximum its shape allows and the estimate says so (`bound`); a size
with no bound at all is unknown (None), never counted as 0.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from math import prod

from iree.compiler import ir

from ..ir import SourceLoc, ops, source_loc
from ..ir import tensor_ops as t
from ..ir.types import is_ranked_tensor, shape_of, shaped_element_bytes
from ..ir.walk import (
    FunctionOps,
    defining_op,
    function_ops,
    symbol_name,
)
from .index_eval import argument_behind, eval_index, first_element_argument


@dataclass(frozen=True)
class CopyItem:
    kind: str  # "transient" | "copy"
    bytes: int | None  # None: a size memplan cannot evaluate (never counted as 0)
    op: str
    location: SourceLoc | None
    why: str


@dataclass
class CopyEstimate:
    function: str
    items: list[CopyItem] = field(default_factory=list)
    bound: bool = False  # a dynamic size was taken at its upper bound
    # Element types memplan cannot size: their bytes are not in the totals.
    unknown_types: tuple[str, ...] = ()

    @property
    def transient_bytes(self) -> int | None:
        return _total(i.bytes for i in self.items if i.kind == "transient")

    @property
    def copied_bytes(self) -> int | None:
        return _total(i.bytes for i in self.items if i.kind == "copy")


def _total(sizes: Iterable[int | None]) -> int | None:
    total: int | None = 0
    for size in sizes:
        total = None if total is None or size is None else total + size
    return total


# --- tensor-level estimate ----------------------------------------------------------------

class _Sizer:
    """Sizes of tensor values at `at`, falling back to upper bounds from shapes."""

    def __init__(self, at: Mapping[str, int]):
        self.at = at
        self.bound = False
        self.unknown_types: set[str] = set()  # element types with no known size

    def bytes(self, value: ir.Value) -> int | None:
        type_ = value.type
        shape = shape_of(type_)
        dims = [self.extent(value, d) if shape[d] is None else shape[d]
                for d in range(len(shape))]
        element = shaped_element_bytes(type_)
        if element is None:
            self.unknown_types.add(str(ir.ShapedType(value.type).element_type))
            return 0
        if None in dims:
            return None
        return prod(dims) * element  # type: ignore[arg-type]

    def extent(self, value: ir.Value, dim: int) -> int | None:
        static = shape_of(value.type)[dim]
        if static is not None:
            return static
        op = defining_op(value)
        name = op.name if op is not None else None
        if name == "tensor.extract_slice":
            return self._entry(t.mixed(op.opview, "sizes")[dim], op.operands[0], dim)
        if name == "tensor.concat":
            along = ir.IntegerAttr(op.attributes["dim"]).value
            parts = list(op.operands)
            if along == dim:
                return self._clamp(value, dim, _total(self.extent(p, dim) for p in parts))
            return self.extent(parts[0], dim)
        if name == "tensor.insert_slice":
            return self.extent(op.operands[1], dim)
        if op is not None and t.is_linalg_structured(op):
            index = next(i for i, r in enumerate(op.results) if r == value)
            return self.extent(op.opview.outputs[index], dim)
        argument = argument_behind(value, 0)
        if argument is not None:  # an argument's dynamic dimension: `--at argN.dimD=V`
            return self.at.get(f"arg{argument}.dim{dim}")
        return None  # unknown and unbounded: shown as unknown, never as 0

    def _clamp(self, value: ir.Value, dim: int, size: int | None) -> int | None:
        """A value inserted into a static destination is no larger than it (an unknown size
        is then taken at that bound)."""
        for use in value.uses:
            owner = use.owner.operation
            if owner.name == "tensor.insert_slice" and use.operand_number == 0:
                dest = shape_of(owner.operands[1].type)
                limit = dest[dim] if len(dest) == len(shape_of(value.type)) else None
                if limit is not None:
                    if size is None:
                        self.bound = True
                    size = limit if size is None else min(size, limit)
        return size

    def _entry(self, entry: int | ir.Value, source: ir.Value, dim: int) -> int | None:
        if isinstance(entry, int):
            return entry
        value = eval_index(entry, self.at)
        if value is not None:
            return value
        self.bound = True
        return self.extent(source, dim)


def estimate_copies(module: ir.Module, path: str = "<input>",
                    at: Mapping[str, int] | None = None,
                    funcs: Sequence[FunctionOps] | None = None) -> list[CopyEstimate]:
    """Per function, the transients and copies the tensor program implies; a function is
    charged what the functions it calls do as well (as IREE's figures are, see
    `stream_counts`: the exported `main` wrapper does no work of its own). `funcs`: the
    module's `function_ops`, when the caller has them."""
    immutable = t.immutable_globals(module)
    own: dict[str, CopyEstimate] = {}
    calls: dict[str, list[str]] = {}
    for func in function_ops(module) if funcs is None else funcs:
        name = symbol_name(func.func)
        own[name], calls[name] = _estimate_function(func, path, at or {}, immutable)
    return [_estimate_with_callees(name, own, calls, set()) for name in own]


def _estimate_with_callees(name: str, own: dict[str, CopyEstimate],
                           calls: dict[str, list[str]], active: set[str]) -> CopyEstimate:
    mine = own[name]
    if not calls[name] or name in active:
        return mine
    active = active | {name}
    total = CopyEstimate(name, list(mine.items), mine.bound, mine.unknown_types)
    for callee in calls[name]:
        if callee in own:
            part = _estimate_with_callees(callee, own, calls, active)
            total.items += part.items
            total.bound = total.bound or part.bound
            total.unknown_types = tuple(sorted(set(total.unknown_types) |
                                               set(part.unknown_types)))
    return total


def _estimate_function(func: FunctionOps, path: str, at: Mapping[str, int],
                       immutable: set[str]) -> tuple[CopyEstimate, list[str]]:
    """The function's own estimate, and the functions it calls."""
    sizer = _Sizer(at)
    estimate = CopyEstimate(symbol_name(func.func))
    callees = []
    for op, name in zip(func.ops, func.names, strict=True):
        if name in ops.CALL_OPS:
            callees.append(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
            continue
        if name not in _COSTED and not name.startswith("linalg."):
            continue  # most ops cost nothing: skip the call
        for kind, size, why in _op_costs(op, name, sizer, immutable):
            estimate.items.append(CopyItem(kind, size, name, source_loc(op, path), why))
    estimate.bound = sizer.bound
    estimate.unknown_types = tuple(sorted(sizer.unknown_types))
    return estimate, callees


# The ops `_op_costs` may charge, besides linalg's.
_COSTED = frozenset({"tensor.concat", "tensor.extract", "tensor.insert_slice"}) | ops.RETURN_OPS


def _op_costs(op: ir.Operation, name: str, sizer: _Sizer, immutable: set[str]
              ) -> list[tuple[str, int | None, str]]:
    """(kind, bytes, why) of the transients and copies `op` (named `name`) implies (nothing
    for an op whose name is not in `_COSTED` or linalg's)."""
    if name == "tensor.concat":
        if all(None not in shape_of(v.type) for v in op.operands):
            # RoPE's cat(-x2, x1): IREE 3.13 fuses a static concat and its producers into
            # one dispatch that writes the result; no transient, nothing counted as a copy.
            return []
        # A dynamically sized operand (a KV-cache prefix) is moved by `*_slow_memcpy`
        # dispatches into a transient of the result.
        size = sizer.bytes(op.results[0])
        copy = ("copy", size, "concat copies its operands in")
        if _returned(op.results[0]):
            return [copy]  # built in the function's result buffer: no transient
        return [("transient", size, "concat materialises its result"), copy]
    if name in ops.RETURN_OPS:
        # A result that is a view of module state is copied out into its own buffer.
        return [("copy", sizer.bytes(v), "a view of a global is returned: copied out")
                for v in op.operands if is_ranked_tensor(v) and _views_state(v)]
    if name == "tensor.extract" and first_element_argument(op) is not None:
        # A scalar the host needs (an exported position) is read back from the device.
        return [("copy", shaped_element_bytes(op.operands[0].type), "element read back to "
                 "the host")]
    if name == "tensor.insert_slice":
        source, dest = op.operands[0], op.operands[1]
        costs = []
        if not _produced_in_place(source):
            costs.append(("copy", sizer.bytes(source), "insert copies its source"))
        why = _not_in_place(op, dest)
        if why:
            size = sizer.bytes(dest)
            costs += [("transient", size, f"destination {why}: copied first"),
                      ("copy", size, f"destination {why}: copied first")]
        return costs
    # By name first: most ops are not linalg's, and asking costs their OpView.
    if name.startswith("linalg.") and t.is_linalg_structured(op):
        # The copy lands in the op's result buffer, needed anyway: bytes, no extra buffer.
        return [("copy", sizer.bytes(out), "written constant is copied into the result")
                for out in op.opview.outputs if _is_nonsplat_constant(out, immutable)]
    return []


def _returned(value: ir.Value) -> bool:
    return any(use.owner.name in ops.RETURN_OPS for use in value.uses)


def _views_state(value: ir.Value) -> bool:
    """Whether `value` is (a view of) a global's contents, as loaded or as updated."""
    op = defining_op(value)
    while op is not None:
        if op.name in ops.GLOBAL_LOAD_OPS:
            return True
        if op.name in ops.TENSOR_VIEW_OPS:
            op = defining_op(op.operands[0])
        elif op.name in ("tensor.insert_slice", "flow.tensor.update"):
            op = defining_op(op.operands[1] if op.name == "tensor.insert_slice"
                             else op.opview.target)
        else:
            return False
    return False


def _produced_in_place(source: ir.Value) -> bool:
    """A linalg result used only by the insert: its producer writes the slice directly
    (IREE emplaces the dispatch result in the destination)."""
    op = defining_op(source)
    return op is not None and t.is_linalg_structured(op) and len(list(source.uses)) == 1


def _is_nonsplat_constant(value: ir.Value, immutable: set[str]) -> bool:
    op = defining_op(value)
    if op is None:
        return False
    if op.name in ops.GLOBAL_LOAD_OPS:
        return t.global_symbol(op) in immutable  # contents unknown here: assume non-splat
    if op.name not in ops.CONSTANT_OPS:
        return False
    attr = op.attributes["value"]
    return not (isinstance(attr, ir.DenseElementsAttr) and attr.is_splat)


def _not_in_place(insert: ir.Operation, dest: ir.Value) -> str | None:
    """Why the insert cannot update `dest` in place (None when it can)."""
    owner = dest.owner
    if isinstance(owner, ir.Block):
        return "is a function argument"
    if owner.operation.name in ops.CONSTANT_OPS:
        return "is a constant"
    for use in dest.uses:
        user = use.owner.operation
        if user != insert and user.block == insert.block and insert.is_before_in_block(user):
            return f"is read later by {user.name}"
    return None


@dataclass(frozen=True)
class AppendCost:
    """What one append that stays a concat + write-back costs per step."""

    transient: int | None  # None: a size memplan cannot evaluate
    copied: int | None
    bound: bool  # sizes taken at the largest the shapes allow


def append_cost(concat: ir.OpView, at: Mapping[str, int] | None = None) -> AppendCost:
    """Transient and copied bytes of `concat` and of the inserts of its result (the
    write-back), at `at` (else at the largest sizes the shapes allow)."""
    sizer = _Sizer(at or {})
    ops = [concat.operation] + [use.owner.operation for use in concat.results[0].uses
                                if use.owner.name == "tensor.insert_slice"
                                and use.operand_number == 0]
    costs = [(kind, size) for op in ops for kind, size, _ in _op_costs(op, op.name, sizer, set())]
    return AppendCost(_total(s for k, s in costs if k == "transient"),
                      _total(s for k, s in costs if k == "copy"), sizer.bound)
