"""Run two compiles of one IREE program on the same random inputs and compare the outputs
byte for byte, in a child process (a crash of the runtime is a failed check, not ours).

The parent (`compare_vmfbs`) writes the inputs (`.npy`), the random parameter archive
(`.irpa`) and a spec in a temporary folder; the child (`python -m
memplan.run.iree_compare SPEC`) loads each `.vmfb` with `iree-base-runtime`, calls every
entry point and prints one JSON line: for each function, whether the outputs agree.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
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


def compare_vmfbs(reference: bytes, planned: bytes, entries: Sequence[RunInput],
                  parameters: Sequence[RunParameter] = (), seed: int = 0) -> RunComparison:
    rng = np.random.default_rng(seed)
    with tempfile.TemporaryDirectory(prefix="memplan-iree-") as folder:
        root = Path(folder)
        (root / "reference.vmfb").write_bytes(reference)
        (root / "planned.vmfb").write_bytes(planned)
        calls = []
        for entry in entries:
            paths = []
            for i, (shape, element) in enumerate(entry.shapes):
                path = root / f"{entry.function}.{i}.npy"
                np.save(path, random_array(rng, shape, _dtype(element)))
                paths.append(str(path))
            calls.append({"function": entry.function, "inputs": paths})
        archives = _write_parameters(root, parameters, rng)
        spec = {"vmfbs": [str(root / "reference.vmfb"), str(root / "planned.vmfb")],
                "calls": calls, "parameters": archives}
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
    report = json.loads(done.stdout.strip().splitlines()[-1])
    return RunComparison(not report["differences"], names, "; ".join(report["differences"]))


def _write_parameters(root: Path, parameters: Sequence[RunParameter],
                      rng: np.random.Generator) -> list[list[str]]:
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
        archives.append([scope, str(path)])
    return archives


def _child(spec_path: str) -> None:
    from .iree_exec import LoadedProgram

    spec = json.loads(Path(spec_path).read_text())
    parameters = [tuple(p) for p in spec["parameters"]]
    results = []
    for vmfb in spec["vmfbs"]:
        program = LoadedProgram(Path(vmfb).read_bytes(), name=vmfb, parameters=parameters)
        results.append({c["function"]: program.call(c["function"],
                                                    [np.load(p) for p in c["inputs"]])
                        for c in spec["calls"]})
    differences = []
    for call in spec["calls"]:
        function = call["function"]
        before, after = results[0][function], results[1][function]
        if len(before) != len(after):
            differences.append(f"@{function}: {len(before)} outputs, then {len(after)}")
            continue
        for i, (a, b) in enumerate(zip(before, after, strict=True)):
            if a.dtype != b.dtype or a.shape != b.shape or a.tobytes() != b.tobytes():
                differences.append(f"@{function}: output {i} differs")
    print(json.dumps({"differences": differences}))


if __name__ == "__main__":
    _child(sys.argv[1])
