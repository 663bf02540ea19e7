"""A real export: a small decoder's KV-cache step, before and after `memplan opt`.

    python benchmarks/kv_cache_export.py [--layers 2 12] [--steps 64]

Builds a decoder in PyTorch with random weights (no download) whose K and V caches
are module buffers, in three update styles:

- `concat`: `k = cat([k_cache[:, :p], k_new], 1); k_cache[:, :p + 1] = k` (the
  append the issue reports; attention reads `k`);
- `slice`: `k_cache[:, p:p + 1] = k_new`, attention reads `k_cache[:, :p + 1]`;
- `index_copy`: `k_cache.index_copy_(1, pos, k_new)`, attention reads the prefix;
- `index_put`: `k_cache[:, pos] = k_new` with the position tensor as index.

Each is exported as users do (iree-turbine `aot.export`, parameters and caches
externalised as named parameters), lowered to IREE's input form
(`iree-compile --compile-to=input`), rewritten by `memplan opt`, and both are
compiled for llvm-cpu. Printed per style and size: IREE's transient and copied
bytes per step at several positions (its `stream` dialect, `memplan copies`
figures), ms per step (median), and whether outputs and caches are bit-identical
over the steps.

iree-turbine 3.9 on IREE 3.13: `aot.export` of an `nn.Module` with
`externalize_module_parameters`, as here, runs unchanged. The
`RankedTensorType.isinstance` call the 3.13 bindings lack is in iree-turbine's
`transforms/builder.py` (its own MLIR rewrite passes, such as custom-op
expansion), which this export does not reach; no shim is needed or used.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch
from torch import nn

from memplan.analysis.stream_counts import stream_counts
from memplan.ir import MlirChunk, parse_mlir
from memplan.report.table import format_table
from memplan.runtimes.iree.compile import (
    LoadedProgram,
    compile_to_stream,
    compile_to_vmfb,
    to_input_form,
)
from memplan.runtimes.iree.state_compare import (
    GETTER_PREFIX,
    QUIET_FLAGS,
    mutable_globals,
    with_getters,
)
from memplan.transforms.passes import TENSOR_PIPELINE, PassContext, parse_pipeline, run_pipeline

STYLES = ("concat", "slice", "index_copy", "index_put")


class Attention(nn.Module):
    """One attention layer whose K/V caches are buffers, updated in `style`."""

    def __init__(self, style: str, hidden: int, heads: int, context: int):
        super().__init__()
        self.style, self.heads, self.head_dim = style, heads, hidden // heads
        self.qkv = nn.Linear(hidden, 3 * hidden)
        self.out = nn.Linear(hidden, hidden)
        self.norm = nn.LayerNorm(hidden)
        shape = (1, context, heads, self.head_dim)
        self.register_buffer("k_cache", torch.zeros(shape))
        self.register_buffer("v_cache", torch.zeros(shape))

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        q, k, v = self.qkv(self.norm(x)).view(1, 1, 3 * self.heads, self.head_dim).split(
            self.heads, dim=2)
        p = pos.item()
        torch._check(p >= 0)
        torch._check(p < self.k_cache.shape[1])
        if self.style == "concat":
            keys = torch.cat([self.k_cache[:, :p], k], 1)
            values = torch.cat([self.v_cache[:, :p], v], 1)
            self.k_cache[:, :p + 1] = keys
            self.v_cache[:, :p + 1] = values
        else:
            if self.style == "slice":
                self.k_cache[:, p:p + 1] = k
                self.v_cache[:, p:p + 1] = v
            elif self.style == "index_put":
                self.k_cache[:, pos] = k
                self.v_cache[:, pos] = v
            else:
                self.k_cache.index_copy_(1, pos, k)
                self.v_cache.index_copy_(1, pos, v)
            keys, values = self.k_cache[:, :p + 1], self.v_cache[:, :p + 1]
        scores = torch.einsum("bqhd,bkhd->bhqk", q, keys) / self.head_dim ** 0.5
        mixed = torch.einsum("bhqk,bkhd->bqhd", scores.softmax(-1), values)
        return x + self.out(mixed.reshape(1, -1))


class Decoder(nn.Module):
    def __init__(self, style: str, layers: int, hidden: int, heads: int, context: int):
        super().__init__()
        self.layers = nn.ModuleList(Attention(style, hidden, heads, context)
                                    for _ in range(layers))

    def forward(self, x: torch.Tensor, pos: torch.Tensor) -> torch.Tensor:
        for layer in self.layers:
            x = layer(x, pos)
        return x


def build(style: str, layers: int, hidden: int, heads: int, context: int,
          seed: int = 0) -> Decoder:
    torch.manual_seed(seed)
    return Decoder(style, layers, hidden, heads, context).eval()


def export_style(model: Decoder, hidden: int, irpa: Path | None = None) -> str:
    """The torch-dialect module iree-turbine writes, parameters (and caches) external."""
    from iree.turbine import aot

    aot.externalize_module_parameters(model)
    if irpa is not None:
        aot.save_module_parameters(str(irpa), model)
    example = (torch.zeros(1, hidden), torch.tensor([0], dtype=torch.int64))
    exported = aot.export(model, args=example)
    return str(exported.mlir_module)


SIZES = {  # layers -> (hidden, heads, context)
    2: (256, 4, 512),
    12: (768, 12, 1024),  # GPT-2 small
}


@dataclass
class Stage:
    figures: dict[int, tuple[int | None, int | None]]  # position -> (transient, copied)
    program: LoadedProgram
    globals: list[str]
    outputs: list[np.ndarray]
    times: list[float]
    cpu_times: list[float]  # local-sync runs the dispatches on the calling thread


def prepare(text: str, irpa: Path, positions: list[int]) -> Stage:
    """IREE's stream figures at `positions` and the compiled program (parameters bound)."""
    module = parse_mlir(text, "<export>")
    stream = parse_mlir(compile_to_stream(text, "<export>", QUIET_FLAGS), "<stream>")
    figures = {}
    for p in positions:
        (main,) = [c for c in stream_counts(stream, {"arg1": p}) if c.function == "main"]
        figures[p] = (main.transient_bytes, main.copied_bytes)
    program = LoadedProgram(compile_to_vmfb(with_getters(module), "<export>", QUIET_FLAGS),
                            parameters=[("model", str(irpa))])
    return Stage(figures, program, [name for name, _, _ in mutable_globals(module)], [], [], [])


def step_both(stages: list[Stage], hidden: int, steps: int, timed_at: int,
              repeats: int) -> bool:
    """`steps` steps from position 0 on both (same inputs), then `repeats` timed steps at
    `timed_at`, alternating between the two; whether outputs and caches are bit-identical."""
    rng = np.random.default_rng(0)
    for step in range(steps):
        x = rng.standard_normal((1, hidden)).astype(np.float32)
        for stage in stages:
            stage.outputs += stage.program.call("main", [x, np.array([step], dtype=np.int64)])
    same = all(np.array_equal(a, b) for a, b in zip(stages[0].outputs, stages[1].outputs,
                                                      strict=True))
    for name in stages[0].globals:
        a, b = (s.program.call(GETTER_PREFIX + name, [])[0] for s in stages)
        same = same and np.array_equal(a, b)
    x = rng.standard_normal((1, hidden)).astype(np.float32)
    position = np.array([timed_at], dtype=np.int64)
    batch = max(1, round(BATCH_MS / max(_one_call_ms(stages[0], x, position), 1e-3)))
    for _ in range(repeats):
        for stage in stages:  # alternating: load on the machine hits both alike
            start, cpu = time.perf_counter(), time.thread_time()
            for _ in range(batch):
                stage.program.call("main", [x, position])
            stage.times.append((time.perf_counter() - start) * 1e3 / batch)
            stage.cpu_times.append((time.thread_time() - cpu) * 1e3 / batch)
    return same


BATCH_MS = 20.0  # one timed sample: enough calls to take about this long


def _one_call_ms(stage: Stage, x: np.ndarray, position: np.ndarray) -> float:
    start = time.perf_counter()
    stage.program.call("main", [x, position])
    return (time.perf_counter() - start) * 1e3


def run(style: str, layers: int, steps: int, repeats: int, workdir: Path) -> list[list[object]]:
    hidden, heads, context = SIZES[layers]
    model = build(style, layers, hidden, heads, context)
    irpa = workdir / f"{style}-{layers}.irpa"
    exported = to_input_form(export_style(model, hidden, irpa), "<export>")
    module = parse_mlir(exported, "<export>")
    report = run_pipeline([MlirChunk("<export>", 0, 1, module)],
                          parse_pipeline(",".join(TENSOR_PIPELINE)), PassContext())
    rewritten = sum(1 for d in report.rewritten if d.code == "state-in-place")
    positions = sorted({0, context // 2 - 1, context - 1})
    stages = [prepare(text, irpa, positions) for text in (exported, str(module))]
    same = step_both(stages, hidden, steps, context - 1, repeats)
    rows = []
    for stage, result in zip(("before", "after"), stages, strict=True):
        for p in positions:
            transient, copied = result.figures[p]
            rows.append([style, layers, stage, rewritten if stage == "after" else "-", p,
                         _n(transient), _n(copied), f"{statistics.median(result.times):.2f}",
                         f"{statistics.median(result.cpu_times):.2f}", "yes" if same else "NO"])
    return rows


def _n(value: int | None) -> str:
    return "?" if value is None else f"{value:,}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layers", type=int, nargs="+", default=[2, 12], choices=sorted(SIZES))
    parser.add_argument("--styles", nargs="+", default=list(STYLES), choices=STYLES)
    parser.add_argument("--steps", type=int, default=64,
                        help="steps from position 0 compared before/after (default 64)")
    parser.add_argument("--repeats", type=int, default=20,
                        help="timed samples at the last position, each ~20 ms of calls, "
                        "alternating before/after (median; default 20)")
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for layers in args.layers:
            for style in args.styles:
                rows += run(style, layers, args.steps, args.repeats, Path(tmp))
    print(format_table(["style", "layers", "stage", "appends rewritten", "position",
                        "IREE transient B", "IREE copied B", "ms/step at last position",
                        "CPU ms/step", f"identical over {args.steps} steps"], rows,
                       right_align=[False, True, False] + [True] * 6 + [False]))


if __name__ == "__main__":
    main()
