"""The optional parts of memplan, each a pip extra, and the one message for a missing one.

The base install is what `memplan pack` needs. Every other job needs a large
library (IREE's compiler, a model runtime, matplotlib) that a user installs
with the job's extra: `pip install 'memplan[mlir]'`. A command that reaches a
missing one stops with one line naming the extra (exit 2), never with an
"internal error": commands ask `require` before they start, and the CLI maps
any `ModuleNotFoundError` of a module listed here to the same line
(`missing_extra_of`), for the imports deeper down.

Looking a module up (`importlib.util.find_spec`) does not import it, so asking
costs a directory scan, not the library's start-up.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from enum import StrEnum
from types import ModuleType

from .errors import MemplanError


class Extra(StrEnum):
    """The pip extras, by the name `pip install 'memplan[NAME]'` takes."""

    MLIR = "mlir"
    TFLITE = "tflite"
    ONNX = "onnx"
    EXECUTORCH = "executorch"
    TVM = "tvm"
    PLOT = "plot"
    # numba: only where the packer's kernels could not be compiled at install.
    JIT = "jit"


@dataclass(frozen=True)
class ExtraInfo:
    what: str  # the library, as a user knows it
    modules: tuple[str, ...]  # what must be importable; the first names the library


EXTRAS: dict[Extra, ExtraInfo] = {
    Extra.MLIR: ExtraInfo("IREE's compiler and runtime", ("iree.compiler", "iree.runtime")),
    Extra.TFLITE: ExtraInfo("TFLite Micro", ("tflite_micro",)),
    Extra.ONNX: ExtraInfo("ONNX", ("onnx",)),
    Extra.EXECUTORCH: ExtraInfo("ExecuTorch and PyTorch", ("executorch", "torch")),
    Extra.TVM: ExtraInfo("Apache TVM", ("tvm",)),
    Extra.PLOT: ExtraInfo("matplotlib", ("matplotlib",)),
    Extra.JIT: ExtraInfo("numba (the packer's kernels were not compiled at install)",
                         ("numba", "llvmlite")),
}


class MissingExtra(MemplanError):
    """A job needs an optional library that is not installed: bad set-up, not a bug."""

    def __init__(self, extra: Extra, job: str | None = None):
        self.extra = extra
        needs = f"{job} needs" if job else "this needs"
        super().__init__(f"{needs} {EXTRAS[extra].what} (not installed): "
                         f"pip install 'memplan[{extra}]'")


def _present(module: str) -> bool:
    import importlib.util  # only when an extra is asked about: not by `memplan pack`

    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a parent package missing or broken
        return False


def installed(extra: Extra) -> bool:
    """Whether every module of `extra` can be imported (none is imported to find out)."""
    return all(_present(m) for m in EXTRAS[extra].modules)


def require(extra: Extra | None, job: str | None = None) -> None:
    """Stop with the one-line install hint unless `extra` is installed; None needs nothing."""
    if extra is not None and not installed(extra):
        raise MissingExtra(extra, job)


def import_optional(module: str, extra: Extra, job: str | None = None) -> ModuleType:
    """`import module`, or the one-line install hint when it (or what it needs) is missing."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if missing_extra_of(err) is None and not _is_within(err.name, module):
            raise
        raise MissingExtra(extra, job) from None


def missing_extra_of(err: ModuleNotFoundError) -> Extra | None:
    """The extra that provides the module `err` could not find, if an extra does."""
    name = err.name or ""
    for extra, info in EXTRAS.items():
        if any(_is_within(name, m) or _is_within(m, name) for m in info.modules):
            return extra
    return None


def _is_within(name: str | None, package: str) -> bool:
    return bool(name) and (name == package or name.startswith(package + "."))
