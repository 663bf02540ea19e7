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
               shapes: dict[str, list[int]] | None = None) -> Any:
    """The Relax IRModule of a model file (or of its bytes `data`, with its `suffix`)."""
    require_tvm(path)
    suffix = (suffix or Path(path).suffix).lower()
    if suffix in SCRIPT_SUFFIXES:
        text = None
        if data is not None:
            text = data.decode("utf-8", errors="strict")
        from .script import load_script

        mod = load_script(path, text)
        return _as_module(path, mod)
    if suffix in EXPORT_SUFFIXES:
        return from_exported(path, data)
    if suffix in ONNX_SUFFIXES:
        return from_onnx_graph(path, data, shapes)
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


def from_exported(path: str, data: bytes | None = None) -> Any:
    """The Relax module of a .pt2, read as every .pt2 is (`runtimes/pt2.py`: the archive
    checked first, nothing unpickled without restriction); `data` is the file's bytes
    when the caller already holds them (the child of a run check)."""
    import tempfile

    from tvm.relax.frontend.torch import from_exported_program

    from ..pt2 import load_exported

    if data is None:
        exported = load_exported(path)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / Path(path).name
            copy.write_bytes(data)
            exported = load_exported(copy)
    try:
        return from_exported_program(exported, keep_params_as_input=False)
    except Exception as err:  # noqa: BLE001 - an op TVM's importer lacks, in its words
        reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise InputError(path, f"TVM's importer refuses it: {reason[:200]}") from None
