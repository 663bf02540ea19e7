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

IREE's own figures come from its `stream` dialect (`iree-compile
--compile-to=stream`): transients are `stream.resource.alloca` /
`stream.async.alloca` of `transient` lifetime, copies are `stream.cmd.copy`,
`stream.async.copy`, `stream.async.update`, `stream.async.slice`; strided
copies IREE turns into dispatches (`..._slow_memcpy`) are sized by what the
dispatch stores (its `dispatch.tensor.store` sizes, evaluated from the dispatch's
operands). A function that only calls others (the `main` wrapper IREE adds around
`main$async`) is charged what its callees do, so the figures follow the code.

Dynamic sizes are evaluated at given values (`at={"seq_step": 511}` binds the
index global `@seq_step`, `arg0` a function argument, or the first element of a
tensor argument such as an exported position `tensor<1xi64>`, `arg0.dim1` dimension 1
of a tensor argument, through `tensor.dim` or `hal.buffer_view.dim`); an unbound size is
taken at the maximum its shape allows and the estimate says so (`bound`); a size
with no bound at all is unknown (None), never counted as 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from math import prod

from iree.compiler import ir

from ..ir import SourceLoc, ops, source_loc
from ..ir import tensor_ops as t
from ..ir.types import DYNAMIC, is_ranked_tensor, shape_of, shaped_element_bytes
from ..ir.walk import (
    FunctionOps,
    defining_op,
    function_ops,
    functions,
    int_constant,
    is_device_code,
    symbol_name,
    walk,
)


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


@dataclass
class StreamCounts:
    """What IREE's stream dialect does for one function (None: size not evaluable)."""

    function: str
    transient_bytes: int | None = 0
    copied_bytes: int | None = 0
    constant_copied_bytes: int | None = 0  # copies whose source is a constant resource
    memcpy_dispatches: int = 0  # copies IREE does in a dispatch (`*_slow_memcpy`)
    memcpy_bytes: int | None = 0  # what those dispatches store (part of copied_bytes)


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
_COMPARE: dict[str, Callable[[int, int], bool]] = {
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "slt": lambda a, b: a < b,
    "sle": lambda a, b: a <= b, "sgt": lambda a, b: a > b, "sge": lambda a, b: a >= b,
}
_PREDICATES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]
# Element reads: of a tensor argument, they read the value `at` gives that argument.
_ELEMENT_LOADS = ("tensor.extract", "flow.tensor.load", "stream.async.load",
                  "stream.resource.load")
# Ops whose result is (one of) their operands: assumptions and workload markers.
_PASS_THROUGH = ("util.assume.int", "iree_tensor_ext.dispatch.workload.ordinal",
                 "flow.dispatch.workload.ordinal")


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
    if name == "arith.cmpi":
        a, b = (eval_index(v, at, depth + 1) for v in op.operands)
        predicate = _PREDICATES[ir.IntegerAttr(op.attributes["predicate"]).value]
        if a is None or b is None or predicate not in _COMPARE:
            return None
        return int(_COMPARE[predicate](a, b))
    if name == "arith.select":
        cond = eval_index(op.operands[0], at, depth + 1)
        return None if cond is None else eval_index(op.operands[2 - bool(cond)], at, depth + 1)
    if name in _PASS_THROUGH:
        number = value.result_number if name == "util.assume.int" else 0
        return eval_index(op.operands[number], at, depth + 1)
    if name == "affine.apply":
        return _eval_affine(op, at, depth)
    if name in _ELEMENT_LOADS:
        argument = _first_element_argument(op)
        return None if argument is None else at.get(f"arg{argument}")
    if name == "tensor.dim":
        index = eval_index(op.operands[1], {}, depth + 1)
        argument = _argument_behind(op.operands[0], 0)
        return None if index is None or argument is None else at.get(f"arg{argument}.dim{index}")
    if name == "hal.buffer_view.dim":
        argument = _argument_behind(op.operands[0], 0)
        index = ir.IntegerAttr(op.attributes["index"]).value
        return None if argument is None else at.get(f"arg{argument}.dim{index}")
    return None


def _eval_affine(op: ir.Operation, at: Mapping[str, int], depth: int) -> int | None:
    amap = ir.AffineMapAttr(op.attributes["map"]).value
    values = [eval_index(v, at, depth + 1) for v in op.operands]
    if None in values or len(amap.results) != 1:
        return None
    dims, syms = values[:amap.n_dims], values[amap.n_dims:]

    def walk_expr(expr: ir.AffineExpr) -> int | None:
        e = expr.maybe_downcast()
        if isinstance(e, ir.AffineConstantExpr):
            return e.value
        if isinstance(e, ir.AffineDimExpr):
            return dims[e.position]
        if isinstance(e, ir.AffineSymbolExpr):
            return syms[e.position]
        lhs, rhs = walk_expr(e.lhs), walk_expr(e.rhs)
        if lhs is None or rhs is None or (rhs == 0 and not isinstance(
                e, (ir.AffineAddExpr, ir.AffineMulExpr))):
            return None
        if isinstance(e, ir.AffineAddExpr):
            return lhs + rhs
        if isinstance(e, ir.AffineMulExpr):
            return lhs * rhs
        if isinstance(e, ir.AffineFloorDivExpr):
            return lhs // rhs
        if isinstance(e, ir.AffineCeilDivExpr):
            return -(-lhs // rhs)
        if isinstance(e, ir.AffineModExpr):
            return lhs % rhs
        return None

    return walk_expr(amap.results[0])


def _first_element_argument(load: ir.Operation) -> int | None:
    """The function argument whose first element `load` reads (through imports, transfers,
    IREE's staging copies), or None."""
    # stream loads take (source, source size, byte offset); tensor loads element indices
    where = list(load.operands)[-1:] if load.name.startswith("stream.") else \
        list(load.operands)[1:]
    if any(eval_index(v, {}) != 0 for v in where):
        return None  # not element 0 (or not a constant index)
    return _argument_behind(load.operands[0], 0)


def _argument_behind(value: ir.Value, depth: int) -> int | None:
    """The entry argument a tensor/resource value is a copy or import of."""
    if depth > 16:
        return None
    owner = value.owner
    if isinstance(owner, ir.Block):
        parent = owner.owner.operation
        if parent.name in ops.FUNCTION_OPS:
            return value.arg_number
        if parent.name == "stream.cmd.execute":  # region arguments are its first operands
            return _argument_behind(parent.operands[value.arg_number], depth + 1)
        return None
    op = owner.operation
    if op.name in ("hal.tensor.import", "stream.tensor.import"):
        return _argument_behind(op.operands[_imported_operand(op)], depth + 1)
    if op.name in ("stream.async.transfer", "flow.tensor.reshape", "tensor.cast"):
        return _argument_behind(op.operands[0], depth + 1)
    if op.name == "stream.timepoint.await":  # results are its first operands, in order
        return _argument_behind(op.operands[value.result_number], depth + 1)
    if op.name == "stream.resource.alloca":
        return _copied_into(value, depth)
    return None


def _imported_operand(op: ir.Operation) -> int:
    """The buffer view operand of an import (IREE prints `wait(%fence) => %view`)."""
    for i, v in enumerate(op.operands):
        if "buffer_view" in str(v.type):
            return i
    return 0


def _copied_into(staging: ir.Value, depth: int) -> int | None:
    """What a `stream.cmd.copy` in an execute region fills the allocation `staging` from."""
    for use in staging.uses:
        execute = use.owner.operation
        if execute.name != "stream.cmd.execute" or not execute.regions:
            continue
        args = execute.regions[0].blocks[0].arguments
        if use.operand_number >= len(args):
            continue
        target = args[use.operand_number]
        for op in walk(execute):
            resources = [v for v in op.operands if "stream.resource" in str(v.type)]
            if op.name == "stream.cmd.copy" and len(resources) == 2 and resources[1] == target:
                return _argument_behind(resources[0], depth + 1)
    return None


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
        argument = _argument_behind(value, 0)
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
    if name == "tensor.extract" and _first_element_argument(op) is not None:
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


# --- IREE stream counts --------------------------------------------------------------

# Copy-like ops: the copied length is the last operand; the source is this operand.
_COPIES = {"stream.cmd.copy": 0, "stream.async.copy": 4, "stream.async.update": 4,
           "stream.async.slice": 0}

def stream_counts(stream_module: ir.Module, at: Mapping[str, int] | None = None
                  ) -> list[StreamCounts]:
    """Per function of IREE's stream output, transient and copied bytes at `at`; a function
    is charged what the functions it calls do as well."""
    entries = _dispatch_entries(stream_module)
    own: dict[str, StreamCounts] = {}
    calls: dict[str, list[str]] = {}
    for fn in functions(stream_module):
        if is_device_code(fn):
            continue  # dispatches: their copies are counted where the host launches them
        name = symbol_name(fn)
        counts = own[name] = StreamCounts(name)
        calls[name] = []
        for op in walk(fn):
            if op.name in ops.CALL_OPS:
                calls[name].append(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
            _count(op, counts, at or {}, entries)
    return [_with_callees(name, own, calls, set()) for name in own]


def _with_callees(name: str, own: dict[str, StreamCounts], calls: dict[str, list[str]],
                  active: set[str]) -> StreamCounts:
    total = StreamCounts(name)
    if name in active:  # recursion: each function counted once per call chain
        return total
    active = active | {name}
    parts = [own[name]] + [_with_callees(c, own, calls, active) for c in calls[name] if c in own]
    for part in parts:
        total.transient_bytes = _plus(total.transient_bytes, part.transient_bytes)
        total.copied_bytes = _plus(total.copied_bytes, part.copied_bytes)
        total.constant_copied_bytes = _plus(total.constant_copied_bytes,
                                            part.constant_copied_bytes)
        total.memcpy_dispatches += part.memcpy_dispatches
        total.memcpy_bytes = _plus(total.memcpy_bytes, part.memcpy_bytes)
    return total


def _dispatch_entries(module: ir.Module) -> dict[str, ir.Operation]:
    """`exe::entry` -> the entry's function inside the `stream.executable`."""
    found: dict[str, ir.Operation] = {}
    for op in module.body.operations:
        if op.operation.name != "stream.executable":
            continue
        exe = symbol_name(op)
        for inner in walk(op):
            if inner.name == "func.func":
                found[f"{exe}::{symbol_name(inner)}"] = inner
    return found


def _memcpy_bytes(dispatch: ir.Operation, at: Mapping[str, int],
                  entries: Mapping[str, ir.Operation]) -> int | None:
    """Bytes a `*_slow_memcpy` dispatch stores: its stores' sizes, with the dispatch's
    uniform operands (evaluated at `at` in the caller) bound to the entry's arguments."""
    entry_text = str(dispatch.attributes["entry_points"]).strip("[]")
    refs = [part.strip().lstrip("@") for part in entry_text.split("::@")]
    fn = entries.get("::".join(refs))
    if fn is None:
        return None
    segments = list(ir.DenseI32ArrayAttr(dispatch.attributes["operandSegmentSizes"]))
    start = segments[0]
    uniforms = list(dispatch.operands)[start:start + segments[1]]
    args = list(fn.regions[0].blocks[0].arguments)
    bindings = sum(1 for a in args if "stream.binding" in str(a.type))
    inner_at: dict[str, int] = {}
    for i, value in enumerate(uniforms):
        evaluated = eval_index(value, at)
        if evaluated is not None:
            inner_at[f"arg{bindings + i}"] = evaluated
    total: int | None = 0
    for op in walk(fn):
        if op.name.endswith("dispatch.tensor.store"):
            total = _plus(total, _stored_bytes(op, inner_at))
    return total


def _stored_bytes(store: ir.Operation, at: Mapping[str, int]) -> int | None:
    static = list(ir.DenseI64ArrayAttr(store.attributes["static_sizes"]))
    segments = list(ir.DenseI32ArrayAttr(store.attributes["operandSegmentSizes"]))
    # value, target, target dims, offsets, sizes, strides
    first_size = sum(segments[:4])
    dynamic = iter(list(store.operands)[first_size:first_size + segments[4]])
    count = 1
    for size in static:
        if size == DYNAMIC:
            size = eval_index(next(dynamic), at)
            if size is None:
                return None
        count *= size
    element = shaped_element_bytes(store.operands[0].type)
    return None if element is None else count * element


def _count(op: ir.Operation, counts: StreamCounts, at: Mapping[str, int],
           entries: Mapping[str, ir.Operation]) -> None:
    if op.name == "stream.cmd.dispatch" and "memcpy" in str(op.attributes["entry_points"]):
        counts.memcpy_dispatches += 1
        size = _memcpy_bytes(op, at, entries)
        counts.memcpy_bytes = _plus(counts.memcpy_bytes, size)
        counts.copied_bytes = _plus(counts.copied_bytes, size)
    elif op.name in ops.STREAM_ALLOCATION_OPS and "<transient>" in str(op.results[0].type):
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
