"""memplan as a library: one function per job, each returning a result the caller formats.

    from memplan import api
    chunks = api.read("model.mlir").chunks
    result = api.check(chunks, "cortex-m55")
    print(result.errors, [d.message for d in result.diagnostics])

The `memplan` command is a thin shell over these (`cli/`): it parses arguments, calls
the job, and formats its result (`report/`). Nothing here prints or exits; bad input
raises `errors.InputError`, as everywhere in memplan.

- `read(path)`: an MLIR file's modules (torch-dialect exports lowered by IREE first);
- `check(chunks, target)`: census, stack frames, kernel budgets, diagnostics;
- `opt(chunks, target, passes)`: a pipeline of rewrites, then the checks on its result;
- `copies(chunks)`: transient and copied bytes per function before and after the tensor
  rewrites, with IREE's own stream figures (`stream_listing` for stream-level files);
- `place(chunks, target)`: every allocation in one of the target's memory spaces;
- `pack(path_or_rows, **options)`: buffers with lifetimes packed at static offsets.

- `plan(path)`: a whole model's arenas for its runtime (TFLM, ExecuTorch, IREE, TVM, ONNX),
  beside the runtime's own plan; `check_run=True` proves it on the runtime;
- `check_kernels(path, target)`: a TVMScript module's TIR stack frames.

A job whose optional libraries are missing raises `memplan.MissingExtra` (one line naming
the pip extra); `dir(api)` lists every job.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

# Each job loads only what it needs (a job is a module; the MLIR bindings, IREE's compiler
# and runtime load with the first job that reads MLIR): names resolve on first use.
_HOME = {
    "CheckResult": "checking", "check": "checking",
    "copies": "copying", "stream_listing": "copying",
    "OptResult": "optimizing", "opt": "optimizing",
    "compare_runs": "optimizing", "compare_states": "optimizing",
    "PlaceResult": "placing", "place": "placing",
    "Input": "reading", "read": "reading",
    "pack": "packing",
    "check_kernels": "kernels",
    "PlanResult": "planning", "PlannedArena": "planning", "plan": "planning",
}

if TYPE_CHECKING:
    from .checking import CheckResult, check
    from .copying import copies, stream_listing
    from .kernels import check_kernels
    from .optimizing import OptResult, compare_runs, compare_states, opt
    from .packing import pack
    from .placing import PlaceResult, place
    from .planning import PlannedArena, PlanResult, plan
    from .reading import Input, read


def __getattr__(name: str) -> object:
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f".{home}", __name__), name)


__all__ = [  # the names of _HOME (tests/test_api.py keeps them equal)
    "CheckResult", "Input", "OptResult", "PlaceResult", "PlanResult", "PlannedArena", "check",
    "check_kernels", "compare_runs", "compare_states", "copies", "opt", "pack", "place", "plan",
    "read", "stream_listing",
]


def __dir__() -> list[str]:
    return sorted(__all__)
