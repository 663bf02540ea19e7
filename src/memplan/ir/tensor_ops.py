"""Typed access to the tensor-level ops memplan reasons about.

Functions, walks, slice offsets/sizes/strides as mixed int-or-Value lists,
integer constants, global symbols and "is this operand a destination" live
here, so analyses and rewrites never handle binding details (sentinels for
dynamic sizes, op name strings, operand segment layouts) themselves.
"""

from __future__ import annotations

from collections.abc import Iterator

from iree.compiler import ir

DYNAMIC = ir.ShapedType.get_dynamic_size()

FUNCTION_OPS = ("func.func", "util.func")
CONSTANT_OPS = ("arith.constant", "util.unfoldable_constant")
STATE_LOADS = ("util.global.load", "ml_program.global_load")  # of globals that may be stored
GLOBAL_LOADS = (*STATE_LOADS, "ml_program.global_load_const")
GLOBAL_STORES = ("util.global.store", "ml_program.global_store")
GLOBAL_DEFS = ("util.global", "ml_program.global")
# Ops that write the listed operand in place (tensor DPS destinations outside linalg,
# which says so through its `outputs`, and memref writes), and whether they keep (read)
# its other elements.
_DEST_OPERAND = {
    "tensor.insert_slice": (1, True),
    "tensor.parallel_insert_slice": (1, True),
    "tensor.insert": (1, True),
    "tensor.scatter": (1, True),
    "memref.store": (1, False),
    "memref.copy": (1, False),
    "vector.store": (1, False),
    "vector.transfer_write": (1, False),
}
# Ops whose result is a view of operand 0: writing the view writes the source.
VIEW_OPS = ("tensor.extract_slice", "tensor.cast", "tensor.expand_shape",
            "tensor.collapse_shape", "tensor.reshape", "memref.subview", "memref.cast",
            "memref.expand_shape", "memref.collapse_shape", "memref.reinterpret_cast")


def op_of(op: ir.Operation | ir.OpView) -> ir.Operation:
    return op.operation


def functions(module: ir.Module) -> list[ir.OpView]:
    """Functions with a body, in file order."""
    return [op for op in module.body.operations
            if op.operation.name in FUNCTION_OPS and len(op.regions[0].blocks) > 0]


def symbol_name(op: ir.Operation | ir.OpView) -> str:
    return ir.StringAttr(op.operation.attributes["sym_name"]).value


def walk(op: ir.Operation | ir.OpView) -> Iterator[ir.OpView]:
    """Every op nested in `op` (not `op` itself), in pre-order."""
    for region in op.operation.regions:
        for block in region.blocks:
            for inner in block.operations:
                yield inner
                yield from walk(inner)


def defining_op(value: ir.Value) -> ir.OpView | None:
    owner = value.owner  # an OpView for results, a Block for block arguments
    return None if isinstance(owner, ir.Block) else owner.operation.opview


def op_name_of(value: ir.Value) -> str | None:
    op = defining_op(value)
    return op.operation.name if op is not None else None


def const_int(value: ir.Value) -> int | None:
    """The value of an integer/index `arith.constant`, else None."""
    op = defining_op(value)
    if op is None or op.operation.name != "arith.constant":
        return None
    attr = op.operation.attributes["value"]
    return attr.value if isinstance(attr, ir.IntegerAttr) else None


def mixed(op: ir.OpView, kind: str) -> list[int | ir.Value]:
    """Offsets, sizes or strides of a slice op, each a static int or an SSA value."""
    static = list(getattr(op, f"static_{kind}"))
    dynamic = iter(getattr(op, kind))
    return [next(dynamic) if s == DYNAMIC else s for s in static]


def as_int(entry: int | ir.Value) -> int | None:
    return entry if isinstance(entry, int) else const_int(entry)


def shape(value_or_type: ir.Value | ir.Type) -> list[int | None]:
    """Dimensions of a ranked tensor, None for dynamic ones."""
    t = value_or_type.type if isinstance(value_or_type, ir.Value) else value_or_type
    ranked = ir.RankedTensorType(t)
    return [None if d == DYNAMIC else d for d in ranked.shape]


def is_tensor(value: ir.Value) -> bool:
    return isinstance(value.type, ir.RankedTensorType)


def element_bytes(t: ir.Type) -> int:
    """Bytes of one element of a shaped type (sub-byte types round up)."""
    width = ir.ShapedType(t).element_type
    if isinstance(width, ir.IndexType):
        return 8
    if isinstance(width, ir.ComplexType):
        return 2 * _scalar_bytes(width.element_type)
    return _scalar_bytes(width)


def _scalar_bytes(t: ir.Type) -> int:
    bits = getattr(t, "width", None)
    return max(1, (bits + 7) // 8) if bits else 4


def global_symbol(op: ir.OpView) -> str:
    """The global named by a load/store (`@k_cache` -> "k_cache")."""
    attr = op.operation.attributes["global"]
    return ir.FlatSymbolRefAttr(attr).value


def immutable_globals(module: ir.Module) -> set[str]:
    """Names of the module's globals that are never stored to (constants by another name)."""
    return {symbol_name(op) for op in module.body.operations
            if op.operation.name in GLOBAL_DEFS and "is_mutable" not in op.operation.attributes}


def is_linalg_structured(op: ir.OpView) -> bool:
    return op.operation.name.startswith("linalg.") and hasattr(op, "outputs")


def destination_operands(op: ir.OpView) -> list[int]:
    """Operand numbers that op writes in place (its DPS destinations)."""
    name = op.operation.name
    if is_linalg_structured(op):
        n_in = len(op.inputs)
        return list(range(n_in, n_in + len(op.outputs)))
    if name in _DEST_OPERAND:
        return [_DEST_OPERAND[name][0]]
    return []


def is_destination(use: ir.OpOperand) -> bool:
    return use.operand_number in destination_operands(use.owner.opview)


def reads_destination(op: ir.OpView, operand_number: int) -> bool:
    """Whether op reads the old contents of the destination it writes.

    A linalg op reads its init only where its payload uses the out block argument;
    tensor inserts keep the untouched elements, so they read the rest; memref stores
    only write.
    """
    if not is_linalg_structured(op):
        return _DEST_OPERAND.get(op.operation.name, (0, True))[1]
    block_args = op.regions[0].blocks[0].arguments
    return len(list(block_args[operand_number].uses)) > 0
