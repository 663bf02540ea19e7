"""What running an IREE program needs: its entry points' inputs and its external parameters.

Inputs are read off the stream-level module, where IREE's ABI has made every public
function take `!hal.buffer_view`s and assert their shapes and element types
(`hal.buffer_view.assert`), whatever the input dialect was. Parameters are the
`util.global`s of the input program initialized from `#stream.parameter.named` (or
`#flow.parameter.named`): an archive of random values stands in for the weights.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iree.compiler import ir

from ...errors import InputError
from ...ir.walk import defining_op, functions, int_constant, symbol_name, walk

_PARAMETER = re.compile(r'#(?:stream|flow)\.parameter\.named<"([^"]*)"::"([^"]*)">')
_ELEMENT = re.compile(r"hal\.element_type<(\w+)>")


@dataclass(frozen=True)
class TensorSpec:
    shape: tuple[int | None, ...]  # None: a runtime size (a run needs it given)
    element: str  # MLIR spelling: f32, i64, ...


@dataclass(frozen=True)
class EntryPoint:
    function: str
    inputs: tuple[TensorSpec, ...]


@dataclass(frozen=True)
class Parameter:
    scope: str
    key: str
    spec: TensorSpec


def entry_points(module: ir.Module, name: str) -> list[EntryPoint]:
    """The public synchronous functions (not IREE's `$async` twins) and their inputs; a
    function that only calls its `$async` twin has its inputs asserted there."""
    by_name = {symbol_name(f): f for f in functions(module) if f.name == "util.func"}
    found = []
    for function, func in by_name.items():
        if "$" in function or _private(func):
            continue
        arguments = len(func.regions[0].blocks[0].arguments)
        specs = _asserted(func, function, name)
        if len(specs) != arguments and f"{function}$async" in by_name:
            specs = _asserted(by_name[f"{function}$async"], function, name)
        if sorted(specs) != list(range(arguments)):
            raise InputError(name, f"@{function}: an argument that is not a tensor "
                             "(memplan runs functions of tensors only)")
        found.append(EntryPoint(function, tuple(specs[i] for i in range(arguments))))
    return found


def _asserted(func: ir.Operation, function: str, name: str) -> dict[int, TensorSpec]:
    body = func.regions[0].blocks[0]
    specs: dict[int, TensorSpec] = {}
    for op in walk(func):
        if op.name != "hal.buffer_view.assert":
            continue
        argument = op.operands[0].maybe_downcast()
        if isinstance(argument, ir.BlockArgument) and argument.owner == body:
            specs[argument.arg_number] = _spec(op, function, name)
    return specs


def _private(func: ir.Operation) -> bool:
    return "sym_visibility" in func.attributes and \
        ir.StringAttr(func.attributes["sym_visibility"]).value == "private"


def _spec(op: ir.Operation, function: str, name: str) -> TensorSpec:
    # Operands: the buffer view, the element type, the encoding, then the shape.
    element_op = defining_op(op.operands[1])
    match = _ELEMENT.search(str(element_op)) if element_op is not None else None
    dims = [int_constant(v) for v in list(op.operands)[3:]]
    if match is None:
        raise InputError(name, f"@{function}: an input of runtime element type (memplan "
                         "makes random inputs of known element types only)")
    return TensorSpec(tuple(dims), match.group(1))


def parameters(source: ir.Module) -> list[Parameter]:
    """The external parameters the input program reads, in its order."""
    found = []
    for op in source.body.operations:
        op = op.operation
        if op.name != "util.global" or "initial_value" not in op.attributes:
            continue
        match = _PARAMETER.search(str(op.attributes["initial_value"]))
        if match is None:
            continue
        shaped = ir.RankedTensorType(ir.TypeAttr(op.attributes["type"]).value)
        found.append(Parameter(match.group(1), match.group(2),
                               TensorSpec(tuple(shaped.shape), str(shaped.element_type))))
    return found
