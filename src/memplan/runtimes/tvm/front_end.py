"""TVM Relax programs: one arena per Relax function, in place of StaticPlanBlockMemory's
storages; the plan written as JSON for `memplan.runtimes.tvm.relax_arena.arena_pipeline(fixed=...)`,
run on the Relax VM.

The model is a torch.export program (.pt2, `--runtime tvm`: the suffix is ExecuTorch's),
an ONNX graph (.onnx, `--runtime tvm`; its symbolic dimensions stay symbolic, and the
storages TVM sizes by them stay TVM's) or a Relax module saved as TVMScript (.py).
`memplan.runtimes.tvm.relax_plan` reads it through TVM's own pipeline; this module is the one
place its tensors become `BufferRequest`s.
TVM's own plan of the same tensors is its storages side by side.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from ...buffers import Arena, BufferRequest, RuntimePlan
from ...errors import InputError
from ...plan.contract import (
    Measured,
    ModelView,
    Offsets,
    Progress,
    ReadOptions,
    RunCheck,
    RuntimeRefused,
)

FORMAT = "memplan-tvm-relax-arena/1"


@dataclass(frozen=True)
class Source:
    """What the child needs to import and build the model again."""

    data: bytes
    suffix: str
    memory: Any  # relax_plan.RelaxMemory
    pipeline: str  # RelaxPipeline's value
    dims: dict[str, int]


def _key(function: str, index: int) -> str:
    return f"{function}.{index}"


class TvmRelaxFrontEnd:
    name: ClassVar[str] = "tvm"
    suffixes: ClassVar[tuple[str, ...]] = (".py",)
    runtime: ClassVar[str] = "TVM's Relax VM"
    extra: ClassVar[str] = "tvm"
    writes: ClassVar[str | None] = ".json"
    splits: ClassVar[bool] = False  # one arena per function, one memory
    plans_in_hook: ClassVar[bool] = False

    takes_dims: ClassVar[bool] = True

    def read(self, path: str, options: ReadOptions) -> ModelView:
        from .relax_arena import ARENA_ALIGNMENT, TVM_PLANNER, RelaxPipeline, pipeline_of
        from .relax_import import folds_own_kernels, load_relax
        from .relax_plan import read_relax
        from .runtime import StageFailed

        try:
            data = Path(path).read_bytes()
        except OSError as err:
            raise InputError(path, f"cannot read: {err.strerror}") from None
        pipeline = pipeline_of(options.extra.get("relax_pipeline") or "fused")
        dims = dict(options.dims)
        mod = load_relax(path, data, dims=dims)
        if folds_own_kernels(mod):
            # Constant folding compiles the script's own kernels and runs them: first in a
            # child under memory and time limits, so a kernel that faults is one line. Folding
            # is deterministic (the same kernels on the same constants), so once the child
            # came through, the same pipeline here does too.
            from ...plan.child import call_in_child

            failed = call_in_child(f"{__name__}:fold_here", path, data, pipeline.value, dims,
                                   name=path, what="TVM's constant folding of the script's "
                                   "kernels")
            if failed is not None:
                raise InputError(path, failed)
        try:
            memory = read_relax(mod, pipeline=pipeline)
        except StageFailed as err:
            raise InputError(path, str(err)) from None
        arenas, notes, details = [], [], {}
        if dims:
            notes.append("dimensions pinned: " + ", ".join(f"{k}={v}" for k, v in dims.items()))
        for fm in memory.functions:
            if fm.refused:
                notes.append(f"@{fm.name} keeps TVM's plan: {fm.refused}")
                continue
            notes += [f"@{fm.name}: TVM's storage {why}: left to TVM, outside the arena"
                      for why in fm.kept]
            if not fm.tensors:
                continue
            buffers = tuple(BufferRequest(_key(fm.name, i), t.var.name, t.size, t.start, t.end,
                                          origin=f"@{fm.name}")
                            for i, t in enumerate(fm.tensors))
            details.update({_key(fm.name, i): {"dtype": t.dtype, "shape": list(t.shape),
                                               "bytes": t.size}
                            for i, t in enumerate(fm.tensors)})
            if fm.tvm_plan_holds(ARENA_ALIGNMENT):
                own = dict(zip((b.key for b in buffers), fm.tvm_offsets(), strict=True))
                runtime = RuntimePlan(TVM_PLANNER, own, {fm.name: fm.tvm_bytes})
            else:  # memplan's lifetimes are tighter than TVM's somewhere: a size only
                runtime = RuntimePlan(TVM_PLANNER, {}, {fm.name: fm.tvm_bytes})
            arenas.append(Arena(fm.name, buffers, ARENA_ALIGNMENT, runtime))
        if memory.workspace is not None:
            ws = memory.workspace
            notes.append(f"largest kernel workspace: {ws.bytes} bytes in @{ws.function} "
                         f"({', '.join(ws.buffers)}), outside any Relax plan: the program "
                         "needs the arena plus this")
        notes.append(f"planned after TVM's {pipeline.value} Relax pipeline ("
                     + ("relax.get_default_pipeline(target): constants folded, kernels fused"
                        if pipeline is RelaxPipeline.FUSED else
                        "relax.pipeline.default_build_pipeline, one kernel per op")
                     + "); --relax-pipeline chooses")
        notes.append("lifetimes in each function's binding order after TVM's "
                     "StaticPlanBlockMemory; a tensor at a nonzero offset goes through "
                     "R.memory.ensure_zero_offset (zero-copy: offsets are 64-aligned)")
        if not arenas:
            why = next((n for n in notes if n.startswith("@")), None)
            raise InputError(path, "no Relax function with tensors StaticPlanBlockMemory "
                             f"planned after TVM's {pipeline.value} pipeline"
                             + (f" ({why})" if why else ""))
        return ModelView(path, self.name, tuple(arenas), tuple(notes), details,
                         Source(data, Path(path).suffix.lower(), memory, pipeline.value, dims))

    def write(self, view: ModelView, offsets: Offsets) -> bytes:
        functions = {}
        for arena in view.arenas:
            placed = offsets[arena.name]
            size = max((placed[b.key] + b.size for b in arena.buffers), default=0)
            functions[arena.name] = {
                "size": size,
                "tensors": [{"index": int(str(b.key).rsplit(".", 1)[1]), "name": b.name,
                             "offset": placed[b.key], "bytes": b.size}
                            for b in arena.buffers]}
        document = {"format": FORMAT, "model": Path(view.path).name,
                    "pipeline": view.source.pipeline, "dims": view.source.dims,
                    "alignment": view.arenas[0].alignment, "functions": functions}
        return (json.dumps(document, indent=1) + "\n").encode()

    def read_back(self, view: ModelView, data: bytes) -> Offsets:
        return {name: {_key(name, index): offset for index, offset in plan[1].items()}
                for name, plan in fixed_plans(data, view.path).items()}

    def original(self, view: ModelView) -> bytes:
        """The model as read, with its suffix, pipeline and pinned dimensions: the child
        imports it again and builds it both ways."""
        source = view.source
        header = {"suffix": source.suffix, "pipeline": source.pipeline, "dims": source.dims}
        return json.dumps(header).encode() + b"\n" + source.data

    def run(self, original: bytes, written: bytes, seed: int, progress: Progress) -> RunCheck:
        from .relax_import import load_relax
        from .relax_run import NoInput, run_both
        from .runtime import Stage, StageFailed

        header, _, data = original.partition(b"\n")
        source = json.loads(header)
        suffix, dims = source["suffix"], source["dims"]
        progress("original", "importing the model")
        try:
            mod = load_relax(f"model{suffix}", data, suffix, dims=dims)
        except InputError as err:
            raise RuntimeRefused("original", err.reason) from None
        try:
            result = run_both(mod, fixed_plans(written, "plan"), seed, progress,
                              source["pipeline"])
        except NoInput as err:
            raise RuntimeRefused("original", str(err)) from None
        except StageFailed as err:
            # TVM failing on the input is no fault of the plan; memplan's own step is.
            which = "planned" if err.stage is Stage.MEMPLAN else (err.which or "original")
            raise RuntimeRefused(which, str(err)) from None
        ran = ", ".join(f"@{n}" for n in result.ran)
        skipped = "".join(f"; skipped {reason}" for _, reason in result.skipped)
        differ = "".join(f"; @{n} differs" for n in result.differ)
        return RunCheck(result.identical, Measured(result.tvm_bytes),
                        Measured(result.memplan_bytes),
                        f"{self.runtime}, {source['pipeline']} pipeline: ran {ran}"
                        f"{differ}{skipped}")


def fold_here(path: str, data: bytes, pipeline: str, dims: dict[str, int]) -> str | None:
    """The model's pipeline through planning (constant folding included), in this process;
    None, or why TVM failed. `call_in_child`'s child runs it before the parent does."""
    from .relax_import import load_relax
    from .relax_plan import read_relax
    from .runtime import StageFailed

    try:
        read_relax(load_relax(path, data, dims=dims), pipeline=pipeline)
    except StageFailed as err:
        return str(err)
    return None


def fixed_plans(data: bytes, path: str) -> dict[str, tuple[int, dict[int, int]]]:
    """A written plan as `arena_pipeline(fixed=...)` takes it: per function, the arena size
    and each tensor's offset by its index in binding order."""
    try:
        document = json.loads(data)
        if document.get("format") != FORMAT:
            raise InputError(path, f"not a {FORMAT} document")
        return {name: (int(f["size"]), {int(t["index"]): int(t["offset"]) for t in f["tensors"]})
                for name, f in document["functions"].items()}
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise InputError(path, f"not a memplan TVM arena plan: {err}") from None


FRONT_END = TvmRelaxFrontEnd()
