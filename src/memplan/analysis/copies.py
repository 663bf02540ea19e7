"""Copy accounting: transient bytes and copied bytes a tensor program implies, per function.

The tensor-level model (what bufferization of the program must do):
- `tensor.concat` materialises its result: a transient of the result's size,
  and every operand is copied into it (bytes = the result's size);
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

IREE's own figures come from its `stream` dialect (`iree-compile
--compile-to=stream`): transients are `stream.resource.alloca` /
`stream.async.alloca` of `transient` lifetime, copies are `stream.cmd.copy`,
`stream.async.copy`, `stream.async.update`, `stream.async.slice`; strided
copies IREE turns into dispatches (`..._slow_memcpy`) are counted, not sized.

Dynamic sizes are evaluated at given values (`at={"seq_step": 511}` binds the
index global `@seq_step`, or `arg0` a function argument); an unbound size is
taken at the maximum its shape allows and the estimate says so (`bound`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from math import prod

from iree.compiler import ir

from ..ir import SourceLoc, ops, source_loc
from ..ir import tensor_ops as t
from ..ir.types import shape_of, shaped_element_bytes
from ..ir.walk import (
    defining_op,
    functions,
    int_constant,
    is_device_code,
    symbol_name,
    walk,
)


@dataclass(frozen=True)
class CopyItem:
    kind: str  # "transient" | "copy"
    bytes: int
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
    def transient_bytes(self) -> int:
        return sum(i.bytes for i in self.items if i.kind == "transient")

    @property
    def copied_bytes(self) -> int:
        return sum(i.bytes for i in self.items if i.kind == "copy")


@dataclass
class StreamCounts:
    """What IREE's stream dialect does for one function (None: size not evaluable)."""

    function: str
    transient_bytes: int | None = 0
    copied_bytes: int | None = 0
    constant_copied_bytes: int | None = 0  # copies whose source is a constant resource
    memcpy_dispatches: int = 0  # copies IREE does in a dispatch (`*_slow_memcpy`): no bytes


# --- index evaluation (shared by both sides) -------------------------------------------

_BINARY: dict[str, Callable[[int, int], int]] = {
    "arith.addi": lambda a, b: a + b, "arith.subi": lambda a, b: a - b,
    "arith.muli": lambda a, b: a * b, "arith.divui": lambda a, b: a // b,
    "arith.divsi": lambda a, b: a // b, "arith.ceildivui": lambda a, b: -(-a // b),
    "arith.shli": lambda a, b: a << b, "arith.shrui": lambda a, b: a >> b,
    "arith.ori": lambda a, b: a | b, "arith.andi": lambda a, b: a & b,
    "util.align": lambda a, b: -(-a // b) * b,  # stream pads transients it packs
    "arith.maxui": max, "arith.minui": min, "arith.maxsi": max, "arith.minsi": min,
}


def eval_index(value: ir.Value, at: Mapping[str, int], depth: int = 0) -> int | None:
    """The integer `value` takes when the globals/arguments in `at` have those values."""
    if depth > 64:
        return None
    owner = value.owner
    if isinstance(owner, ir.Block):
        return at.get(f"arg{value.arg_number}")
    op = owner.operation
    name = op.name
    if name == "arith.constant":
        return int_constant(value)
    if name in ops.GLOBAL_LOAD_OPS:
        return at.get(t.global_symbol(op))
    if name in ops.INTEGER_CAST_OPS:
        return eval_index(op.operands[0], at, depth + 1)
    if name in _BINARY:
        a, b = (eval_index(v, at, depth + 1) for v in op.operands)
        return None if a is None or b is None else _BINARY[name](a, b)
    return None


# --- tensor-level estimate ----------------------------------------------------------------

class _Sizer:
    """Sizes of tensor values at `at`, falling back to upper bounds from shapes."""

    def __init__(self, at: Mapping[str, int]):
        self.at = at
        self.bound = False
        self.unknown_types: set[str] = set()  # element types with no known size

    def bytes(self, value: ir.Value) -> int:
        dims = [self.extent(value, d) for d in range(len(shape_of(value.type)))]
        element = shaped_element_bytes(value.type)
        if element is None:
            self.unknown_types.add(str(ir.ShapedType(value.type).element_type))
            return 0
        return prod(dims) * element

    def extent(self, value: ir.Value, dim: int) -> int:
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
                return self._clamp(value, dim, sum(self.extent(p, dim) for p in parts))
            return self.extent(parts[0], dim)
        if name == "tensor.insert_slice":
            return self.extent(op.operands[1], dim)
        if op is not None and t.is_linalg_structured(op):
            index = next(i for i, r in enumerate(op.results) if r == value)
            return self.extent(op.opview.outputs[index], dim)
        self.bound = True
        return 0  # unknown and unbounded: counted as nothing, flagged

    def _clamp(self, value: ir.Value, dim: int, size: int) -> int:
        """A value inserted into a static destination is no larger than it."""
        for use in value.uses:
            owner = use.owner.operation
            if owner.name == "tensor.insert_slice" and use.operand_number == 0:
                dest = shape_of(owner.operands[1].type)
                limit = dest[dim] if len(dest) == len(shape_of(value.type)) else None
                if limit is not None:
                    size = min(size, limit)
        return size

    def _entry(self, entry: int | ir.Value, source: ir.Value, dim: int) -> int:
        if isinstance(entry, int):
            return entry
        value = eval_index(entry, self.at)
        if value is not None:
            return value
        self.bound = True
        return self.extent(source, dim)


def estimate_copies(module: ir.Module, path: str = "<input>",
                    at: Mapping[str, int] | None = None) -> list[CopyEstimate]:
    """Per function, the transients and copies the tensor program implies."""
    immutable = t.immutable_globals(module)
    return [_estimate_function(fn, path, at or {}, immutable) for fn in functions(module)]


def _estimate_function(fn: ir.Operation, path: str, at: Mapping[str, int],
                       immutable: set[str]) -> CopyEstimate:
    sizer = _Sizer(at)
    estimate = CopyEstimate(symbol_name(fn))
    for op in walk(fn):
        for kind, size, why in _op_costs(op, sizer, immutable):
            estimate.items.append(CopyItem(kind, size, op.name, source_loc(op, path), why))
    estimate.bound = sizer.bound
    estimate.unknown_types = tuple(sorted(sizer.unknown_types))
    return estimate


def _op_costs(op: ir.Operation, sizer: _Sizer, immutable: set[str]
              ) -> list[tuple[str, int, str]]:
    """(kind, bytes, why) of the transients and copies `op` implies."""
    name = op.name
    if name == "tensor.concat":
        size = sizer.bytes(op.results[0])
        return [("transient", size, "concat materialises its result"),
                ("copy", size, "concat copies its operands in")]
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
    if t.is_linalg_structured(op):
        # The copy lands in the op's result buffer, needed anyway: bytes, no extra buffer.
        return [("copy", sizer.bytes(out), "written constant is copied into the result")
                for out in op.opview.outputs if _is_nonsplat_constant(out, immutable)]
    return []


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


# --- IREE stream counts --------------------------------------------------------------

_ALLOCAS = ("stream.resource.alloca", "stream.async.alloca")
# Copy-like ops: the copied length is the last operand; the source is this operand.
_COPIES = {"stream.cmd.copy": 0, "stream.async.copy": 4, "stream.async.update": 4,
           "stream.async.slice": 0}


def stream_counts(stream_module: ir.Module, at: Mapping[str, int] | None = None
                  ) -> list[StreamCounts]:
    """Per public function of IREE's stream output, transient and copied bytes at `at`."""
    found = []
    for fn in functions(stream_module):
        if is_device_code(fn):
            continue  # dispatches: their copies are counted where the host launches them
        counts = StreamCounts(symbol_name(fn))
        for op in walk(fn):
            _count(op, counts, at or {})
        found.append(counts)
    return found


def _count(op: ir.Operation, counts: StreamCounts, at: Mapping[str, int]) -> None:
    if op.name == "stream.cmd.dispatch" and "memcpy" in str(op.attributes["entry_points"]):
        counts.memcpy_dispatches += 1
    elif op.name in _ALLOCAS and "<transient>" in str(op.results[0].type):
        size = eval_index(_index_operands(op)[-1], at)
        counts.transient_bytes = _plus(counts.transient_bytes, size)
    elif op.name in _COPIES:
        size = eval_index(op.operands[len(op.operands) - 1], at)
        counts.copied_bytes = _plus(counts.copied_bytes, size)
        if "<constant>" in str(op.operands[_COPIES[op.name]].type):
            counts.constant_copied_bytes = _plus(counts.constant_copied_bytes, size)


def _index_operands(op: ir.Operation) -> list[ir.Value]:
    return [v for v in op.operands if isinstance(v.type, ir.IndexType)]


def _plus(total: int | None, size: int | None) -> int | None:
    return None if total is None or size is None else total + size
