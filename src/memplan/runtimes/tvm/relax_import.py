"""Relax modules from the files users hold: a torch.export program (.pt2) through TVM's
own importer (`tvm.relax.frontend.torch.from_exported_program`), an ONNX graph through
`tvm.relax.frontend.onnx.from_onnx` (a protobuf: reading it runs nothing), or a Relax
module saved as TVMScript (.py, read by `script.load_script`: checked before TVM's parser).
An ONNX graph keeps its symbolic dimensions unless `shapes` fixes the inputs' shapes.

Weights of a .pt2 become Relax constants (`keep_params_as_input=False`), so `main`
takes the program's user inputs only. A TVMScript module is taken as printed: its
`main` takes whatever parameters it declares.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...errors import InputError
from ...limits import MAX_TENSOR_BYTES
from .runtime import require_tvm

SCRIPT_SUFFIXES = (".py",)
EXPORT_SUFFIXES = (".pt2",)
ONNX_SUFFIXES = (".onnx",)


def load_relax(path: str, data: bytes | None = None, suffix: str | None = None,
               shapes: dict[str, list[int]] | None = None,
               dims: dict[str, int] | None = None) -> Any:
    """The Relax IRModule of a model file (or of its bytes `data`, with its `suffix`),
    its symbolic dimensions named in `dims` pinned (--dim)."""
    require_tvm(path)
    suffix = (suffix or Path(path).suffix).lower()
    if suffix in SCRIPT_SUFFIXES:
        text = None
        if data is not None:
            text = data.decode("utf-8", errors="strict")
        from .script import load_script

        mod = pin_dims(path, _as_module(path, load_script(path, text)), dims or {})
    elif suffix in EXPORT_SUFFIXES:
        mod = from_exported(path, data, dims or {})
    elif suffix in ONNX_SUFFIXES:
        mod = pin_dims(path, from_onnx_graph(path, data, shapes), dims or {})
    else:
        raise InputError(path, f"TVM reads a torch.export program (.pt2), an ONNX graph (.onnx) "
                         f"or a Relax module as TVMScript (.py), not '{suffix}'")
    check_tensor_sizes(path, mod)
    return mod


def check_tensor_sizes(path: str, mod: Any) -> None:
    """Refuse a tensor TVM's constant folding would make whose static size passes
    `MAX_TENSOR_BYTES`.

    Run before any pipeline: FoldConstant allocates every tensor it folds in this process
    (and runs the script's kernels to fill it), so the bound holds on what the module
    declares, not on what folding makes. A binding is folded when its value is computed
    from constants alone: constants, shapes, kernels and bindings folded before it. An
    input's tensors are never folded (planning allocates none of them), nor is a shape
    that stays symbolic."""
    for gv, binding in _folded_bindings(mod):
        place = f"@{gv.name_hint}, binding {binding.var.name}"
        # The annotation may be looser than the value (`R.Tensor(ndim=1)`).
        _check_type(path, place, binding.var.ty)
        _check_type(path, place, getattr(binding.value, "ty", None))
        _check_kernels(path, mod, binding.value, place)


def folds_own_kernels(mod: Any) -> bool:
    """Some binding folding evaluates calls a kernel the module itself defines (which
    constant folding compiles and runs in the process that folds)."""
    from tvm import tirx

    return any(isinstance(mod.functions.get(gv), tirx.PrimFunc)
               for _, binding in _folded_bindings(mod) for gv in _global_vars(binding.value))


def _folded_bindings(mod: Any) -> Iterator[tuple[Any, Any]]:
    """(function, binding) for each binding of a Relax function computed from constants
    alone: constants, shapes, kernels and bindings folded before it."""
    from tvm import relax

    for gv, func in sorted(mod.functions.items(), key=lambda kv: kv[0].name_hint):
        if not isinstance(func, relax.Function):
            continue
        seqs: list[Any] = []
        relax.analysis.post_order_visit(func.body, lambda e, seqs=seqs: seqs.append(e)
                                        if isinstance(e, relax.SeqExpr) else None)
        folded: set[Any] = set()
        # Inner sequences come first in post order; a binding of an outer one may use them.
        for seq in reversed(seqs):
            for block in seq.blocks:
                for binding in block.bindings:
                    if _from_constants(binding.value, folded):
                        folded.add(binding.var)
                        yield gv, binding


def _global_vars(value: Any) -> list[Any]:
    from tvm import relax

    found: list[Any] = []
    relax.analysis.post_order_visit(value, lambda e: found.append(e)
                                    if isinstance(e, relax.GlobalVar) else None)
    return found


def _check_kernels(path: str, mod: Any, value: Any, place: str) -> None:
    """The buffers a kernel that folding runs allocates (`T.alloc_buffer`, a block's
    buffers): folding compiles the kernel and runs it here, buffers and all."""
    from tvm import tirx

    for gv in _global_vars(value):
        func = mod.functions.get(gv)
        if not isinstance(func, tirx.PrimFunc):
            continue
        for buf in _tir_buffers(func.body):
            dims = [_dim(d) for d in buf.shape]
            size = _static_size(dims, buf.dtype)
            if size is not None and size > MAX_TENSOR_BYTES:
                raise InputError(path, f"kernel @{gv.name_hint} allocates {buf.name} of "
                                 f"{size} bytes, over the {MAX_TENSOR_BYTES} a tensor may "
                                 "have (limits.MAX_TENSOR_BYTES): TVM's constant folding "
                                 "would run it in memplan's process", place)


def _tir_buffers(stmt: Any) -> Iterator[Any]:
    """Every buffer allocated under `stmt` before lowering: flat `AllocBuffer`s and the
    `alloc_buffers` of schedulable blocks (which `tir.children` does not enter: lowering
    has removed them by the time it runs)."""
    from tvm import tirx
    from tvm.s_tir import stmt as s_tir

    from .tir import children

    if isinstance(stmt, tirx.AllocBuffer):
        yield stmt.buffer
    if isinstance(stmt, s_tir.SBlockRealize):
        yield from _tir_buffers(stmt.block)
        return
    if isinstance(stmt, s_tir.SBlock):
        yield from stmt.alloc_buffers
        for body in (stmt.init, stmt.body):
            if body is not None:
                yield from _tir_buffers(body)
        return
    for child in children(stmt):
        yield from _tir_buffers(child)


def _from_constants(expr: Any, folded: set[Any]) -> bool:
    """`expr` needs no input, so FoldConstant may evaluate it. Any leaf but a variable
    counts (a constant, a shape, a kernel, an operator, a symbolic PrimValue too): a shape
    left symbolic has no static size to refuse, so counting too much refuses nothing more."""
    from tvm import relax

    if isinstance(expr, relax.Var):
        return expr in folded
    if isinstance(expr, relax.Tuple):
        return all(_from_constants(f, folded) for f in expr.fields)
    if isinstance(expr, relax.TupleGetItem):
        return _from_constants(expr.tuple_value, folded)
    if isinstance(expr, relax.Call):
        return _from_constants(expr.op, folded) and all(_from_constants(a, folded)
                                                         for a in expr.args)
    return not isinstance(expr, relax.SeqExpr | relax.If | relax.Function)


def _check_type(path: str, place: str, ty: Any) -> None:
    from tvm import relax

    if isinstance(ty, relax.TupleType):
        for field in ty.fields:
            _check_type(path, place, field)
        return
    if not isinstance(ty, relax.TensorType):
        return
    size = _static_bytes(ty)
    if size is not None and size > MAX_TENSOR_BYTES:
        raise InputError(path, f"{ty} is {size} bytes, over the {MAX_TENSOR_BYTES} a tensor "
                         "may have (limits.MAX_TENSOR_BYTES): TVM's constant folding would "
                         "allocate it in memplan's process", place)


def _static_bytes(ty: Any) -> int | None:
    """The bytes of a tensor type whose shape and dtype are both known, else None."""
    from tvm import relax

    shape = ty.shape
    if isinstance(shape, relax.Var):  # `R.Tensor(s)` with `s` a shape variable
        shape = shape.ty
    values = getattr(shape, "values", None)
    if values is None:
        return None
    return _static_size([_dim(v) for v in values], ty.dtype)


def _static_size(dims: list[int | None], dtype: Any) -> int | None:
    """Bytes of a shape of `dims` (None: symbolic) in `dtype`, or None when unknown."""
    import tvm

    if any(d is None for d in dims):
        return None
    try:
        dtype = tvm.DataType(str(dtype))
    except Exception:  # noqa: BLE001 - "void": an unknown dtype has no size
        return None
    if dtype.lanes < 1:  # a scalable vector: its size is the hardware's
        return None
    size = (dtype.bits * dtype.lanes + 7) // 8
    for d in dims:
        size *= d
    return size


def _dim(value: Any) -> int | None:
    import tvm

    if isinstance(value, tvm.tirx.IntImm):
        return max(int(value.value), 0)
    return None


def from_onnx_graph(path: str, data: bytes | None,
                    shapes: dict[str, list[int]] | None = None) -> Any:
    import onnx
    from onnx.external_data_helper import load_external_data_for_model
    from tvm.relax.frontend.onnx import from_onnx

    from ..onnx.model import check_external_data

    try:
        # External data is checked before it is read (a 3 GB file was read whole).
        model = onnx.load_from_string(data) if data is not None else \
            onnx.load(path, load_external_data=False)
    except Exception as err:  # noqa: BLE001 - protobuf's errors, in one line
        raise InputError(path, f"not an ONNX model: {str(err)[:200]}") from None
    if check_external_data(model, path):
        load_external_data_for_model(model, str(Path(path).resolve().parent))
    try:
        return from_onnx(model, shape_dict=shapes, keep_params_in_input=False)
    except Exception as err:  # noqa: BLE001 - an op TVM's importer lacks, in its words
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InputError(path, f"TVM's ONNX importer refuses it: {reason[:200]}") from None


def _as_module(path: str, mod: Any) -> Any:
    import tvm
    from tvm import relax

    if isinstance(mod, relax.Function):
        mod = tvm.IRModule({"main": mod})
    if not any(isinstance(f, relax.Function) for f in mod.functions.values()):
        raise InputError(path, "no Relax function in this module (TIR kernels alone are "
                         "checked with `memplan check`)")
    return mod


def symbolic_dims(mod: Any) -> dict[str, list[Any]]:
    """The symbolic dimensions the Relax functions' signatures define, by name."""
    from tvm import relax

    found: dict[str, list[Any]] = {}
    for _, func in sorted(mod.functions.items(), key=lambda kv: kv[0].name_hint):
        if not isinstance(func, relax.Function):
            continue
        for p in func.params:
            for var in relax.analysis.definable_tir_vars_in_type(p.ty):
                found.setdefault(var.name, [])
                if not any(var.same_as(v) for v in found[var.name]):
                    found[var.name].append(var)
    return found


def pin_dims(path: str, mod: Any, dims: dict[str, int]) -> Any:
    """`mod` with each symbolic dimension named in `dims` bound to its value in every
    Relax function that defines it; a name no signature defines is refused."""
    import tvm
    from tvm import relax

    if not dims:
        return mod
    known = symbolic_dims(mod)
    for name, value in dims.items():
        if name not in known:
            have = ", ".join(known) or "none: every shape is static"
            raise InputError(path, f"--dim {name}: no Relax function's signature has a "
                             f"symbolic dimension of that name (the module's: {have})")
        if value < 1:
            raise InputError(path, f"--dim {name}={value}: a dimension is at least 1")
    updates = {}
    for gv, func in mod.functions.items():
        if not isinstance(func, relax.Function):
            continue
        binding = {v: tvm.tirx.IntImm(str(v.ty.dtype), dims[name]) for name, vars_ in known.items()
                   if name in dims for v in vars_
                   if any(v.same_as(d) for p in func.params
                          for d in relax.analysis.definable_tir_vars_in_type(
                              p.ty))}
        if binding:
            updates[gv] = func.bind_symbolic_vars(binding)
    out = mod.clone() if hasattr(mod, "clone") else tvm.IRModule(dict(mod.functions),
                                                                 attrs=mod.attrs)
    for gv, func in updates.items():
        out[gv] = func
    return out


def from_exported(path: str, data: bytes | None = None,
                  dims: dict[str, int] | None = None) -> Any:
    """The Relax module of a .pt2, read as every .pt2 is (`runtimes/pt2.py`: the archive
    checked first, nothing unpickled without restriction), specialised to `dims` before
    TVM imports it; `data` is the file's bytes when the caller already holds them (the
    child of a run check)."""
    import tempfile

    from tvm.relax.frontend.torch import from_exported_program

    from ..pt2 import load_exported, specialise

    if data is None:
        exported = load_exported(path)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / Path(path).name
            copy.write_bytes(data)
            exported = load_exported(copy)
    exported = specialise(path, exported, dims or {})
    try:
        return from_exported_program(exported, keep_params_as_input=False)
    except Exception as err:  # noqa: BLE001 - an op TVM's importer lacks, in its words
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InputError(path, f"TVM's importer refuses it: {reason[:200]}") from None
