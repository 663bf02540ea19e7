"""The integer an index value takes at given values of the program's inputs.

`at` binds index globals by name (`seq_step`), function arguments (`arg0`), the first
element of a tensor argument (an exported position `tensor<1xi64>`: `arg1`) and a tensor
argument's dimensions (`arg0.dim1`, through `tensor.dim` or `hal.buffer_view.dim`); an
IREE stream program's imports and staging copies are followed back to the argument. Shared
by memplan's copy model (`copies.py`) and the count of IREE's stream copies
(`stream_counts.py`); affine maps are evaluated by the one affine evaluator
(`intervals.eval_affine_map`) at exact values.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from iree.compiler import ir

from ..ir import ops
from ..ir import tensor_ops as t
from ..ir.walk import int_constant, walk
from .intervals import Range, eval_affine_map

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
        argument = first_element_argument(op)
        return None if argument is None else at.get(f"arg{argument}")
    if name == "tensor.dim":
        index = eval_index(op.operands[1], {}, depth + 1)
        argument = argument_behind(op.operands[0], 0)
        return None if index is None or argument is None else at.get(f"arg{argument}.dim{index}")
    if name == "hal.buffer_view.dim":
        argument = argument_behind(op.operands[0], 0)
        index = ir.IntegerAttr(op.attributes["index"]).value
        return None if argument is None else at.get(f"arg{argument}.dim{index}")
    return None


def _eval_affine(op: ir.Operation, at: Mapping[str, int], depth: int) -> int | None:
    """An `affine.apply` at exact operands: the interval evaluator's answer when exact."""
    amap = ir.AffineMapAttr(op.attributes["map"]).value
    values = [eval_index(v, at, depth + 1) for v in op.operands]
    if None in values or len(amap.results) != 1:
        return None
    (result,) = eval_affine_map(amap, [Range.exact(v) for v in values])  # type: ignore[arg-type]
    return result.lo if result.is_exact else None


def first_element_argument(load: ir.Operation) -> int | None:
    """The function argument whose first element `load` reads (through imports, transfers,
    IREE's staging copies), or None."""
    # stream loads take (source, source size, byte offset); tensor loads element indices
    where = list(load.operands)[-1:] if load.name.startswith("stream.") else \
        list(load.operands)[1:]
    if any(eval_index(v, {}) != 0 for v in where):
        return None  # not element 0 (or not a constant index)
    return argument_behind(load.operands[0], 0)


def argument_behind(value: ir.Value, depth: int) -> int | None:
    """The entry argument a tensor/resource value is a copy or import of."""
    if depth > 16:
        return None
    owner = value.owner
    if isinstance(owner, ir.Block):
        parent = owner.owner.operation
        if parent.name in ops.FUNCTION_OPS:
            return value.arg_number
        if parent.name == "stream.cmd.execute":  # region arguments are its first operands
            return argument_behind(parent.operands[value.arg_number], depth + 1)
        return None
    op = owner.operation
    if op.name in ("hal.tensor.import", "stream.tensor.import"):
        return argument_behind(op.operands[_imported_operand(op)], depth + 1)
    if op.name in ("stream.async.transfer", "flow.tensor.reshape", "tensor.cast"):
        return argument_behind(op.operands[0], depth + 1)
    if op.name == "stream.timepoint.await":  # results are its first operands, in order
        return argument_behind(op.operands[value.result_number], depth + 1)
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
                return argument_behind(resources[0], depth + 1)
    return None
