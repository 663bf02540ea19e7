"""Whole-model planning: the registry of front ends, by file suffix and by runtime name.

Each runtime's front end is `memplan.runtimes.<name>.front_end`, imported only when a
model of its kind is planned (its packages are optional extras). Adding a runtime: one
folder under `runtimes/` whose `front_end.py` defines `FRONT_END` (the contract of
`contract.py`), one line in `REGISTRY`, one test (docs/architecture.md, "Add a runtime").
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path

from ..errors import InputError
from ..extras import Extra, MissingExtra
from .contract import FrontEnd, Option


@dataclass(frozen=True)
class Entry:
    name: str  # --runtime NAME, and its folder: memplan.runtimes.<name>.front_end
    suffixes: tuple[str, ...]
    extra: str  # pip install 'memplan[extra]' brings what it imports
    summary: str  # what it plans and writes, for --help


REGISTRY: tuple[Entry, ...] = (
    Entry("tflm", (".tflite",), "tflite", ".tflite on TFLM's interpreter, written with "
          "OfflineMemoryAllocation metadata"),
    Entry("onnx", (".onnx",), "onnx", ".onnx graphs, report only"),
    Entry("executorch", (".pt2",), "executorch", ".pt2 (torch.export) lowered by ExecuTorch, "
          "written as its .pte"),
    Entry("tvm", (".py",), "tvm", "Relax TVMScript (.py), or a .pt2/.onnx imported by TVM, "
          "run on the Relax VM"),
    Entry("iree", (".mlir",), "mlir", "IREE input programs (.mlir), written as a .vmfb"),
)


def names() -> list[str]:
    return [e.name for e in REGISTRY]


def suffixes() -> list[str]:
    return sorted(s for e in REGISTRY for s in e.suffixes)


def entry_for(path: str, runtime: str | None = None) -> Entry:
    """The front end named by `runtime`, else the one of the file's suffix."""
    if runtime is not None:
        for e in REGISTRY:
            if e.name == runtime:
                return e
        raise InputError(path, f"unknown runtime '{runtime}' (known: {', '.join(names())})")
    suffix = Path(path).suffix.lower()
    for e in REGISTRY:
        if suffix in e.suffixes:
            return e
    if suffix == ".pte":
        raise InputError(path, "a .pte is already planned and lowered; plan the "
                         "torch.export program (.pt2) it came from")
    raise InputError(path, f"unknown model format '{suffix}' (known: {', '.join(suffixes())})")


def options_of(entry: Entry) -> tuple[Option, ...]:
    """The runtime's own `memplan plan` options, from its package (which imports none of
    the runtime's libraries)."""
    return getattr(importlib.import_module(f"memplan.runtimes.{entry.name}"), "OPTIONS", ())


# Checks of a file's structure that need only the standard library, by suffix, whatever
# the runtime: they run before a front end's module is imported, because that import
# brings the runtime (torch and ExecuTorch for a .pt2: a gigabyte and seconds) and a
# refused file must cost neither, nor reach the runtime's own reader.
PRECHECKS: dict[str, tuple[str, str]] = {
    ".pt2": ("memplan.runtimes.pt2", "check_archive"),
}


def precheck(path: str) -> None:
    """Run the light check of the file's format, if it has one; an InputError if refused."""
    check = PRECHECKS.get(Path(path).suffix.lower())
    if check is not None:
        getattr(importlib.import_module(check[0]), check[1])(path)


def load(entry: Entry, path: str = "") -> FrontEnd:
    """Import the front end's module, after `precheck` of `path` if one is given; a missing
    optional package is `MissingExtra`, one line naming the extra to install."""
    if path:
        precheck(path)
    try:
        module = importlib.import_module(f"memplan.runtimes.{entry.name}.front_end")
    except ModuleNotFoundError as err:
        if not err.name or err.name.split(".")[0] == "memplan":
            raise  # memplan's own module missing: a bug, not an extra to install
        raise MissingExtra(Extra(entry.extra), f"planning for {entry.name}") from None
    return module.FRONT_END


def front_end(path: str, runtime: str | None = None) -> FrontEnd:
    return load(entry_for(path, runtime), path)
