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

from pathlib import Path
from typing import Any

from ...errors import InputError
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

        mod = load_script(path, text)
        return pin_dims(path, _as_module(path, mod), dims or {})
    if suffix in EXPORT_SUFFIXES:
        return from_exported(path, data, dims or {})
    if suffix in ONNX_SUFFIXES:
        return pin_dims(path, from_onnx_graph(path, data, shapes), dims or {})
    raise InputError(path, f"TVM reads a torch.export program (.pt2), an ONNX graph (.onnx) "
                     f"or a Relax module as TVMScript (.py), not '{suffix}'")


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
