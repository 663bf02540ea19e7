"""An IREE program's dynamic input dimensions pinned to chosen sizes (`--dim NAME=N`) or
bounded (`--dim NAME=..N`).

MLIR keeps no names for dimensions (the ONNX and torch.export importers drop them), so
memplan names them by position: `argI.J` is dimension J of argument I of every public
function, and `batch` is dimension 0 of every argument whose dimension 0 is dynamic (the
leading dimension every exporter makes the batch).

Each public function with a pinned dimension becomes private under the name
`NAME$memplan_dims`, and a public function of the old name takes the static types, casts
each argument to the old type and calls it (`tensor.cast`; `torch.tensor_static_info_cast`
for torch-dialect programs). IREE inlines the call and folds the casts, so the whole
program is compiled at those sizes: its arenas have static sizes to plan, and a run has
static inputs to make. The rest of the text is left as written (locations unchanged).

A bounded dimension stays dynamic: the wrapper states its range the way IREE's torch
input conversion states a `torch.export` range (`BindSymbolicShapes`): the size
(`tensor.dim`) through `util.assume.int<umin = 1, umax = N>`, tied to the tensor
(`flow.tensor.tie_shape`; a torch tensor is converted to a builtin one around it). IREE
carries the assumption into the stream program, where each runtime-sized slice derived
from it has a proven bound (`packs.py`): one plan for every size up to N.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Mapping
from dataclasses import dataclass

from iree.compiler import ir

from ...errors import InputError
from ...ir.load import parse_mlir
from ...ir.walk import symbol_name

_RENAMED = "$memplan_dims"
_NAME = re.compile(r"arg(\d+)\.(\d+)")
# What the wrapper says itself (its name, type and visibility) or must not copy (argument
# attributes name the old types).
_OWN = frozenset({"sym_name", "function_type", "sym_visibility", "arg_attrs", "res_attrs"})
_TORCH = re.compile(r"!torch\.vtensor<\[([^\]]*)\],(.*)>")


@dataclass(frozen=True)
class _Function:
    name: str
    line: int  # 1-based line of the `func.func`
    arguments: tuple[ir.Type, ...]
    results: tuple[ir.Type, ...]
    # The function's own attributes, spelled out for the wrapper: the torch importers' ones
    # (an ONNX opset version, say) are read by IREE's input conversion on every function.
    attributes: str


Bounded = dict[str, dict[tuple[int, int], int]]  # per public function, (argument, dim): N


@dataclass(frozen=True)
class Corners:
    """Sizes a bounded program is checked at (`corners`)."""

    points: tuple[Bounded, ...]  # each a size for every bounded dimension, small first
    every_corner: bool  # False: past the cap, the corners listed under `corners` only
    dims: int  # how many bounded dimensions
    corners: int  # how many distinct corners are among the points


def corners(bounded: Bounded, cap: int) -> Corners:
    """Every corner of the bounded dimensions (each at 1 or at its bound: 2^k of them for k
    dimensions) and the middle (each at half its bound, rounded up). Past `cap` points
    the corners are not all taken, since they double with each dimension: all at 1, all at
    their bound, and each dimension alone at one end with the others at the other end
    (2 + 2k corners), and the middle."""
    keys = [(f, d) for f, dims in bounded.items() for d in dims]
    ends = [sorted({1, bounded[f][d]}) for f, d in keys]
    count = 1
    for e in ends:
        count *= len(e)
    every = count + 1 <= cap
    if every:
        combos = list(itertools.product(*ends))
    else:
        low, high = [e[0] for e in ends], [e[-1] for e in ends]
        combos = [tuple(low), tuple(high)]
        for k in range(len(keys)):
            combos += [tuple(high[:k] + [low[k]] + high[k + 1:]),
                       tuple(low[:k] + [high[k]] + low[k + 1:])]
    taken = len(set(combos))
    combos.append(tuple((bounded[f][d] + 1) // 2 for f, d in keys))
    points: list[Bounded] = []
    for combo in sorted(dict.fromkeys(combos), key=sum):
        point: Bounded = {f: {} for f in bounded}
        for (f, d), value in zip(keys, combo, strict=True):
            point[f][d] = value
        points.append(point)
    return Corners(tuple(points), every, len(keys), taken)


def pin_dims(source: bytes, path: str, dims: Mapping[str, int],
             bounds: Mapping[str, int] | None = None) -> tuple[bytes, str, Bounded]:
    """The program with the dimensions named in `dims` pinned and those in `bounds`
    bounded (at most the value), what was done (for a note) and the bounded dimensions
    of each function."""
    bounds = bounds or {}
    text = source.decode()
    functions = _public_functions(text, path)
    dynamic = {f.name: _dynamic_dims(f.arguments) for f in functions}
    offered = sorted({f"arg{i}.{j}" for dims_ in dynamic.values() for i, j in dims_}
                     | ({"batch"} if any(j == 0 for d in dynamic.values() for _, j in d)
                        else set()))
    if not offered:
        raise InputError(path, "--dim: the program's public functions take no input of "
                         "dynamic shape")
    for name, value in [*dims.items(), *bounds.items()]:
        shown = f"{name}={'..' if name in bounds else ''}{value}"
        if name not in offered:
            raise InputError(path, f"--dim {name}: not a dynamic input dimension of the program "
                             f"(memplan names them: {', '.join(offered)})")
        if value < 1:
            raise InputError(path, f"--dim {shown}: a dimension is at least 1")
        if name in dims and name in bounds:
            raise InputError(path, f"--dim {name}: given both a size and a bound")
    lines = text.splitlines(keepends=True)
    pinned, bounded = [], {}
    for function in sorted(functions, key=lambda f: -f.line):  # later lines first
        sizes, most = {}, {}
        for i, j in dynamic[function.name]:
            for given, into in ((dims, sizes), (bounds, most)):
                value = given.get(f"arg{i}.{j}", given.get("batch") if j == 0 else None)
                if value is not None:
                    into[(i, j)] = value
        if not sizes and not most:
            continue
        index = function.line - 1
        header = re.sub(r"func\.func\s+(?:public\s+)?@" + re.escape(function.name) + r"\(",
                        f"func.func private @{function.name}{_RENAMED}(", lines[index], count=1)
        if header == lines[index]:
            raise InputError(path, f"--dim: cannot rename @{function.name} on line "
                             f"{function.line} (its `func.func` header is not on one line)")
        lines[index] = _wrapper(function, sizes, most) + header
        if most:
            bounded[function.name] = most
        pinned.append(f"@{function.name} " + ", ".join(
            [f"arg{i}.{j}={v}" for (i, j), v in sorted(sizes.items())]
            + [f"arg{i}.{j}=..{v}" for (i, j), v in sorted(most.items())]))
    return "".join(lines).encode(), "; ".join(reversed(pinned)), bounded


def _public_functions(text: str, path: str) -> list[_Function]:
    module = parse_mlir(text, path)
    found = []
    for op in module.body.operations:
        op = op.operation
        if op.name != "func.func" or len(op.regions[0].blocks) == 0:
            continue
        if "sym_visibility" in op.attributes and \
                ir.StringAttr(op.attributes["sym_visibility"]).value != "public":
            continue
        loc = op.location
        try:
            line = loc.start_line
        except AttributeError:
            continue  # no line to rewrite at (a fused or unknown location)
        kind = ir.FunctionType(ir.TypeAttr(op.attributes["function_type"]).value)
        kept = [op.attributes[k] for k in range(len(op.attributes))]
        attributes = ", ".join(f"{a.name} = {a.attr}" for a in kept if a.name not in _OWN)
        found.append(_Function(symbol_name(op), line, tuple(kind.inputs), tuple(kind.results),
                               attributes))
    return found


def _dynamic_dims(arguments: tuple[ir.Type, ...]) -> list[tuple[int, int]]:
    dims = []
    for i, type_ in enumerate(arguments):
        shape = _shape(type_)
        dims += [(i, j) for j, d in enumerate(shape or ()) if d is None]
    return dims


def _shape(type_: ir.Type) -> list[int | None] | None:
    if isinstance(type_, ir.RankedTensorType):
        return [None if ir.ShapedType.is_dynamic_size(d) else d for d in type_.shape]
    match = _TORCH.fullmatch(str(type_))
    if match is None or not match.group(1):
        return None
    return [None if d == "?" else int(d) for d in match.group(1).split(",")]


def _static(type_: ir.Type, i: int, sizes: Mapping[tuple[int, int], int]) -> str:
    shape = _shape(type_)
    if shape is None or not any((i, j) in sizes for j in range(len(shape))):
        return str(type_)
    pinned = [sizes.get((i, j), d) for j, d in enumerate(shape)]
    if isinstance(type_, ir.RankedTensorType):
        dims = "".join(f"{'?' if d is None else d}x" for d in pinned)
        return f"tensor<{dims}{type_.element_type}>"
    match = _TORCH.fullmatch(str(type_))
    assert match is not None
    dims = ",".join("?" if d is None else str(d) for d in pinned)
    return f"!torch.vtensor<[{dims}],{match.group(2)}>"


def _wrapper(function: _Function, sizes: Mapping[tuple[int, int], int],
             bounds: Mapping[tuple[int, int], int]) -> str:
    arguments, casts, operands = [], [], []
    for i, type_ in enumerate(function.arguments):
        static = _static(type_, i, sizes)
        arguments.append(f"%arg{i}: {static}")
        operand = f"%arg{i}"
        if static != str(type_):
            op = "torch.tensor_static_info_cast" if static.startswith("!torch.") \
                else "tensor.cast"
            casts.append(f"    %cast{i} = {op} %arg{i} : {static} to {type_}\n")
            operand = f"%cast{i}"
        if any(i == k for k, _ in bounds):
            operand = _bounded(operand, i, type_, bounds, casts)
        operands.append(operand)
    results = ", ".join(str(t) for t in function.results)
    kinds = ", ".join(str(t) for t in function.arguments)
    names = ", ".join(f"%r#{k}" for k in range(len(function.results))) if \
        len(function.results) > 1 else "%r"
    call = f"call @{function.name}{_RENAMED}({', '.join(operands)}) : ({kinds}) -> ({results})"
    if function.results:
        body = f"    %r{':' + str(len(function.results)) if len(function.results) > 1 else ''}" \
            f" = {call}\n    return {names} : {results}\n"
    else:
        body = f"    {call}\n    return\n"
    attributes = f" attributes {{{function.attributes}}}" if function.attributes else ""
    return (f"func.func @{function.name}({', '.join(arguments)}) -> ({results}){attributes} {{\n"
            + "".join(casts) + body + "  }\n  ")


def _bounded(operand: str, i: int, type_: ir.Type, bounds: Mapping[tuple[int, int], int],
             lines: list[str]) -> str:
    """`operand` (argument `i`, of `type_`) with its bounded dimensions assumed at most their
    bound: the lines that say so appended to `lines`, the value to pass on returned."""
    shape = _shape(type_)
    assert shape is not None
    builtin = _builtin(type_)
    value = operand
    if builtin != str(type_):
        lines.append(f"    %builtin{i} = torch_c.to_builtin_tensor {operand} : {type_} -> "
                     f"{builtin}\n")
        value = f"%builtin{i}"
    extents = []
    for j, d in enumerate(shape):
        if d is not None:
            continue
        lines.append(f"    %dim{i}_{j} = tensor.dim {value}, %c{j}_{i} : {builtin}\n")
        lines.insert(len(lines) - 1, f"    %c{j}_{i} = arith.constant {j} : index\n")
        extent = f"%dim{i}_{j}"
        if (i, j) in bounds:
            lines.append(f"    %most{i}_{j} = util.assume.int {extent}<umin = 1, umax = "
                         f"{bounds[(i, j)]}> : index\n")
            extent = f"%most{i}_{j}"
        extents.append(extent)
    lines.append(f"    %tied{i} = flow.tensor.tie_shape {value} : {builtin}"
                 f"{{{', '.join(extents)}}}\n")
    if builtin == str(type_):
        return f"%tied{i}"
    lines.append(f"    %bounded{i} = torch_c.from_builtin_tensor %tied{i} : {builtin} -> "
                 f"{type_}\n")
    return f"%bounded{i}"


def _builtin(type_: ir.Type) -> str:
    """The builtin tensor type of a tensor argument (a torch tensor's, converted)."""
    if isinstance(type_, ir.RankedTensorType):
        return str(type_)
    match = _TORCH.fullmatch(str(type_))
    assert match is not None
    shape = _shape(type_)
    assert shape is not None
    dims = "".join(f"{'?' if d is None else d}x" for d in shape)
    element = re.sub(r"^si(?=\d)", "i", match.group(2))  # torch's signed ints are signless
    return f"tensor<{dims}{element}>"


__all__ = ["Bounded", "Corners", "corners", "pin_dims"]
