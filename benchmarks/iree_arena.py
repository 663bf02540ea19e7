"""IREE's transient arenas against memplan's, on torchvision models with random weights,
through the path `memplan plan PROGRAM.mlir --runtime iree` takes.

    python benchmarks/iree_arena.py [MODEL ...]   (default: mobilenet_v2 resnet18)

MODEL is a torchvision model name, `vit` (transformers' ViT-B/16 configuration),
`llama` (a 4-layer Llama-like decoder: hidden 512, 8 heads, 128 tokens), or an `.onnx`
file (e.g. tests/data/small_cnn.onnx, the model `benchmarks/onnx_build.py` builds);
`NAME@torch` exports NAME with iree-turbine instead (torch-dialect MLIR, weights
external as named parameters; `pip install '.[export]'`; without iree-turbine those
rows say so and are skipped); `NAME:batch=N` exports NAME with a dynamic batch dimension
(ONNX `dynamic_axes`; with `@torch`, `torch.export.Dim` through iree-turbine) and plans it
with `--dim batch=N`; `NAME:batch=..N` plans it once for every batch up to N (`--dim
batch=..N`, run at 1, N/2 and N).
Weights are random. Each model is exported to ONNX (PyTorch's TorchScript exporter),
imported with IREE's own importer with its weights external
(`iree-import-onnx --externalize-params`), then planned, written and checked by
`python -m memplan plan FILE.mlir --runtime iree --json --check-run -o FILE.vmfb` for
llvm-cpu: both `.vmfb`s (IREE's own and memplan's) run on the same random inputs and
random parameters, outputs compared byte for byte. Prints one row per arena, every
figure read from the command's JSON document (docs/json-schema.md).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

from memplan.runtimes.iree.front_end import NOT_REPRODUCED


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

    builder = getattr(torchvision.models, name, None)
    if not callable(builder):
        raise SystemExit(f"iree_arena: {name!r} is not a torchvision model, vit, llama or "
                         "an .onnx file")
    return builder(weights=None).eval(), torch.randn(1, 3, 224, 224)


TORCH = "@torch"  # a model name ending so is exported to torch-dialect MLIR by iree-turbine
DYNAMIC = ":batch="  # NAME:batch=N: exported with a dynamic batch, planned at --dim batch=N


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


def export_torch(name: str, folder: Path, dynamic: bool = False) -> Path:
    """Torch-dialect MLIR as iree-turbine writes it (`aot.export`, weights external as
    named parameters); `dynamic`: with a dynamic batch (dimension 0 of the first input)."""
    import inspect

    import torch
    from iree.turbine import aot

    model, example = _model(name)
    aot.externalize_module_parameters(model)
    shapes = None
    if dynamic:  # torch.export specialises a batch of 1: the example has 2
        example = torch.cat([example, example])
        first = next(iter(inspect.signature(model.forward).parameters))
        shapes = {first: {0: torch.export.Dim("batch")}}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        exported = aot.export(model, args=(example,), dynamic_shapes=shapes)
    mlir = folder / f"{name}.torch.mlir"
    exported.save_mlir(str(mlir))
    return mlir


def export(name: str, folder: Path) -> Path:
    import torch

    dynamic = DYNAMIC in name
    name = name.split(DYNAMIC)[0]
    if name.endswith(TORCH):
        return export_torch(name[:-len(TORCH)], folder, dynamic)
    if name.endswith(".onnx"):
        onnx_path = _static(Path(name), folder)
    else:
        model, example = _model(name)
        onnx_path = folder / f"{name}.onnx"
        with warnings.catch_warnings(), torch.no_grad():
            warnings.simplefilter("ignore")
            named = {"input_names": ["input"], "output_names": ["output"], "dynamic_axes": {
                "input": {0: "batch"}, "output": {0: "batch"}}} if dynamic else {}
            torch.onnx.export(model, (example,), str(onnx_path), dynamo=False,
                              opset_version=17, **named)
    mlir = folder / f"{Path(name).stem}.mlir"
    subprocess.run(["iree-import-onnx", str(onnx_path), "--externalize-params",
                    "-o", str(mlir)], check=True, capture_output=True)
    return mlir


# `memplan plan`'s status of an arena (docs/json-schema.md), as the table says it.
OUTCOMES = {"at_bound": "at the bound", "optimal": "proven optimal", "gap": "best found",
            "heuristic": "heuristics only"}
_PEAK = re.compile(r"invocation @(\S+): transient peak IREE ([\d,]+) B, memplan ([\d,]+) B "
                   r"\(([\d.]+)x\)")
_RUNTIME_PEAK = re.compile(r"invocation @(\S+): a transient of runtime size")


def plan(mlir: Path, dims: tuple[str, ...] = ()) -> tuple[dict | None, str, float]:
    """`memplan plan MLIR --runtime iree --json --check-run [--dim ...]`: its document (None
    when it printed none), its last stderr line, and its wall time."""
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "memplan", "plan", str(mlir), "--runtime",
                           "iree", "--json", "--check-run", "-o",
                           str(mlir.with_suffix(".vmfb")),
                           *(a for d in dims for a in ("--dim", d))],
                          capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    lines = done.stderr.strip().splitlines()
    try:
        document = json.loads(done.stdout)
    except json.JSONDecodeError:
        document = None
    return document, lines[-1] if lines else f"exit {done.returncode}", seconds


def peaks(notes: list[str]) -> str:
    """The invocations' transient peaks as the command's notes give them."""
    shown = []
    for note in notes:
        if m := _PEAK.match(note):
            shown.append(f"{m[2]} -> {m[3]} ({m[4]}x)")
        elif _RUNTIME_PEAK.match(note):
            shown.append("runtime")
    return "; ".join(shown) or "not reported"


def run_cell(check: dict | None) -> str:
    if check is None:
        return "not run"
    if check["identical"]:
        return "bit-identical"
    if not check["ran"] and check["error"] is None:  # IREE's own .vmfb kept: nothing to run
        return "not run (IREE's own kept)"
    return "DIFFERS" if check["ran"] else f"FAILED: {check['error']}"


def main(names: list[str]) -> None:
    print("| model | arena | slices | IREE | bound | memplan | outcome | invocation peak "
          "IREE -> memplan (x bound) | IREE layout reproduced | run | pack s | command s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            try:
                mlir = export(name, Path(folder))
            except ModuleNotFoundError as err:
                if name.endswith(TORCH) and err.name and err.name.startswith("iree"):
                    print(f"| {name} | skipped: iree-turbine is not installed "
                          "(pip install '.[export]') |", flush=True)
                    continue
                raise
            dims = (f"batch={name.split(DYNAMIC)[1]}",) if DYNAMIC in name else ()
            document, last, seconds = plan(mlir, dims)
            if document is None:
                print(f"| {name} | refused: {last} |", flush=True)
                continue
            notes = document["notes"]
            reproduced = "NO" if NOT_REPRODUCED in notes else "yes"
            invocation = peaks(notes)
            for a in document["arenas"]:
                iree = (f"{a['runtime']:,} ({a['runtime'] / a['lower_bound']:.3f}x)"
                        if a["runtime"] is not None and a["lower_bound"] else
                        f"{a['runtime']:,}" if a["runtime"] is not None else "runtime-sized")
                outcome = OUTCOMES[a["status"]] + (
                    "" if a["chosen"] == "memplan" else f", {a['chosen']} kept")
                print(f"| {name} | {a['name']} | {a['tensors']} | {iree} | "
                      f"{a['lower_bound']:,} | {a['memplan']:,} | {outcome} | {invocation} | "
                      f"{reproduced} | {run_cell(document['check'])} | {a['seconds']:.2f} | "
                      f"{seconds:.1f} |", flush=True)
            for note in notes:
                if "left to IREE" in note:
                    print(f"| {name} | {note} |", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:] or ["mobilenet_v2", "resnet18"])
