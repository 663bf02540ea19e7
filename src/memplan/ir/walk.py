"""Structural helpers over the bindings: functions, op order, loops, values, types.

Everything that knows how the Python bindings spell a block argument, an op's
parent or a memref's layout lives here, so the analyses read like MLIR passes.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from iree.compiler import ir

# Ops whose body runs more than once; an allocation inside runs once per iteration.
LOOP_OPS = frozenset({
    "scf.for", "scf.parallel", "scf.forall", "scf.while", "affine.for", "affine.parallel",
})
FUNCTION_OPS = frozenset({"func.func", "gpu.func", "util.func"})
# Ops with the AutomaticAllocationScope trait: a `memref.alloca` is freed when they exit.
ALLOCATION_SCOPES = FUNCTION_OPS | {"memref.alloca_scope", "affine.parallel", "async.execute",
                                    "gpu.launch"}
DYNAMIC = ir.ShapedType.get_dynamic_size()


def functions(module: ir.Module) -> list[ir.Operation]:
    """Every function with a body, in module order, looking into nested modules."""
    found: list[ir.Operation] = []

    def visit(op: ir.Operation) -> None:
        for region in op.regions:
            for block in region.blocks:
                for child in block.operations:
                    child = child.operation
                    if child.name in FUNCTION_OPS:
                        if child.regions and len(child.regions[0].blocks):
                            found.append(child)
                    else:
                        visit(child)

    visit(module.operation)
    return found


def symbol_name(op: ir.Operation) -> str:
    return ir.StringAttr(op.attributes["sym_name"]).value


def walk(op: ir.Operation) -> Iterator[ir.Operation]:
    """Ops nested in `op` (not `op` itself), in pre-order: the order they print."""
    for region in op.regions:
        for block in region.blocks:
            for child in block.operations:
                child = child.operation
                yield child
                yield from walk(child)


@dataclass(frozen=True)
class OpOrder:
    """Pre-order positions of a function's ops; `end[op]` is one past its last nested op."""

    position: dict[ir.Operation, int]
    end: dict[ir.Operation, int]

    @staticmethod
    def of(func: ir.Operation) -> OpOrder:
        position: dict[ir.Operation, int] = {}
        end: dict[ir.Operation, int] = {}

        def visit(op: ir.Operation) -> None:
            for region in op.regions:
                for block in region.blocks:
                    for child in block.operations:
                        child = child.operation
                        position[child] = len(position)
                        visit(child)
                        end[child] = len(position)

        visit(func)
        return OpOrder(position, end)


def parent_op(op: ir.Operation) -> ir.Operation | None:
    parent = op.parent
    return parent.operation if parent is not None else None


def enclosing_loops(op: ir.Operation) -> list[ir.Operation]:
    """Loops around `op` inside its function, outermost first."""
    loops: list[ir.Operation] = []
    parent = parent_op(op)
    while parent is not None and parent.name not in FUNCTION_OPS:
        if parent.name in LOOP_OPS:
            loops.append(parent)
        parent = parent_op(parent)
    return loops[::-1]


def loops_inside_allocation_scope(op: ir.Operation) -> int:
    """Loops between `op` and its automatic allocation scope: for a `memref.alloca`, the loops
    whose every iteration adds to the stack."""
    count = 0
    parent = parent_op(op)
    while parent is not None and parent.name not in ALLOCATION_SCOPES:
        count += parent.name in LOOP_OPS
        parent = parent_op(parent)
    return count


def enclosing_function(op: ir.Operation) -> ir.Operation | None:
    parent = parent_op(op)
    while parent is not None and parent.name not in FUNCTION_OPS:
        parent = parent_op(parent)
    return parent


def is_inside(op: ir.Operation, ancestor: ir.Operation) -> bool:
    parent = parent_op(op)
    while parent is not None:
        if parent == ancestor:
            return True
        parent = parent_op(parent)
    return False


def ancestor_in_block(op: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """`op` itself or the ancestor of `op` whose block is `block` (None if not nested there)."""
    current: ir.Operation | None = op
    while current is not None:
        if current.block == block:
            return current
        current = parent_op(current)
    return None


# --- values -----------------------------------------------------------------------

def defining_op(value: ir.Value) -> ir.Operation | None:
    """The op producing `value`, or None for a block argument."""
    value = value.maybe_downcast()
    if isinstance(value, ir.OpResult):
        return value.owner.operation
    return None


def block_argument_owner(value: ir.Value) -> tuple[ir.Operation, int] | None:
    """For a block argument: (op owning its region, argument number); else None."""
    value = value.maybe_downcast()
    if not isinstance(value, ir.BlockArgument):
        return None
    return value.owner.owner.operation, value.arg_number


def users(value: ir.Value) -> list[ir.Operation]:
    return [use.owner.operation for use in value.uses]


def int_constant(value: ir.Value) -> int | None:
    """The value of an `arith.constant` integer/index, else None."""
    op = defining_op(value)
    if op is None or op.name != "arith.constant":
        return None
    attr = op.attributes["value"]
    if isinstance(attr, ir.IntegerAttr):
        return ir.IntegerAttr(attr).value
    return None


# --- types ------------------------------------------------------------------------

def int_width(type_: ir.Type) -> int | None:
    """Bit width of an integer or index type (index is 64-bit on our targets)."""
    if isinstance(type_, ir.IndexType):
        return 64
    if isinstance(type_, ir.IntegerType):
        return ir.IntegerType(type_).width
    return None


def element_bytes(type_: ir.Type) -> int | None:
    """Storage bytes of one element (i1 takes a byte, as in MLIR's LLVM lowering)."""
    if isinstance(type_, ir.IndexType):
        return 8
    if isinstance(type_, ir.IntegerType):
        return (ir.IntegerType(type_).width + 7) // 8
    if isinstance(type_, ir.FloatType):
        return (ir.FloatType(type_).width + 7) // 8
    if isinstance(type_, ir.ComplexType):
        inner = element_bytes(ir.ComplexType(type_).element_type)
        return None if inner is None else 2 * inner
    if isinstance(type_, ir.VectorType):
        vector = ir.VectorType(type_)
        inner = element_bytes(vector.element_type)
        count = 1
        for dim in vector.shape:
            count *= dim
        return None if inner is None else inner * count
    return None


def shape_of(type_: ir.Type) -> tuple[int | None, ...]:
    """Static dims as ints, dynamic dims as None."""
    shaped = ir.ShapedType(type_)
    return tuple(None if d == DYNAMIC else d for d in shaped.shape)


def memory_space_name(type_: ir.Type) -> str | None:
    """`#gpu.address_space<workgroup>` → "workgroup"; other spaces as printed; None = default."""
    if not isinstance(type_, ir.MemRefType):
        return None
    space = ir.MemRefType(type_).memory_space
    if space is None:
        return None
    text = str(space)
    match = re.fullmatch(r"#gpu\.address_space<(\w+)>", text)
    return match.group(1) if match else text


def has_identity_layout(type_: ir.Type) -> bool:
    memref_type = ir.MemRefType(type_)
    identity = ir.AffineMap.get_identity(memref_type.rank, context=memref_type.context)
    return memref_type.affine_map == identity


# --- source text --------------------------------------------------------------------

@lru_cache(maxsize=16)
def _source_lines(path: str) -> tuple[str, ...]:
    try:
        return tuple(Path(path).read_text(encoding="utf-8").splitlines())
    except (OSError, UnicodeDecodeError):
        return ()


def source_argument_names(func: ir.Operation, path: str) -> list[str | None]:
    """The SSA names (`n` for `%n`) the source gives the function's arguments.

    The bindings drop SSA names when parsing, so they are read back from the
    signature at the function's location; None where that fails.
    """
    count = len(func.regions[0].blocks[0].arguments)
    loc = func.location
    try:
        line, col = loc.start_line, loc.start_col
    except AttributeError:
        return [None] * count
    lines = _source_lines(path)
    text = "\n".join(lines[line - 1: line + 40])[col - 1:]
    start = text.find("(")
    if start < 0:
        return [None] * count
    pieces, depth, current = [], 0, ""
    for char in text[start + 1:]:
        if char in "(<[{":
            depth += 1
        elif char in ")>]}" and not (char == ">" and current.endswith("-")):  # `->` in a map
            if depth == 0:
                pieces.append(current)
                break
            depth -= 1
        if char == "," and depth == 0:
            pieces.append(current)
            current = ""
        else:
            current += char
    names = [m.group(1) if (m := re.match(r"\s*%([\w$.-]+)\s*:", p)) else None for p in pieces]
    return names if len(names) == count else [None] * count
