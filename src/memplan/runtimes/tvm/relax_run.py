"""Run a Relax program built by TVM's own pipeline and by memplan's arena pipeline on the
Relax VM, with the same random inputs, and compare the outputs byte for byte."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .relax_arena import FixedPlans, FunctionArena, arena_pipeline

ENTRY = "main"


class DynamicInput(ValueError):
    """`main` takes an input of symbolic shape: no random input to make."""


@dataclass(frozen=True)
class RelaxRun:
    identical: bool
    tvm_bytes: int  # TVM's storages of the planned functions, together
    memplan_bytes: int  # memplan's arenas, together
    output_bytes: int


def random_inputs(func: Any, seed: int) -> list[Any]:
    """Inputs of the shapes and dtypes `main` declares (static shapes only)."""
    import numpy as np
    import tvm
    from tvm import relax

    rng = np.random.default_rng(seed)
    arrays = []
    for p in func.params:
        info = p.ty if not hasattr(p, "struct_info") else p.struct_info
        dims = info.shape.values if isinstance(info.shape, relax.ShapeExpr) else info.shape
        if not all(hasattr(d, "value") or isinstance(d, int) for d in dims):
            raise DynamicInput(f"{ENTRY} takes {p.name} of symbolic shape {list(dims)}")
        shape = [int(d) for d in dims]
        dtype = np.dtype(str(info.dtype))
        values = rng.standard_normal(shape) if dtype.kind == "f" else rng.integers(0, 8, shape)
        arrays.append(tvm.runtime.tensor(np.asarray(values).astype(dtype)))
    return arrays


def _flatten(value: Any) -> list[bytes]:
    if hasattr(value, "numpy"):
        return [value.numpy().tobytes()]
    return [b for item in value for b in _flatten(item)]


def run_both(mod: Any, fixed: FixedPlans | None = None, seed: int = 0,
             progress: Any = None) -> RelaxRun:
    """Build `mod` both ways for this CPU and run `main` on the Relax VM."""
    import tvm
    from tvm import relax

    target = tvm.target.Target("llvm")
    arenas: list[FunctionArena] = []
    outputs = []
    for which, pipeline in (("original", "default"), ("planned", arena_pipeline(arenas,
                                                                             fixed=fixed))):
        if progress:
            progress(which, "building with TVM")
        executable = tvm.compile(mod, target, relax_pipeline=pipeline)
        vm = relax.VirtualMachine(executable, tvm.cpu())
        if progress:
            progress(which, "running main on the Relax VM")
        outputs.append(_flatten(vm[ENTRY](*random_inputs(mod[ENTRY], seed))))
    planned = [a for a in arenas if a.offsets is not None]
    return RelaxRun(outputs[0] == outputs[1],
                    sum(a.memory.tvm_bytes for a in planned),
                    sum(a.size for a in planned),
                    sum(len(b) for b in outputs[0]))
