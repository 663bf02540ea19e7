"""Relax's memory at the bound: memplan's arena against TVM 0.27's StaticPlanBlockMemory.

For each model (random weights, nothing downloaded): import with TVM's torch.export
importer, run TVM's default build pipeline to StaticPlanBlockMemory, and per Relax
function print the live-bytes lower bound, TVM's own plan (its storages, summed),
memplan's arena (64-aligned, the exact solver for up to --time-limit seconds) and
its proof; the largest kernel workspace (TIR buffers TVM sends to the workspace,
outside any Relax plan); then build both ways and run `main` on the Relax VM with
the same random inputs, comparing outputs byte for byte.

    python benchmarks/tvm_relax_arena.py [--models resnet18,mobilenet_v2,encoder,small_cnn_onnx]
"""

from __future__ import annotations

import argparse
import time

import torch

# The ONNX models of benchmarks/onnx_build.py, with their symbolic batch fixed to 1.
ONNX_MODELS = {"small_cnn_onnx": ("tests/data/small_cnn.onnx", {"x": [1, 1, 16, 16]})}


def relax_module(name: str):  # noqa: ANN201 - a tvm.IRModule
    from tvm.relax.frontend.torch import from_exported_program

    if name in ONNX_MODELS:
        from memplan.runtimes.tvm.relax_import import load_relax

        path, shapes = ONNX_MODELS[name]
        return load_relax(path, shapes=shapes)
    model, inputs = build_model(name)
    with torch.no_grad():
        exported = torch.export.export(model, inputs)
    return from_exported_program(exported, keep_params_as_input=False)


def build_model(name: str) -> tuple[torch.nn.Module, tuple]:
    import torchvision

    torch.manual_seed(0)
    if name == "resnet18":
        return torchvision.models.resnet18(weights=None).eval(), (torch.randn(1, 3, 224, 224),)
    if name == "mobilenet_v2":
        return torchvision.models.mobilenet_v2(weights=None).eval(), \
            (torch.randn(1, 3, 224, 224),)
    if name == "encoder":  # a 2-layer transformer encoder, BERT-mini-sized
        layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024,
                                                 batch_first=True)
        return torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False
                                           ).eval(), (torch.randn(1, 128, 256),)
    raise SystemExit(f"unknown model {name}")


def main() -> None:
    from memplan.runtimes.tvm.relax_arena import plan_function
    from memplan.runtimes.tvm.relax_plan import read_relax
    from memplan.runtimes.tvm.relax_run import run_both

    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default="resnet18,mobilenet_v2,encoder,small_cnn_onnx")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--no-run", action="store_true")
    args = parser.parse_args()
    header = (f"{'model':<13} {'function':<9} {'tensors':>7} {'bound':>10} {'TVM':>10} "
              f"{'memplan':>10} {'TVM/bound':>9} {'proof':>8} {'plan s':>6} "
              f"{'workspace':>10} {'run':>10}")
    print(header)
    for name in args.models.split(","):
        mod = relax_module(name)
        memory = read_relax(mod)
        fixed = {}
        rows = []
        for fm in memory.functions:
            if fm.refused or not fm.tensors:
                print(f"{name:<13} {fm.name:<9} refused: {fm.refused or 'nothing planned'}")
                continue
            started = time.perf_counter()
            arena = plan_function(fm, args.time_limit)
            seconds = time.perf_counter() - started
            fixed[fm.name] = (arena.size, arena.offsets)
            rows.append((fm, arena, seconds))
        run = "skipped"
        if not args.no_run:
            result = run_both(mod, fixed)
            run = "identical" if result.identical else "DIFFERENT"
        ws = memory.workspace
        for fm, arena, seconds in rows:
            bound = arena.plan.proven_bound or arena.plan.lower_bound  # None: no search
            print(f"{name:<13} {fm.name:<9} {len(fm.tensors):>7} {bound:>10,} "
                  f"{fm.tvm_bytes:>10,} {arena.size:>10,} {fm.tvm_bytes / bound:>9.3f} "
                  f"{arena.plan.status.value:>8} {seconds:>6.1f} "
                  f"{ws.bytes if ws else 0:>10,} {run:>10}")
        if ws:
            print(f"{'':<13} largest kernel workspace: {ws.function} "
                  f"({', '.join(ws.buffers)})")


if __name__ == "__main__":
    main()
