"""TVM (seed 003's compiler): TIR stack policy per target and Relax arenas.

Every module here imports `tvm` only inside functions (`require_tvm`), so memplan
imports without apache-tvm installed; a command that needs it says so in one line.

- `script.py`: read TVMScript text safely (TVM's parser evaluates expressions).
- `tir.py`: the allocations of each PrimFunc as they reach `LowerTVMBuiltin`.
- `stack_policy.py`: TVM 0.27's per-buffer rule and memplan's per-frame budget.
- `tir_pipeline.py`: a TIR pipeline for `tvm.compile` applying memplan's decisions.
- `asm_frame.py`: the stack frame of a function read from built assembly.
- `c_frame.py`: the frames of TVM's C, as the target's C compiler builds it.
- `built_frames.py`: each PrimFunc's frame in a built module (assembly or C).
- `frame_check.py`, `tir_report.py`: `memplan check KERNELS.py` and its report.
- `targets.py`: the TVM target a memplan target builds for.
"""

from ...plan.contract import Option

RELAX_PIPELINE = Option(
    "--relax-pipeline", "relax_pipeline", "the TVM Relax pipeline the program is planned "
    "after: fused (default; relax.get_default_pipeline(target): constants folded, kernels "
    "fused) or unfused (what tvm.compile(mod, 'llvm') runs when given no pipeline)",
    "fused", ("fused", "unfused"))
OPTIONS = (RELAX_PIPELINE,)
