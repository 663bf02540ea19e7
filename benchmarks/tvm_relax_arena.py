"""Relax's memory at the bound: memplan's arena against TVM 0.27's StaticPlanBlockMemory,
after the fused pipeline and the unfused one.

For each model (random weights, nothing downloaded): import with TVM's torch.export
importer, run one of TVM's Relax pipelines to StaticPlanBlockMemory (`fused`:
`relax.get_default_pipeline(target)`, constants folded and kernels fused; `unfused`:
`relax.pipeline.default_build_pipeline`, what `tvm.compile(mod, "llvm")` runs when given
no pipeline), and per Relax function print the live-bytes lower bound, TVM's own plan
(its storages, summed), memplan's arena (64-aligned, the exact solver for up to
--time-limit seconds) and its proof; the largest kernel workspace (TIR buffers TVM sends
to the workspace, outside any Relax plan); then build both ways and run every public
Relax function on the Relax VM with the same random inputs, comparing outputs byte for
byte (`run`: identical, DIFFERENT, or the functions skipped).

    python benchmarks/tvm_relax_arena.py [--models resnet18,...] [--pipelines fused,unfused]
"""

from __future__ import annotations

import argparse
import time

import torch

# The ONNX models of benchmarks/onnx_build.py, with their symbolic batch fixed to 1.
ONNX_MODELS = {"small_cnn_onnx": ("tests/data/small_cnn.onnx", {"x": [1, 1, 16, 16]})}
TORCHVISION = ("resnet18", "resnet50", "mobilenet_v2", "mobilenet_v3_small", "efficientnet_b0",
               "squeezenet1_0", "shufflenet_v2_x1_0", "vit_b_16")
DEFAULT = "resnet18,resnet50,mobilenet_v2,mobilenet_v3_small,efficientnet_b0,encoder,bert_mini"


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


class _Logits(torch.nn.Module):
    """A transformers model returning its first output only (a tensor, not a dict)."""

    def __init__(self, model: torch.nn.Module):
        super().__init__()
        self.model = model

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=ids)[0]


def build_model(name: str) -> tuple[torch.nn.Module, tuple]:
    import torchvision

    torch.manual_seed(0)
    if name in TORCHVISION:
        size = 224
        return getattr(torchvision.models, name)(weights=None).eval(), \
            (torch.randn(1, 3, size, size),)
    if name == "encoder":  # a 2-layer transformer encoder, BERT-mini-sized
        layer = torch.nn.TransformerEncoderLayer(d_model=256, nhead=4, dim_feedforward=1024,
                                                 batch_first=True)
        return torch.nn.TransformerEncoder(layer, num_layers=2, enable_nested_tensor=False
                                           ).eval(), (torch.randn(1, 128, 256),)
    if name == "bert_mini":  # transformers' BERT at BERT-mini's sizes, random weights
        from transformers import BertConfig, BertModel

        config = BertConfig(hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                            intermediate_size=1024, vocab_size=30522)
        model = BertModel(config, add_pooling_layer=False).eval()
        return _Logits(model).eval(), (torch.randint(0, 30522, (1, 128)),)
    raise SystemExit(f"unknown model {name}")


def main() -> None:
    from memplan.runtimes.tvm.relax_arena import plan_function
    from memplan.runtimes.tvm.relax_plan import read_relax
    from memplan.runtimes.tvm.relax_run import run_both

    parser = argparse.ArgumentParser()
    parser.add_argument("--models", default=DEFAULT)
    parser.add_argument("--pipelines", default="fused,unfused")
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--no-run", action="store_true")
    args = parser.parse_args()
    header = (f"{'model':<18} {'pipeline':<8} {'function':<9} {'tensors':>7} {'bound':>11} "
              f"{'TVM':>11} {'memplan':>11} {'TVM/bound':>9} {'proof':>8} {'plan s':>6} "
              f"{'workspace':>10} {'run':>10}")
    print(header, flush=True)
    for name in args.models.split(","):
        mod = relax_module(name)
        for pipeline in args.pipelines.split(","):
            memory = read_relax(mod, pipeline=pipeline)
            fixed = {}
            rows = []
            for fm in memory.functions:
                if fm.refused or not fm.tensors:
                    print(f"{name:<18} {pipeline:<8} {fm.name:<9} refused: "
                          f"{fm.refused or 'nothing planned'}")
                    continue
                started = time.perf_counter()
                arena = plan_function(fm, args.time_limit)
                seconds = time.perf_counter() - started
                fixed[fm.name] = (arena.size, arena.offsets)
                rows.append((fm, arena, seconds))
            run = "skipped"
            if not args.no_run:
                result = run_both(mod, fixed, pipeline=pipeline)
                run = "identical" if result.identical else "DIFFERENT"
                run += f" ({len(result.ran)} fn)"
                for function, reason in result.skipped:
                    print(f"{'':<18} {pipeline:<8} {function:<9} not run: {reason}")
            ws = memory.workspace
            for fm, arena, seconds in rows:
                bound = arena.plan.proven_bound or arena.plan.lower_bound  # None: no search
                print(f"{name:<18} {pipeline:<8} {fm.name:<9} {len(fm.tensors):>7} "
                      f"{bound:>11,} {fm.tvm_bytes:>11,} {arena.size:>11,} "
                      f"{fm.tvm_bytes / bound:>9.3f} {arena.plan.status.value:>8} "
                      f"{seconds:>6.1f} {ws.bytes if ws else 0:>10,} {run:>10}", flush=True)


if __name__ == "__main__":
    main()
