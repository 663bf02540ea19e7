"""Transient and copied bytes per function, before and after `memplan opt`.

    python benchmarks/tensor_copies.py

For each bundled case: memplan's tensor-level estimate (analysis/copies.py) beside
what IREE 3.13 allocates and copies in its stream dialect (`iree-compile
--compile-to=stream`, llvm-cpu) for the same module. Dynamic sizes are taken at
the last step the state allows (the `at` column); figures are bytes per call.
"""

from __future__ import annotations

from pathlib import Path

from memplan.api import copies as copy_rows
from memplan.ir import load_mlir
from memplan.report.table import format_table
from memplan.runtimes.iree.compile import CompileError, compile_to_vmfb
from memplan.runtimes.iree.state_compare import QUIET_FLAGS
from memplan.transforms.passes import TENSOR_PIPELINE, PassContext, parse_pipeline, run_pipeline

REPO = Path(__file__).resolve().parents[1]
CASES = [  # (file, dynamic values)
    ("examples/kv_cache_append.mlir", {"seq_step": 511}),
    ("tests/data/kv_two_states_mlprogram.mlir", {"pos": 14}),
    ("tests/data/append_two_pieces_dim1.mlir", {"pos": 13}),
    ("examples/constant_outs.mlir", {}),
    ("examples/reduce_into_nonsplat_constant.mlir", {}),
    ("examples/large_nonsplat_outs.mlir", {}),
    ("tests/data/immutable_global_outs.mlir", {}),
]


def main() -> None:
    rows = []
    for name, at in CASES:
        builds = compiles(REPO / name)
        for r in copy_rows(load_mlir(REPO / name), at):
            where = ", ".join(f"{k}={v}" for k, v in at.items()) or "-"
            rows.append([Path(name).name, r.function, where, r.stage, builds[r.stage],
                         r.transient, r.copied, _iree(r.iree_transient, r.iree_error),
                         _iree(r.iree_copied, r.iree_error),
                         _iree(r.iree_constant_copied, r.iree_error),
                         _iree(r.iree_memcpy_dispatches, r.iree_error)])
    print(format_table(["case", "function", "at", "stage", "file builds", "transient", "copied",
                        "IREE transient", "IREE copied", "IREE const copied",
                        "IREE memcpy dispatches"], rows, right_align=[False] * 5 + [True] * 6))


def compiles(path: Path) -> dict[str, str]:
    """Whether iree-compile (llvm-cpu) builds the whole file before and after the rewrite."""
    (chunk,) = load_mlir(path)
    result = {}
    for stage in ("before", "after"):
        if stage == "after":
            run_pipeline([chunk], parse_pipeline(",".join(TENSOR_PIPELINE)), PassContext())
        try:
            compile_to_vmfb(str(chunk.module), str(path), QUIET_FLAGS)
            result[stage] = "yes"
        except CompileError:
            result[stage] = "no"
    return result


def _iree(value: int | None, error: str | None) -> object:
    return "fails" if error else value


if __name__ == "__main__":
    main()
