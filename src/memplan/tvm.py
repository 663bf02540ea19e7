"""memplan in a TVM build: the Relax arena pipeline and the TIR stack-frame pipeline.

    import tvm
    from memplan.tvm import arena_pipeline

    executable = tvm.compile(mod, "llvm", relax_pipeline=arena_pipeline())

`arena_pipeline()` is TVM's fused Relax pipeline (`relax.get_default_pipeline(target)`;
`pipeline="unfused"`: `relax.pipeline.default_build_pipeline`) with memplan's arena after
`StaticPlanBlockMemory` (`fixed=` applies a plan `memplan plan MODEL --runtime tvm -o
PLAN.json` wrote). For stack frames on a microcontroller, `tir_pipeline(target)` names
memplan's TIR pipeline for `tvm.compile(..., tir_pipeline=...)`, and `build(mod, target)`
builds through it and reads every frame back from the machine code. `load_script(path)`
reads a TVMScript file without running code it holds (docs/runtimes/tvm.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .extras import Extra, import_optional
from .targets import Target, target_of

import_optional("tvm", Extra.TVM, "memplan.tvm")

from .runtimes.tvm.relax_arena import arena_pipeline  # noqa: E402
from .runtimes.tvm.script import load_script as _load_script  # noqa: E402
from .runtimes.tvm.tir_pipeline import StackBuild, pipeline_for  # noqa: E402
from .runtimes.tvm.tir_pipeline import build as _build  # noqa: E402


def tir_pipeline(target: Target | str, reserve: int = 0) -> str:
    """The registered name of memplan's TIR pipeline for a target (a preset name, a .toml
    file or a `Target`): buffers its frame budget cannot hold go to the workspace."""
    return pipeline_for(target_of(target), reserve)


def build(mod: Any, target: Target | str, *, reserve: int = 0) -> StackBuild:
    """Build `mod` through memplan's TIR pipeline for `target`, every frame read back."""
    return _build(mod, target_of(target), reserve=reserve)


def load_script(path: str | Path) -> Any:
    """The IRModule of a TVMScript file, read behind memplan's guard."""
    return _load_script(path)


__all__ = ["StackBuild", "arena_pipeline", "build", "load_script", "tir_pipeline"]
