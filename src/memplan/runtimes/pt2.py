"""Read a `torch.export.save`d program (.pt2) without running anything it holds.

A .pt2 is a zip archive. `torch.export.load` unpickles with no restriction in five
places, each of which runs whatever code the file's author put there:
- a weight or tensor constant whose payload config says `use_pickle`
  (`torch.load(..., weights_only=False)` in `pt2_archive/_package.py`);
- a constant named `opaque_obj_*` (`pickle.loads`) or `custom_obj_*` (TorchScript's
  unpickler, which builds script objects);
- the legacy layouts `data/weights/MODEL.pt` and `data/constants/MODEL.pt`, and the sample
  inputs, through `serde.deserialize_torch_artifact`, which retries with
  `weights_only=False` when the safe load fails;
- the archive format before `archive_format` existed (the same fallback);
- `data/aotinductor/`: compiled shared libraries, loaded and so executed.

`check_archive` reads the zip's directory and the payload configs itself, before torch
sees the file, and refuses each of these with one line saying which member and why. It
also bounds what torch would read: every member by its declared size against the file
(stored members) and the deflate ratio (compressed ones, whose declared size is what
torch's reader allocates and the most it inflates), their total, each weight's extent
against the bytes its record holds (an empty record makes torch allocate the declared
shape as zeros), and each graph tensor's bytes. Torch's deserializer also reads
strings as code: each symbolic size (`as_expr.expr_str`) goes to `sympy.sympify`,
which evaluates it; each node's `target` names a callable that shape checking then
calls; each `guards_code` line becomes Python that `ExportedProgram.module()`
compiles. `_check_strings` holds every one of them to a strict grammar
(`sym_expr_problem`, `target_problem`, `guard_problem`) and refuses the file
otherwise. `load_exported` then loads with every unpickling entry point of torch's
loader held to `weights_only=True`: a path this module did not foresee is refused, not
run. docs/reliability.md states the trust model.
"""

from __future__ import annotations

import ast
import contextlib
import json
import logging
import os
import re
import warnings
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..limits import MAX_VALUE

# Total bytes of the archive's members once inflated: torch holds all of them at once.
MAX_ARCHIVE_BYTES = 2**32
MAX_MEMBERS = 100_000
# Deflate's own limit is about 1,032:1. torch.export.save stores every member uncompressed;
# an archive someone recompressed stays far below this ratio, a bomb far above.
MAX_DEFLATE_RATIO = 100
# JSON members (the graph, the payload configs) are parsed whole, in memory.
MAX_JSON_BYTES = 512 << 20

# Names inside the archive, after the top folder (torch's reader strips it).
_FORMAT, _VERSION = "archive_format", "archive_version"
_MODELS, _WEIGHTS, _CONSTANTS = "models/", "data/weights/", "data/constants/"
_AOTI = "data/aotinductor/"
_WEIGHTS_CONFIG = "data/weights/{}_weights_config.json"
_CONSTANTS_CONFIG = "data/constants/{}_constants_config.json"
_PICKLED_OBJECT_PREFIXES = ("custom_obj_", "opaque_obj_")


@dataclass(frozen=True)
class Member:
    name: str  # inside the archive's top folder
    entry: str  # the zip entry's own name
    size: int  # declared, inflated
    compressed: int


@dataclass(frozen=True)
class Archive:
    path: str
    members: dict[str, Member]
    models: tuple[str, ...]  # names of the exported programs (models/NAME.json)


class _Refused(BaseException):
    """Raised from inside torch's loader when it asks to unpickle without restriction.
    A BaseException so that torch's own `except Exception` fallbacks cannot swallow it."""


def quiet_torch() -> None:
    """Silence torch's and ExecuTorch's own logging and warnings for this process: memplan
    reports their failures itself, in one line. Call before ExecuTorch is imported (its
    import logs a deprecation through torch's logger)."""
    import torch  # noqa: F401 - importing torch installs the handler silenced here

    for name in ("torch", "executorch", "torchao"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    for module in ("torch", "executorch", "torchao"):
        warnings.filterwarnings("ignore", module=module)


def check_archive(path: str | Path) -> Archive:
    """The archive's members, or an InputError naming the member that cannot be read safely."""
    shown = str(path)
    try:
        size = os.stat(path).st_size
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_MEMBERS:
                raise InputError(shown, f"{len(infos):,} archive members; memplan reads at "
                                 f"most {MAX_MEMBERS:,}")
            members = _members(shown, infos, size)
            models = _check_layout(shown, members)
            for model in models:
                _check_payloads(shown, archive, members, model, _WEIGHTS_CONFIG, _WEIGHTS)
                _check_payloads(shown, archive, members, model, _CONSTANTS_CONFIG, _CONSTANTS)
                program = _json(shown, archive, members, f"{_MODELS}{model}.json")
                _check_strings(shown, program)
                _check_graph(shown, program)
    except FileNotFoundError:
        raise InputError(shown, "no such file") from None
    except zipfile.BadZipFile as err:
        raise InputError(shown, f"not a torch.export program (a .pt2 is a zip archive: "
                         f"{err})") from None
    except OSError as err:
        raise InputError(shown, f"cannot read: {err.strerror or err}") from None
    return Archive(shown, members, models)


def load_exported(path: str | Path) -> Any:
    """The `torch.export.ExportedProgram` in a checked archive; a bad file is an InputError."""
    import torch

    check_archive(path)
    quiet_torch()
    try:
        with _no_unrestricted_unpickling():
            exported = torch.export.load(str(path))
    except _Refused as refused:
        raise InputError(str(path), f"refused: torch would unpickle {refused} without "
                         "restriction, which can run code; memplan never does") from None
    except Exception as err:  # torch raises many kinds; the user needs one line
        while err.__cause__ or err.__context__:  # torch's outer message points at its log
            err = err.__cause__ or err.__context__
        reason = " ".join(str(err).split())[:200] or type(err).__name__
        if "warnings above" in reason:  # the log we silenced: say what it means
            reason = "the archive holds no exported program torch can read"
        raise InputError(str(path), f"not a torch.export program ({reason})") from None
    check_program(str(path), exported)
    return exported


@dataclass(frozen=True)
class SymbolicDim:
    """A symbol of the program's input shapes, where it first appears."""

    name: str  # torch's symbol, e.g. "s77"
    input: str
    axis: int
    lower: int
    upper: int | None  # None: unbounded


def symbolic_dims(exported: Any) -> dict[str, SymbolicDim]:
    """The symbols of the user inputs' shapes (torch.export's dynamic dimensions)."""
    users = set(exported.graph_signature.user_inputs)
    found: dict[str, SymbolicDim] = {}
    for node in exported.graph.nodes:
        if node.op != "placeholder" or node.name not in users:
            continue
        for axis, d in enumerate(getattr(node.meta.get("val"), "shape", ())):
            if isinstance(d, int):
                continue
            for symbol in sorted(d.node.expr.free_symbols, key=str):
                bounds = exported.range_constraints.get(symbol)
                lower = int(bounds.lower) if bounds is not None else 0
                upper = int(bounds.upper) if bounds is not None and bounds.upper.is_finite \
                    else None
                found.setdefault(str(symbol), SymbolicDim(str(symbol), node.name, axis,
                                                          lower, upper))
    return found


def specialise(path: str, exported: Any, dims: dict[str, int]) -> Any:
    """`exported` exported again with the symbols named in `dims` fixed to their values
    (--dim), the others left dynamic; torch.export's own checks judge the result."""
    import torch
    from torch.utils import _pytree

    if not dims:
        return exported
    known = symbolic_dims(exported)
    shown = ", ".join(f"{d.name} ({d.input} dim {d.axis})" for d in known.values())
    for name, value in dims.items():
        d = known.get(name)
        if d is None:
            raise InputError(path, f"--dim {name}: no input dimension of the program is that "
                             f"symbol (its: {shown or 'none: every input shape is static'})")
        if value < d.lower or (d.upper is not None and value > d.upper):
            raise InputError(path, f"--dim {name}={value}: outside the range the program was "
                             f"exported for ([{d.lower}, {d.upper or 'unbounded'}])")
    # An unpinned symbol gets an example value torch does not specialise on (0 and 1 are).
    values = {name: dims.get(name, max(d.lower, 2) if d.upper is None or d.upper >= 2
                             else d.lower) for name, d in known.items()}
    users = set(exported.graph_signature.user_inputs)
    flat, specs = [], []
    for node in exported.graph.nodes:
        if node.op != "placeholder" or node.name not in users:
            continue
        val = node.meta.get("val")
        if not isinstance(val, torch.Tensor):
            raise InputError(path, f"--dim: input {node.name} is not a tensor; memplan "
                             "specialises tensor inputs only")
        shape, spec = [], {}
        for axis, d in enumerate(val.shape):
            if isinstance(d, int):
                shape.append(d)
                continue
            expr = d.node.expr
            shape.append(int(expr.subs({s: values[str(s)] for s in expr.free_symbols})))
            if any(str(s) not in dims for s in expr.free_symbols):
                spec[axis] = torch.export.Dim.AUTO
        flat.append(torch.zeros(shape, dtype=val.dtype))
        specs.append(spec or None)
    args, kwargs = _pytree.tree_unflatten(flat, exported.call_spec.in_spec)
    dynamic = None
    if any(specs):
        dynamic = _pytree.tree_unflatten(specs, exported.call_spec.in_spec)
        dynamic = (*dynamic[0], *dynamic[1].values())  # positional, then keyword order
    try:
        return torch.export.export(exported.module(), tuple(args), kwargs,
                                   dynamic_shapes=dynamic, strict=False)
    except Exception as err:  # noqa: BLE001 - torch's many kinds, said in one line
        reason = " ".join(str(err).split())[:200] or type(err).__name__
        raise InputError(path, f"--dim: torch.export cannot specialise the program at "
                         f"{', '.join(f'{k}={v}' for k, v in dims.items())}: {reason}") from None


def check_program(path: str, exported: Any) -> None:
    """The loaded program is consistent: each weight has the shape and dtype the graph
    expects of it, and the graph passes torch's own shape checks on fake tensors (a
    corrupted operator argument, such as a zero stride or negative padding, fails there,
    before ExecuTorch lowers it)."""
    import torch
    from torch._guards import detect_fake_mode
    from torch.export.graph_signature import InputKind
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp

    placeholders = {n.name: n for n in exported.graph.nodes if n.op == "placeholder"}
    stored = {**exported.state_dict, **exported.constants}
    for spec in exported.graph_signature.input_specs:
        if spec.kind not in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
            continue
        tensor = stored.get(spec.target)
        node = placeholders.get(getattr(spec.arg, "name", ""))
        val = node.meta.get("val") if node is not None else None
        if not isinstance(tensor, torch.Tensor) or not isinstance(val, torch.Tensor):
            continue
        if tensor.dtype != val.dtype or list(tensor.shape) != list(val.shape):
            raise InputError(path, f"weight '{_short(spec.target)}' is {tensor.dtype} "
                             f"{list(tensor.shape)}; the graph uses it as {val.dtype} "
                             f"{list(val.shape)}")
    values = [n.meta.get("val") for n in placeholders.values()]
    mode = detect_fake_mode([v for v in values if isinstance(v, torch.Tensor)])
    try:
        FakeTensorProp(exported.graph_module, mode).propagate_dont_convert_inputs(*values)
    except Exception as err:  # any operator's own check: the program, not memplan
        text = str(err).strip()
        node = re.search(r"While executing %(\S+)", text)
        where = f" at node {node.group(1)}" if node else ""
        first = text.splitlines()[0][:200] if text else type(err).__name__
        raise InputError(path, f"the graph fails torch's shape checks{where}: {first}") \
            from None


# --- the archive's directory ----------------------------------------------------------

def _members(path: str, infos: list[zipfile.ZipInfo], file_size: int) -> dict[str, Member]:
    """Each member by its name under the top folder, its sizes checked against the file."""
    members: dict[str, Member] = {}
    top = None
    total = 0
    for info in infos:
        name = info.filename
        if info.is_dir():
            continue
        folder, _, inner = name.partition("/")
        parts = name.split("/")
        # zipfile cuts a name at its first NUL; torch's reader (miniz) does not, so the two
        # would name the member differently.
        if "\0" in info.orig_filename:
            raise InputError(path, f"archive member '{_short(name)}' has a NUL in its name")
        if name.startswith("/") or "\\" in name or any(p in ("", ".", "..") for p in parts):
            raise InputError(path, f"archive member '{_short(name)}' is not a plain path "
                             "inside the top folder (empty, '.' or '..' component, or absolute)")
        if not inner:
            raise InputError(path, "not a torch.export program (the archive holds no exported "
                             f"program: member '{_short(name)}' is outside a top folder, "
                             "where torch.export.save puts every member)")
        if top is None:
            top = folder
        elif folder != top:
            raise InputError(path, f"archive member '{_short(name)}' is outside the top "
                             f"folder '{_short(top)}'")
        if inner in members:
            raise InputError(path, f"archive member '{_short(name)}' appears twice")
        if info.compress_type == zipfile.ZIP_STORED:
            if info.file_size != info.compress_size:
                raise InputError(path, f"archive member '{_short(name)}' is stored with "
                                 f"{info.compress_size:,} bytes but declares {info.file_size:,}")
        elif info.compress_type == zipfile.ZIP_DEFLATED:
            if info.file_size > MAX_DEFLATE_RATIO * max(info.compress_size, 1):
                raise InputError(path, f"archive member '{_short(name)}' inflates "
                                 f"{info.compress_size:,} bytes to {info.file_size:,} (more "
                                 f"than {MAX_DEFLATE_RATIO}:1: a zip bomb, not a model)")
        else:
            raise InputError(path, f"archive member '{_short(name)}' uses compression method "
                             f"{info.compress_type}; torch reads stored and deflated members")
        if info.header_offset + info.compress_size > file_size:
            raise InputError(path, f"archive member '{_short(name)}' ends past the end of the "
                             "file (truncated?)")
        total += info.file_size
        if total > MAX_ARCHIVE_BYTES:
            raise InputError(path, f"the archive's members hold more than "
                             f"{MAX_ARCHIVE_BYTES:,} bytes; memplan reads at most that")
        members[inner] = Member(inner, name, info.file_size, info.compress_size)
    return members


def _check_layout(path: str, members: dict[str, Member]) -> tuple[str, ...]:
    """The archive is torch.export's current format, with nothing torch would execute."""
    if _FORMAT not in members:
        raise InputError(path, "not a torch.export program of torch 2.8 or later (no "
                         "archive_format member; older archives are loaded by unpickling)")
    for name in members:
        if name.startswith(_AOTI):
            raise InputError(path, f"refused: '{_short(name)}' is AOTInductor compiled code, "
                             "which loading would run; memplan runs no code from a model")
        for folder in (_WEIGHTS, _CONSTANTS):
            if name.startswith(folder) and name.endswith(".pt") and "/" not in name[len(folder):]:
                raise InputError(path, f"refused: '{_short(name)}' is a pickled payload of "
                                 "the legacy layout, which torch unpickles without "
                                 "restriction; re-save the program with torch.export.save")
    models = tuple(sorted(name[len(_MODELS):-len(".json")] for name in members
                          if name.startswith(_MODELS) and name.endswith(".json")))
    if not models:
        raise InputError(path, "not a torch.export program (the archive holds no exported "
                         "program: no models/*.json member)")
    return models


def _check_payloads(path: str, archive: zipfile.ZipFile, members: dict[str, Member],
                    model: str, config_name: str, folder: str) -> None:
    """No pickled payload, and every tensor within the bytes of its record."""
    name = config_name.format(model)
    if name not in members:
        return  # torch refuses the archive itself, naming the missing config
    config = _json(path, archive, members, name)
    entries = config.get("config") if isinstance(config, dict) else None
    if not isinstance(entries, dict):
        raise InputError(path, f"'{name}': no payload config")
    for fqn, entry in entries.items():
        if not isinstance(entry, dict):
            raise InputError(path, f"'{name}': entry '{_short(fqn)}' is not an object")
        record = str(entry.get("path_name", ""))
        if entry.get("use_pickle") or record.startswith(_PICKLED_OBJECT_PREFIXES):
            raise InputError(path, f"refused: '{_short(fqn)}' ({folder}{_short(record)}) is a "
                             "pickled payload, which torch unpickles without restriction and "
                             "which can run code; memplan reads tensors only")
        member = members.get(folder + record)
        if member is None:
            continue  # torch names the missing record
        needed = _tensor_extent(entry.get("tensor_meta"))
        if needed is None:
            raise InputError(path, f"'{name}': '{_short(fqn)}' has no readable tensor_meta "
                             "(integer sizes, strides and storage offset, a known dtype)")
        if needed > member.size:
            raise InputError(path, f"'{_short(fqn)}' spans {needed:,} bytes but its record "
                             f"{folder}{_short(record)} holds {member.size:,}")


def _tensor_extent(meta: Any) -> int | None:
    """Bytes from the storage's start to the tensor's last element; None if unreadable."""
    if not isinstance(meta, dict):
        return None
    itemsize = _itemsize(meta.get("dtype"))
    sizes = _ints(meta.get("sizes"))
    strides = _ints(meta.get("strides"))
    offset = _ints([meta.get("storage_offset")])
    if itemsize is None or sizes is None or strides is None or offset is None \
            or len(sizes) != len(strides) or any(v < 0 for v in (*sizes, *strides, *offset)):
        return None
    if 0 in sizes:
        return 0
    last = offset[0] + sum((n - 1) * s for n, s in zip(sizes, strides, strict=True))
    return (last + 1) * itemsize


def _check_graph(path: str, program: Any) -> None:
    """Every tensor of every graph (nested ones too) within memplan's byte limit."""
    stack = [program]
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, dict):
            tensors = value.get("tensor_values")
            if isinstance(tensors, dict):
                for name, meta in tensors.items():
                    _check_tensor(path, name, meta)
            stack.extend(value.values())


def _check_tensor(path: str, name: str, meta: Any) -> None:
    if not isinstance(meta, dict):
        return
    itemsize = _itemsize(meta.get("dtype")) or 1
    sizes = meta.get("sizes", [])
    if not isinstance(sizes, list):  # a mutated field (an integer, a string): not a shape
        raise InputError(path, f"tensor '{_short(name)}': sizes is not a list")
    count = 1
    for i, dim in enumerate(sizes):
        value = dim.get("as_int") if isinstance(dim, dict) else None
        if not isinstance(value, int):
            continue  # symbolic: bounded by the program's range constraints
        if value < 0:
            raise InputError(path, f"tensor '{_short(name)}': dimension {i} is {value}")
        count *= value
        if count * itemsize > MAX_VALUE:
            raise InputError(path, f"tensor '{_short(name)}' takes more than 2**40 bytes "
                             f"(dimension {i} is {value:,}); memplan plans at most that")


# --- strings torch reads as code ----------------------------------------------------------

# What torch's deserializer hands `sympy.sympify` as names of functions (its
# `sympy_functions`, torch/_export/serde/serialize.py) and the sympy classes its printer
# (`srepr`) writes; any other call is refused.
_SYM_FUNCTIONS = frozenset({
    "FloorDiv", "ModularIndexing", "Where", "PythonMod", "Mod", "CleanDiv", "CeilToInt",
    "FloorToInt", "CeilDiv", "LShift", "RShift", "PowByNatural", "FloatPow", "FloatTrueDiv",
    "IntTrueDiv", "IsNonOverlappingAndDenseIndicator", "TruncToFloat", "TruncToInt",
    "RoundToInt", "RoundDecimal", "ToFloat", "Identity", "OpaqueUnaryFn_sqrt",
    "Symbol", "Integer", "Float", "Rational", "Add", "Mul", "Pow", "Max", "Min", "Abs",
    "Eq", "Ne", "Lt", "Le", "Gt", "Ge", "StrictLessThan", "StrictGreaterThan",
    "LessThan", "GreaterThan", "Equality", "Unequality", "And", "Or", "Not",
    "floor", "ceiling", "Piecewise", "ExprCondPair", "BooleanTrue", "BooleanFalse",
})
# The assumptions `srepr` writes as keywords: `Symbol('s0', integer=True, positive=True)`.
_ASSUMPTIONS = frozenset({"integer", "positive", "nonnegative", "negative", "nonpositive",
                          "real", "finite", "zero", "nonzero", "even", "odd", "rational"})
_SYM_CONSTANTS = frozenset({"oo", "zoo", "nan", "true", "false", "True", "False"})
# A symbol torch makes: a short lowercase prefix and an index (`s0`, `u3`, `zuf1`).
_SYMBOL = re.compile(r"[a-z]{1,12}[0-9]{1,9}")
# A string argument `srepr` writes: a symbol's name, a float's digits.
_SYM_STRING = re.compile(r"[A-Za-z0-9_.+-]{1,40}")
_MAX_EXPR = 10_000  # characters in one expression
_MAX_POWER = 64  # the largest exponent sympy may fold (`2**10**10` would never finish)
_MAX_DIGITS = 40
_SYM_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
                  ast.USub, ast.UAdd, ast.Not, ast.Invert, ast.And, ast.Or,
                  ast.BitAnd, ast.BitOr, ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)
# Callables a graph node may name: operators (`torch.ops.NS.OP[.OVERLOAD]`) and the
# symbolic-size functions torch itself serializes (its `_SYM_OPS`).
_OP_TARGET = re.compile(r"torch\.ops\.[A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*"
                        r"(\.[A-Za-z_][A-Za-z0-9_]*)?")
_SYM_TARGETS = frozenset(
    [f"_operator.{n}" for n in ("eq", "ne", "le", "ge", "lt", "gt", "neg", "pos", "mul",
                                "add", "sub", "floordiv", "mod", "pow", "truediv", "and_",
                                "or_", "lshift", "rshift", "getitem")]
    + ["math.trunc"] + [f"torch.sym_{n}" for n in ("not", "int", "float", "ite", "max",
                                                   "min", "sqrt")])
# A guard torch prints: `L['x'].size()[0] <= 8` and arithmetic on such sizes.
_GUARD_METHODS = frozenset({"size", "stride", "storage_offset"})
_GUARD_KEY = re.compile(r"[A-Za-z0-9_]{1,200}")


def sym_expr_problem(text: Any) -> str | None:
    """Why `text` is not a symbolic size torch's printer writes, or None if it is."""
    if not isinstance(text, str) or not text or len(text) > _MAX_EXPR:
        return "not a short string"
    return _expr_problem(text, _check_sym_node)


def guard_problem(text: Any) -> str | None:
    """Why `text` is not a shape guard torch's tracer writes, or None if it is."""
    if not isinstance(text, str) or not text or len(text) > _MAX_EXPR:
        return "not a short string"
    return _expr_problem(text, _check_guard_node)


def target_problem(text: Any) -> str | None:
    if not isinstance(text, str):
        return "not a string"
    if _OP_TARGET.fullmatch(text) or text in _SYM_TARGETS:
        return None
    return "not an operator (torch.ops.NS.OP) nor one of torch's symbolic-size functions"


def _expr_problem(text: str, check: Any) -> str | None:
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return "not an expression of the grammar memplan accepts"
    try:
        strings = _string_places(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                if id(node) in strings and _SYM_STRING.fullmatch(node.value):
                    continue
                return f"string {_short(repr(node.value), 40)}"
            problem = check(node)
            if problem:
                return problem
    except RecursionError:
        return "nested too deeply"
    return None


def _string_places(tree: ast.AST) -> set[int]:
    """The string constants the grammars allow: a sympy class's name or digits argument
    (`Symbol('s0')`, `Float('1.5')`) and a guard's input key (`L['x']`). Anywhere else a
    string could be computed on and handed back to a parser."""
    places = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("Symbol", "Integer", "Float", "Rational"):
            places.update(id(a) for a in node.args)
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
            places.add(id(node.slice))
    return places


def _check_common(node: ast.AST) -> str | None:
    if isinstance(node, ast.Expression | ast.Load | ast.BinOp | ast.UnaryOp | ast.BoolOp
                  | ast.Compare) or isinstance(node, _SYM_OPERATORS):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow):
            return _power_problem(node.left, node.right)
        return None
    if isinstance(node, ast.Constant):
        value = node.value
        if type(value) is int and len(str(abs(value))) <= _MAX_DIGITS:
            return None
        if type(value) in (float, bool):
            return None
        return f"constant {_short(repr(value), 40)}"
    return ""  # not common: the caller decides


def _is_power(node: ast.AST) -> bool:
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.Pow)) or (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "Pow")


def _power_problem(base: ast.AST, exponent: ast.AST) -> str | None:
    """sympy folds a power of numbers at once: the exponent a constant up to `_MAX_POWER`,
    and no power inside the base (`((99**64)**64)**64` has 2.1 billion digits)."""
    if isinstance(exponent, ast.Call) and isinstance(exponent.func, ast.Name) \
            and exponent.func.id == "Integer" and len(exponent.args) == 1:
        exponent = exponent.args[0]
    if isinstance(exponent, ast.UnaryOp) and isinstance(exponent.op, ast.USub):
        exponent = exponent.operand  # `s0**(-1)`: as small as its magnitude
    if not (isinstance(exponent, ast.Constant) and type(exponent.value) is int
            and 0 <= exponent.value <= _MAX_POWER):
        return f"a power other than a constant up to {_MAX_POWER}"
    if any(_is_power(sub) for sub in ast.walk(base)):
        return "a power of a power"
    return None


def _check_sym_node(node: ast.AST) -> str | None:
    common = _check_common(node)
    if common != "":
        return common
    if isinstance(node, ast.Name):
        if node.id in _SYM_FUNCTIONS or node.id in _SYM_CONSTANTS or _SYMBOL.fullmatch(node.id):
            return None
        return f"name {_short(node.id, 40)!r}"
    if isinstance(node, ast.Call):
        if _is_power(node):
            if len(node.args) != 2 or node.keywords:
                return "Pow of other than two arguments"
            return _power_problem(*node.args)
        if isinstance(node.func, ast.Name) and node.func.id in _SYM_FUNCTIONS and all(
                isinstance(kw.value, ast.Constant) and (
                    (kw.arg in _ASSUMPTIONS and type(kw.value.value) is bool)
                    or (kw.arg == "precision" and type(kw.value.value) is int))
                for kw in node.keywords):
            return None
        return "a call of something other than a sympy or torch size function"
    if isinstance(node, ast.keyword):
        return None  # judged with its call
    return f"{type(node).__name__}"


def _check_guard_node(node: ast.AST) -> str | None:
    common = _check_common(node)
    if common != "":
        return common
    if isinstance(node, ast.Name):
        return None if node.id == "L" else f"name {_short(node.id, 40)!r}"
    if isinstance(node, ast.Subscript):
        key = node.slice
        if isinstance(key, ast.Constant) and (
                type(key.value) is int or (isinstance(key.value, str)
                                           and _GUARD_KEY.fullmatch(key.value))):
            return None
        return "a subscript other than a name or an index"
    if isinstance(node, ast.Attribute):
        return None if node.attr in _GUARD_METHODS else f"attribute {node.attr!r}"
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Attribute) and node.func.attr in _GUARD_METHODS \
                and not node.args and not node.keywords:
            return None
        return "a call other than .size(), .stride(), .storage_offset()"
    return f"{type(node).__name__}"


def _check_strings(path: str, program: Any) -> None:
    """Every string torch would evaluate, in the grammar its own serializer writes."""
    if not isinstance(program, dict):
        return  # torch rejects the document itself
    guards = program.get("guards_code") or []
    if not isinstance(guards, list):
        raise InputError(path, "guards_code is not a list")
    for i, guard in enumerate(guards):
        problem = guard_problem(guard)
        if problem:
            raise InputError(path, f"refused: guards_code[{i}] is Python torch would compile "
                             f"and it is not a shape guard ({problem})")
    ranges = program.get("range_constraints") or {}
    if isinstance(ranges, dict):
        for name in ranges:
            if not _SYMBOL.fullmatch(name):
                raise InputError(path, f"refused: range constraint on {_short(repr(name), 40)}, "
                                 "not a symbol name")
    stack = [program]
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, dict):
            if "expr_str" in value:
                problem = sym_expr_problem(value["expr_str"])
                if problem:
                    raise InputError(path, "refused: symbolic size "
                                     f"{_short(repr(value['expr_str']), 60)} is not an "
                                     f"expression torch's printer writes ({problem}); torch "
                                     "would hand it to sympy, which evaluates it as Python")
            if "target" in value and "inputs" in value:
                problem = target_problem(value["target"])
                if problem:
                    raise InputError(path, f"refused: node target "
                                     f"{_short(repr(value['target']), 60)} is {problem}")
            stack.extend(value.values())


def _json(path: str, archive: zipfile.ZipFile, members: dict[str, Member], name: str) -> Any:
    member = members[name]
    if member.size > MAX_JSON_BYTES:
        raise InputError(path, f"'{name}' is {member.size:,} bytes; memplan reads JSON members "
                         f"of at most {MAX_JSON_BYTES:,}")
    try:
        return json.loads(archive.read(member.entry))
    except (ValueError, RecursionError) as err:
        raise InputError(path, f"'{name}' is not readable JSON ({type(err).__name__})") \
            from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as err:
        raise InputError(path, f"'{name}' cannot be read from the archive ({err})") from None


def _itemsize(code: Any) -> int | None:
    if not isinstance(code, int) or isinstance(code, bool):
        return None
    return _ITEMSIZE.get(code)


# Bytes per element of torch.export's serialized `ScalarType` (torch/_export/serde/schema.py),
# kept here so that a file is checked, and a hostile one refused, without importing torch.
_ITEMSIZE = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 2, 7: 4, 8: 8, 9: 4, 10: 8, 11: 16, 12: 1, 13: 2,
             28: 2, 29: 1, 30: 1, 31: 1, 32: 1, 33: 1, 34: 4, 35: 8}


def _ints(values: Any) -> list[int] | None:
    if not isinstance(values, list):
        return None
    out = []
    for v in values:
        n = v.get("as_int") if isinstance(v, dict) else None
        if not isinstance(n, int) or isinstance(n, bool):
            return None
        out.append(n)
    return out


def _short(text: str, width: int = 80) -> str:
    return text if len(text) <= width else text[:width] + "..."


# --- loading ----------------------------------------------------------------------------

@contextlib.contextmanager
def _no_unrestricted_unpickling() -> Iterator[None]:
    """While torch loads: `torch.load` only with `weights_only=True`, and the loader's
    other unpicklers (`pickle.loads`, TorchScript's, AOTInductor's library loader)
    refused. `check_archive` refuses every archive that reaches them; this holds for a
    path it did not foresee."""
    import torch
    from torch.export.pt2_archive import _package

    safe_load = torch.load

    def load(f: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("weights_only") is False:
            raise _Refused("a payload")
        kwargs["weights_only"] = True
        return safe_load(f, *args, **kwargs)

    def refuse(what: str) -> Any:
        def refused(*args: Any, **kwargs: Any) -> Any:
            raise _Refused(what)
        return refused

    class _NoPickle:
        loads = staticmethod(refuse("an opaque object"))

    saved = (torch.load, torch._C._pickle_load_obj, _package.pickle, _package._load_aoti)
    torch.load = load
    torch._C._pickle_load_obj = refuse("a script object")
    _package.pickle = _NoPickle
    _package._load_aoti = refuse("AOTInductor compiled code")
    try:
        yield
    finally:
        torch.load, torch._C._pickle_load_obj, _package.pickle, _package._load_aoti = saved
