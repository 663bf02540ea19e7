"""Run a Relax program built by TVM's own pipeline and by memplan's arena pipeline on the
Relax VM, with the same random inputs, and compare the outputs byte for byte.

Every public Relax function is run (not only `main`); one whose inputs cannot be made
(a symbolic shape, a parameter that is not a tensor) is named and skipped with the
reason. memplan's build goes in three stages, each failure labelled (`runtime.Stage`):
TVM's passes through StaticPlanBlockMemory, memplan's arenas, TVM's remaining passes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .relax_arena import (
    FixedPlans,
    FunctionArena,
    RelaxPipeline,
    apply_arenas,
    passes_after_planning,
    passes_through_planning,
    tvm_pipeline,
)
from .runtime import Stage, StageFailed, stage

HOST = "llvm"
# Linking an executable that holds C (TVM compiles it with the host compiler): seconds.
LINK_SECONDS = 600
LINK_MEMORY = 4 * 2**30


def link_capped(output: str, objects: Any, options: list[str] | None = None,
                cc: str | None = None, seconds: float = LINK_SECONDS) -> None:
    """TVM's `create_shared` (tvm.support.cc: `CC -shared -fPIC -o OUT OPTIONS OBJECTS`),
    run under `capped.run_capped`'s limits: `Executable.jit` calls it when the executable
    holds code only a C compiler can load."""
    from tvm.support.cc import get_cc

    from ..capped import run_capped

    files = [objects] if isinstance(objects, str) else list(objects)
    command = [cc or get_cc() or "g++", "-shared", "-fPIC", "-o", output, *(options or []), *files]
    done = run_capped(command, None, "TVM's executable", seconds, memory=LINK_MEMORY)
    if done.returncode != 0:
        stderr = done.stderr.decode(errors="replace").strip()
        raise RuntimeError(f"{command[0]} failed: {stderr.splitlines()[0] if stderr else ''}")


link_capped.output_format = "so"  # what export_library names the library after


class NoInput(ValueError):
    """A function takes an input no random values can stand for."""


@dataclass(frozen=True)
class RelaxRun:
    identical: bool
    tvm_bytes: int  # TVM's storages of the planned functions, together
    memplan_bytes: int  # memplan's arenas, together
    output_bytes: int
    ran: tuple[str, ...]  # the functions run, both ways
    skipped: tuple[tuple[str, str], ...]  # (function, why no input could be made)
    differ: tuple[str, ...] = ()  # the functions whose outputs differ


def random_inputs(name: str, func: Any, seed: int) -> list[Any]:
    """Numpy arrays of the shapes and dtypes the function declares (static shapes only)."""
    import numpy as np
    from tvm import relax

    rng = np.random.default_rng(seed)
    arrays = []
    for p in func.params:
        info = p.ty
        if not isinstance(info, relax.TensorType):
            raise NoInput(f"@{name} takes {p.name} of type {info} (not a tensor)")
        shape = info.shape
        dims = shape.values if isinstance(shape, relax.ShapeExpr) else None
        if dims is None or not all(hasattr(d, "value") for d in dims):
            shown = "[" + ", ".join(str(getattr(d, "value", d)) for d in dims) + "]" \
                if dims is not None else "unknown"
            raise NoInput(f"@{name} takes {p.name} of symbolic shape {shown} "
                          "(pin it with --dim NAME=N)")
        dims = [int(d.value) for d in dims]
        dtype = np.dtype(str(info.dtype))
        values = rng.standard_normal(dims) if dtype.kind == "f" else rng.integers(0, 8, dims)
        arrays.append(np.asarray(values).astype(dtype))
    return arrays


def public_functions(mod: Any) -> list[tuple[str, Any]]:
    """The Relax functions the VM exposes (a global symbol), by name."""
    from tvm import relax

    out = []
    for func in mod.functions.values():
        if isinstance(func, relax.Function) and func.attrs is not None \
                and "global_symbol" in func.attrs:
            out.append((str(func.attrs["global_symbol"]), func))
    return sorted(out, key=lambda item: item[0])


def _flatten(value: Any) -> list[bytes]:
    if hasattr(value, "numpy"):
        return [value.numpy().tobytes()]
    if isinstance(value, int | float | bool):
        return [repr(value).encode()]
    return [b for item in value for b in _flatten(item)]


def build_planned(mod: Any, target: Any, pipeline: RelaxPipeline, fixed: FixedPlans | None,
                  arenas: list[FunctionArena]) -> Any:
    """`tvm.compile` with memplan's arena pipeline, stage by stage."""
    import tvm

    with target:
        with stage(Stage.TVM_BUILD, "through StaticPlanBlockMemory"):
            planned = tvm.transform.Sequential(passes_through_planning(pipeline, target))(mod)
        with stage(Stage.MEMPLAN):
            planned = apply_arenas(planned, arenas, fixed=fixed)
        with stage(Stage.TVM_BUILD, "after memplan's arenas"):
            planned = tvm.transform.Sequential(passes_after_planning(pipeline, target))(planned)
    with stage(Stage.TVM_BUILD, "memplan's build"):
        return tvm.compile(planned, target, relax_pipeline=None)


def run_both(mod: Any, fixed: FixedPlans | None = None, seed: int = 0,
             progress: Any = None,
             pipeline: RelaxPipeline | str = RelaxPipeline.FUSED) -> RelaxRun:
    """Build `mod` both ways for this CPU and run every public function on the Relax VM.
    A failure is a `StageFailed` whose `which` says which build ("original", "planned")."""
    import tvm
    from tvm import relax

    from .relax_arena import pipeline_of

    pipeline = pipeline_of(pipeline)
    target = tvm.target.Target(HOST)
    inputs, skipped = {}, []
    for name, func in public_functions(mod):
        try:
            inputs[name] = random_inputs(name, func, seed)
        except NoInput as err:
            skipped.append((name, str(err)))
    if not inputs:
        raise NoInput("no Relax function can be run: " + "; ".join(r for _, r in skipped)
                      if skipped else "no public Relax function")
    arenas: list[FunctionArena] = []
    outputs: list[dict[str, list[bytes]]] = []
    for which in ("original", "planned"):
        try:
            if progress:
                progress(which, f"building with TVM ({pipeline.value} pipeline)")
            if which == "original":
                with stage(Stage.TVM_BUILD, "TVM's own build"):
                    executable = tvm.compile(mod, target,
                                             relax_pipeline=tvm_pipeline(pipeline, target))
            else:
                executable = build_planned(mod, target, pipeline, fixed, arenas)
            with stage(Stage.VM_RUN, "loading the executable"):
                vm = relax.VirtualMachine(executable.jit(fcompile=link_capped), tvm.cpu())
            results = {}
            for name, arrays in inputs.items():
                if progress:
                    progress(which, f"running @{name} on the Relax VM")
                with stage(Stage.VM_RUN, f"@{name}"):
                    results[name] = _flatten(vm[name](*[tvm.runtime.tensor(a.copy())
                                                        for a in arrays]))
        except StageFailed as err:
            err.which = which
            raise
        outputs.append(results)
    planned = [a for a in arenas if a.offsets is not None]
    differ = tuple(n for n in inputs if outputs[0][n] != outputs[1][n])
    return RelaxRun(not differ, sum(a.memory.tvm_bytes for a in planned),
                    sum(a.size for a in planned),
                    sum(len(b) for r in outputs[0].values() for b in r),
                    tuple(inputs), tuple(skipped), differ)
