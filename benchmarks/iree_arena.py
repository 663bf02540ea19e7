"""IREE's transient arenas against memplan's, on torchvision models with random weights.

    python benchmarks/iree_arena.py [MODEL ...]   (default: mobilenet_v2 resnet18)

MODEL is a torchvision model name, `vit` (transformers' ViT-B/16 configuration),
`llama` (a 4-layer Llama-like decoder: hidden 512, 8 heads, 128 tokens), or an `.onnx`
file (e.g. tests/data/small_cnn.onnx, the model `benchmarks/onnx_build.py` builds);
`NAME@torch` exports NAME with iree-turbine instead (torch-dialect MLIR, weights
external as named parameters; `pip install '.[export]'`).
Weights are random. Each model is exported to ONNX (PyTorch's TorchScript exporter),
imported with IREE's own importer with its weights external
(`iree-import-onnx --externalize-params`),
planned by `memplan.runtimes.iree.program` for llvm-cpu, and both `.vmfb`s (IREE's own and
memplan's) are run on the same random inputs and random parameters: outputs compared
byte for byte. Prints one row per arena.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from memplan.errors import InputError
from memplan.runtimes.iree import program as ip


class _LogitsOnly:
    """A transformers model as a module returning its logits only (one output tensor)."""

    def __new__(cls, model):  # noqa: ANN001, ANN204
        import torch

        class Wrapped(torch.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.model = model

            def forward(self, x):  # noqa: ANN001, ANN202
                return self.model(x).logits

        return Wrapped().eval()


def _llama(layers: int, hidden: int, heads: int, ffn: int, vocab: int):  # noqa: ANN202
    """A Llama-like decoder (RMSNorm, rotary positions, causal attention, SwiGLU), written
    out here: transformers' Llama masks with ops PyTorch's ONNX exporter lacks."""
    import torch
    from torch import nn

    class Norm(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.weight = nn.Parameter(torch.ones(hidden))

        def forward(self, x):  # noqa: ANN001, ANN202
            return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)

    def rotate(x, cos, sin):  # noqa: ANN001, ANN202
        a, b = x.chunk(2, dim=-1)
        return x * cos + torch.cat((-b, a), dim=-1) * sin

    class Layer(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.norm1, self.norm2 = Norm(), Norm()
            self.qkv = nn.Linear(hidden, 3 * hidden, bias=False)
            self.out = nn.Linear(hidden, hidden, bias=False)
            self.gate = nn.Linear(hidden, ffn, bias=False)
            self.up = nn.Linear(hidden, ffn, bias=False)
            self.down = nn.Linear(ffn, hidden, bias=False)

        def forward(self, x, cos, sin, mask):  # noqa: ANN001, ANN202
            n, d = x.shape[1], hidden // heads
            q, k, v = (t.view(1, n, heads, d).transpose(1, 2)
                       for t in self.qkv(self.norm1(x)).chunk(3, dim=-1))
            q, k = rotate(q, cos, sin), rotate(k, cos, sin)
            attention = (q @ k.transpose(-1, -2)) / d ** 0.5 + mask
            y = (attention.softmax(-1) @ v).transpose(1, 2).reshape(1, n, hidden)
            x = x + self.out(y)
            h = self.norm2(x)
            return x + self.down(nn.functional.silu(self.gate(h)) * self.up(h))

    class Decoder(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed = nn.Embedding(vocab, hidden)
            self.layers = nn.ModuleList(Layer() for _ in range(layers))
            self.norm = Norm()
            self.head = nn.Linear(hidden, vocab, bias=False)

        def forward(self, tokens):  # noqa: ANN001, ANN202
            n, d = tokens.shape[1], hidden // heads
            position = torch.arange(n, dtype=torch.float32)[:, None]
            angle = position / 10000 ** (torch.arange(0, d, 2, dtype=torch.float32) / d)
            angle = torch.cat((angle, angle), dim=-1)
            cos, sin = angle.cos(), angle.sin()
            mask = torch.full((n, n), float("-inf")).triu(1)
            x = self.embed(tokens)
            for layer in self.layers:
                x = layer(x, cos, sin, mask)
            return self.head(self.norm(x))

    return Decoder().eval()


def _model(name: str):  # noqa: ANN202
    import torch

    torch.manual_seed(0)
    if name == "vit":
        from transformers import ViTConfig, ViTForImageClassification

        model = ViTForImageClassification(ViTConfig(attn_implementation="eager"))
        return _LogitsOnly(model.eval()), torch.randn(1, 3, 224, 224)
    if name == "llama":
        return _llama(layers=4, hidden=512, heads=8, ffn=1376, vocab=8000), \
            torch.randint(0, 8000, (1, 128))
    import torchvision

    return getattr(torchvision.models, name)(weights=None).eval(), torch.randn(1, 3, 224, 224)


TORCH = "@torch"  # a model name ending so is exported to torch-dialect MLIR by iree-turbine


def _static(path: Path, folder: Path) -> Path:
    """The model with every symbolic dimension of its inputs and outputs set to 1 (a run
    needs static input shapes; `memplan plan --dim` does the same for the ONNX front end)."""
    import onnx

    model = onnx.load(str(path))
    for value in [*model.graph.input, *model.graph.output]:
        for dim in value.type.tensor_type.shape.dim:
            if dim.HasField("dim_param"):
                dim.dim_value = 1
    static = folder / path.name
    onnx.save(model, str(static))
    return static


def export_torch(name: str, folder: Path) -> Path:
    """Torch-dialect MLIR as iree-turbine writes it (`aot.export`, weights external as
    named parameters)."""
    import torch
    from iree.turbine import aot

    model, example = _model(name)
    aot.externalize_module_parameters(model)
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        exported = aot.export(model, example)
    mlir = folder / f"{name}.torch.mlir"
    exported.save_mlir(str(mlir))
    return mlir


def export(name: str, folder: Path) -> Path:
    import torch

    if name.endswith(TORCH):
        return export_torch(name[:-len(TORCH)], folder)
    if name.endswith(".onnx"):
        onnx_path = _static(Path(name), folder)
    else:
        model, example = _model(name)
        onnx_path = folder / f"{name}.onnx"
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (example,), str(onnx_path), dynamo=False,
                              opset_version=17)
    mlir = folder / f"{Path(name).stem}.mlir"
    subprocess.run(["iree-import-onnx", str(onnx_path), "--externalize-params",
                    "-o", str(mlir)], check=True, capture_output=True)
    return mlir


def main(names: list[str]) -> None:
    print("| model | arena | slices | IREE | bound | memplan | outcome | invocation peak "
          "IREE -> memplan (x bound) | IREE layout reproduced | run | plan s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            mlir = export(name, Path(folder))
            source = mlir.read_bytes()
            started = time.perf_counter()
            try:
                plan = ip.plan_iree_program(source, name)
            except InputError as err:
                print(f"| {name} | refused: {err} |", flush=True)
                continue
            seconds = time.perf_counter() - started
            run = ip.check_run(plan, source)
            # The largest arena's bound binds the invocation's peak under any plan.
            bound = max((a.bound for a in plan.arenas if a.bound is not None), default=0)
            peaks = "; ".join(f"{p.iree:,} -> {p.memplan:,} ({p.memplan / bound:.3f}x)"
                              if p.iree is not None and p.memplan is not None and bound
                              else "runtime" for p in plan.peaks)
            for a in plan.arenas:
                iree = f"{a.iree_total:,}" if a.iree_total is not None else "runtime-sized"
                ours = f"{a.memplan.total:,}" if a.memplan is not None else "-"
                bound = f"{a.bound:,}" if a.bound is not None else "-"
                ratio = f" ({a.iree_total / a.bound:.3f}x)" if a.iree_total and a.bound else ""
                print(f"| {name} | {a.pack.name} | {len(a.pack.slices)} | {iree}{ratio} | "
                      f"{bound} | {ours} | {a.outcome.value} | {peaks} | "
                      f"{'yes' if plan.iree_reproduced else 'NO'} | "
                      f"{'bit-identical' if run.identical else 'DIFFERS: ' + run.detail} | "
                      f"{seconds:.1f} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["mobilenet_v2", "resnet18"])
