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
from pathlib import Path
from typing import ClassVar

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

    def read(self, path: str, options: ReadOptions) -> ModelView:
        from .relax_arena import ARENA_ALIGNMENT, TVM_PLANNER
        from .relax_import import load_relax
        from .relax_plan import read_relax

        try:
            data = Path(path).read_bytes()
        except OSError as err:
            raise InputError(path, f"cannot read: {err.strerror}") from None
        memory = read_relax(load_relax(path, data))
        arenas, notes, details = [], [], {}
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
        notes.append("lifetimes in each function's binding order after TVM's "
                     "StaticPlanBlockMemory; a tensor at a nonzero offset goes through "
                     "R.memory.ensure_zero_offset (zero-copy: offsets are 64-aligned)")
        if not arenas:
            raise InputError(path, "no Relax function with tensors StaticPlanBlockMemory "
                             "planned" + (f" ({notes[0]})" if notes else ""))
        return ModelView(path, self.name, tuple(arenas), tuple(notes), details,
                         (data, Path(path).suffix.lower(), memory))

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
                    "alignment": view.arenas[0].alignment, "functions": functions}
        return (json.dumps(document, indent=1) + "\n").encode()

    def read_back(self, view: ModelView, data: bytes) -> Offsets:
        return {name: {_key(name, index): offset for index, offset in plan[1].items()}
                for name, plan in fixed_plans(data, view.path).items()}

    def original(self, view: ModelView) -> bytes:
        """The model as read, with its suffix: the child imports it again and builds it
        both ways."""
        data, suffix, _ = view.source
        return json.dumps({"suffix": suffix}).encode() + b"\n" + data

    def run(self, original: bytes, written: bytes, seed: int, progress: Progress) -> RunCheck:
        from .relax_import import load_relax
        from .relax_run import DynamicInput, run_both

        header, _, data = original.partition(b"\n")
        suffix = json.loads(header)["suffix"]
        progress("original", "importing the model")
        try:
            mod = load_relax(f"model{suffix}", data, suffix)
        except InputError as err:
            raise RuntimeRefused("original", err.reason) from None
        try:
            result = run_both(mod, fixed_plans(written, "plan"), seed, progress)
        except DynamicInput as err:
            raise RuntimeRefused("original", str(err)) from None
        return RunCheck(result.identical, Measured(result.tvm_bytes),
                        Measured(result.memplan_bytes), self.runtime)


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
