"""Run two compiles of one IREE program on the same random inputs and compare the outputs
byte for byte, in a child process (a crash of the runtime is a failed check, not ours).

`run_pair` makes the random inputs and the random parameter archive (`.irpa`) from a
seed, loads each `.vmfb` with `iree-base-runtime`, calls every entry point and lists
the outputs that differ. `compare_vmfbs` runs it in a child (`python -m
memplan.runtimes.iree.compare SPEC`); the driver's front end calls it inside the driver's own
child process.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .inputs import NUMPY_DTYPES, random_array

# A child that runs longer than this is reported as hung.
RUN_TIMEOUT = 600


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


@dataclass(frozen=True)
class RunComparison:
    identical: bool
    functions: tuple[str, ...]
    detail: str  # the first difference or failure, else ""


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


def compare_vmfbs(reference: bytes, planned: bytes, entries: Sequence[RunInput],
                  parameters: Sequence[RunParameter] = (), seed: int = 0) -> RunComparison:
    """`run_pair` in a child process."""
    for entry in entries:
        for _, element in entry.shapes:
            _dtype(element)
    for p in parameters:
        _dtype(p.element)
    with tempfile.TemporaryDirectory(prefix="memplan-iree-") as folder:
        root = Path(folder)
        (root / "reference.vmfb").write_bytes(reference)
        (root / "planned.vmfb").write_bytes(planned)
        spec = {"vmfbs": [str(root / "reference.vmfb"), str(root / "planned.vmfb")],
                "entries": [dataclasses.asdict(e) for e in entries],
                "parameters": [dataclasses.asdict(p) for p in parameters], "seed": seed}
        (root / "spec.json").write_text(json.dumps(spec))
        try:
            done = subprocess.run([sys.executable, "-m", __name__, str(root / "spec.json")],
                                  capture_output=True, text=True, timeout=RUN_TIMEOUT,
                                  check=False)
        except subprocess.TimeoutExpired:
            return RunComparison(False, (), f"the run did not finish in {RUN_TIMEOUT} s")
    names = tuple(e.function for e in entries)
    if done.returncode != 0 or not done.stdout.strip():
        lines = (done.stderr or "").strip().splitlines()
        return RunComparison(False, names, "the runtime failed: "
                             + (lines[-1] if lines else f"exit {done.returncode}"))
    differences = json.loads(done.stdout.strip().splitlines()[-1])["differences"]
    return RunComparison(not differences, names, "; ".join(differences))


def run_pair(reference: bytes, planned: bytes, entries: Sequence[RunInput],
             parameters: Sequence[RunParameter], seed: int,
             progress: Callable[[str, str], None] | None = None) -> list[str]:
    """Both modules on the same random inputs and parameters, in this process: the
    differences of their outputs, one line each (none: identical)."""
    from .compile import LoadedProgram

    rng = np.random.default_rng(seed)
    inputs = {e.function: [_random_input(rng, shape, _dtype(element))
                           for shape, element in e.shapes] for e in entries}
    with tempfile.TemporaryDirectory(prefix="memplan-irpa-") as folder:
        archives = _write_parameters(Path(folder), parameters, rng)
        results = []
        for which, vmfb in (("original", reference), ("planned", planned)):
            if progress is not None:
                progress(which, "loading the module")
            program = LoadedProgram(vmfb, name=which, parameters=archives)
            outputs = {}
            for e in entries:
                if progress is not None:
                    progress(which, f"calling @{e.function}")
                outputs[e.function] = program.call(e.function, inputs[e.function])
            results.append(outputs)
    differences = []
    for e in entries:
        before, after = results[0][e.function], results[1][e.function]
        if len(before) != len(after):
            differences.append(f"@{e.function}: {len(before)} outputs, then {len(after)}")
            continue
        for i, (a, b) in enumerate(zip(before, after, strict=True)):
            if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
                differences.append(f"@{e.function}: output {i} differs")
    return differences


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


def _child(spec_path: str) -> None:
    spec = json.loads(Path(spec_path).read_text())
    entries = [RunInput(e["function"], tuple((tuple(s), el) for s, el in e["shapes"]))
               for e in spec["entries"]]
    params = [RunParameter(p["scope"], p["key"], tuple(p["shape"]), p["element"])
              for p in spec["parameters"]]
    reference, planned = (Path(v).read_bytes() for v in spec["vmfbs"])
    print(json.dumps({"differences": run_pair(reference, planned, entries, params,
                                              spec["seed"])}))


if __name__ == "__main__":
    _child(sys.argv[1])
