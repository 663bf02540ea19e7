"""Typed access to the tensor-level ops memplan reasons about.

Slice offsets/sizes/strides as mixed int-or-Value lists, globals, and "is this
operand a destination" live here, so analyses and rewrites never handle binding
details (sentinels for dynamic sizes, operand segment layouts) themselves.
Functions, walks and values are `walk`'s; op kinds are `ops`'.
"""

from __future__ import annotations

from iree.compiler import ir

from .ops import GLOBAL_OPS
from .types import DYNAMIC
from .walk import int_constant, symbol_name, symbol_ref

# Ops that write the listed operand in place (tensor DPS destinations outside linalg,
# which says so through its `outputs`, and memref writes), and whether they keep (read)
# its other elements.
_DEST_OPERAND = {
    "tensor.insert_slice": (1, True),
    "tensor.parallel_insert_slice": (1, True),
    "tensor.insert": (1, True),
    "tensor.scatter": (1, True),
    # ins(%updates, %indices) outs(%original): the rows not scattered to are kept.
    "iree_linalg_ext.scatter": (2, True),
    "tm_tensor.scatter": (2, True),
    "memref.store": (1, False),
    "memref.copy": (1, False),
    "vector.store": (1, False),
    "vector.transfer_write": (1, False),
}


def mixed(op: ir.OpView, kind: str) -> list[int | ir.Value]:
    """Offsets, sizes or strides of a slice op, each a static int or an SSA value."""
    static = list(getattr(op, f"static_{kind}"))
    dynamic = iter(getattr(op, kind))
    return [next(dynamic) if s == DYNAMIC else s for s in static]


def as_int(entry: int | ir.Value) -> int | None:
    return entry if isinstance(entry, int) else int_constant(entry)


def global_symbol(op: ir.Operation | ir.OpView) -> str:
    """The global named by a load/store (`@k_cache` -> "k_cache")."""
    return symbol_ref(op, "global")


def immutable_globals(module: ir.Module) -> set[str]:
    """Names of the module's globals that are never stored to (constants by another name)."""
    return {symbol_name(op) for op in module.body.operations
            if op.operation.name in GLOBAL_OPS and "is_mutable" not in op.operation.attributes}


def is_linalg_structured(op: ir.Operation | ir.OpView) -> bool:
    # `.operation.name`: an OpView's `name` may be an attribute of the op (hal.tensor.import).
    # The class is asked, not the op: reading `outputs` would compute its operand segments.
    return op.operation.name.startswith("linalg.") and hasattr(type(op.opview), "outputs")


def destination_operands(op: ir.Operation | ir.OpView) -> list[int]:
    """Operand numbers that op writes in place (its DPS destinations)."""
    name = op.operation.name
    if is_linalg_structured(op):
        segments = _ins_outs(op.operation)
        if segments is not None:
            return list(range(segments[0], segments[0] + segments[1]))
        view = op.opview
        n_in = len(view.inputs)
        return list(range(n_in, n_in + len(view.outputs)))
    if name in _DEST_OPERAND:
        return [_DEST_OPERAND[name][0]]
    return []


def _ins_outs(op: ir.Operation) -> tuple[int, int] | None:
    """(inputs, outputs) of a linalg op from its operand segments, as its OpView's getters
    read them (without building the OpView and the operand lists); None when the op has
    other operand groups as well."""
    if "operandSegmentSizes" not in op.attributes:
        return None
    segments = ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])
    return (segments[0], segments[1]) if len(segments) == 2 else None


def is_destination(use: ir.OpOperand) -> bool:
    return use.operand_number in destination_operands(use.owner)


def reads_destination(op: ir.Operation | ir.OpView, operand_number: int) -> bool:
    """Whether op reads the old contents of the destination it writes.

    A linalg op reads its init only where its payload uses the out block argument;
    tensor inserts keep the untouched elements, so they read the rest; memref stores
    only write.
    """
    if not is_linalg_structured(op):
        return _DEST_OPERAND.get(op.operation.name, (0, True))[1]
    block_args = op.regions[0].blocks[0].arguments
    return len(list(block_args[operand_number].uses)) > 0
