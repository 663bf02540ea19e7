"""Run TIR built through memplan's pipeline against TVM's own build, on this machine.

Both builds are for the host CPU (the embedded targets' code cannot run here):
memplan's under the embedded target's policy, so the buffers it moves to the
workspace move here too and the code that allocates, checks and frees them runs.
Every PrimFunc is called with the same random inputs; outputs compare byte for byte.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...targets import Target
from .tir_pipeline import build

HOST = "llvm"


@dataclass(frozen=True)
class RunComparison:
    function: str
    equal: bool
    bytes_compared: int


def compare_with_tvm(mod: Any, target: Target, *, reserve: int = 0,
                     seed: int = 0) -> list[RunComparison]:
    import numpy as np
    import tvm

    ours = build(mod, target, reserve=reserve, tvm_target=HOST).module
    theirs = tvm.tirx.build(mod, target=tvm.target.Target(HOST))
    out = []
    for gv, func in mod.functions.items():
        if not isinstance(func, tvm.tirx.PrimFunc):
            continue
        rng = np.random.default_rng(seed)
        # 0.27: a buffer parameter is a Var that carries its shape and dtype.
        arrays = [_random(rng, p) for p in func.params]
        results = []
        for lib in (ours, theirs):
            args = [tvm.runtime.tensor(a.copy()) for a in arrays]
            lib[gv.name_hint](*args)
            results.append([a.numpy().tobytes() for a in args])
        out.append(RunComparison(gv.name_hint, results[0] == results[1],
                                 sum(len(b) for b in results[0])))
    return out


def _random(rng: Any, buffer: Any) -> Any:
    import numpy as np

    shape = [int(d) for d in buffer.shape]
    dtype = np.dtype(str(buffer.dtype))
    if dtype.kind == "f":
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-100, 100, shape).astype(dtype)
