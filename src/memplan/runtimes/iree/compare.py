"""Run two compiles of one IREE program on the same random inputs and compare the outputs
byte for byte.

`run_pair` makes the random inputs and the random parameter archive (`.irpa`) from a
seed, loads each `.vmfb` with `iree-base-runtime`, calls every entry point and lists
the outputs that differ. The front end's `run` calls it inside the driver's child
process (`plan/child.py`), so a crash of the runtime is a failed check, not memplan's.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .inputs import NUMPY_DTYPES, random_array


@dataclass(frozen=True)
class RunInput:
    function: str
    shapes: tuple[tuple[tuple[int, ...], str], ...]  # (shape, element) per argument


@dataclass(frozen=True)
class RunParameter:
    scope: str
    key: str
    shape: tuple[int, ...]
    element: str


def _dtype(element: str) -> type:
    if element not in NUMPY_DTYPES:
        raise ValueError(f"no random values for element type {element}")
    return NUMPY_DTYPES[element]


def _random_input(rng: np.random.Generator, shape: tuple[int, ...], dtype: type
                  ) -> np.ndarray:
    """An integer input of a model is most often an index (token ids, positions), and an
    index out of its table's range reads outside a buffer in IREE's compiled code (no
    bounds check): integers are drawn from [0, 100), in range of any table that long."""
    if np.issubdtype(dtype, np.integer):
        return rng.integers(0, 100, shape).astype(dtype)
    return random_array(rng, shape, dtype)


def run_pair(reference: bytes, planned: bytes, entries: Sequence[RunInput],
             parameters: Sequence[RunParameter], seed: int,
             progress: Callable[[str, str], None] | None = None) -> list[str]:
    """Both modules on the same random inputs and parameters, in this process: the
    differences of their outputs, one line each (none: identical)."""
    from .compile import LoadedProgram

    rng = np.random.default_rng(seed)
    # By position: one function may be called at several input sizes (--dim NAME=..N).
    inputs = [[_random_input(rng, shape, _dtype(element)) for shape, element in e.shapes]
              for e in entries]
    with tempfile.TemporaryDirectory(prefix="memplan-irpa-") as folder:
        archives = _write_parameters(Path(folder), parameters, rng)
        results = []
        for which, vmfb in (("original", reference), ("planned", planned)):
            if progress is not None:
                progress(which, "loading the module")
            program = LoadedProgram(vmfb, name=which, parameters=archives)
            outputs = []
            for e, given in zip(entries, inputs, strict=True):
                if progress is not None:
                    progress(which, f"calling @{e.function}{_shown(e)}")
                outputs.append(program.call(e.function, given))
            results.append(outputs)
    differences = []
    for e, before, after in zip(entries, *results, strict=True):
        if len(before) != len(after):
            differences.append(f"@{e.function}{_shown(e)}: {len(before)} outputs, then "
                               f"{len(after)}")
            continue
        for i, (a, b) in enumerate(zip(before, after, strict=True)):
            if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
                differences.append(f"@{e.function}{_shown(e)}: output {i} differs")
    return differences


def _shown(entry: RunInput) -> str:
    return " at " + ", ".join("x".join(map(str, shape)) or "scalar" for shape, _ in entry.shapes)


def _write_parameters(root: Path, parameters: Sequence[RunParameter],
                      rng: np.random.Generator) -> list[tuple[str, str]]:
    import iree.runtime as rt

    by_scope: dict[str, list[RunParameter]] = {}
    for p in parameters:
        by_scope.setdefault(p.scope, []).append(p)
    archives = []
    for n, (scope, members) in enumerate(by_scope.items()):
        index = rt.ParameterIndex()
        for p in members:
            index.add_buffer(p.key, random_array(rng, p.shape, _dtype(p.element)).tobytes())
        path = root / f"parameters{n}.irpa"
        index.create_archive_file(str(path))
        archives.append((scope, str(path)))
    return archives
