"""IREE's transient arenas against memplan's, on torchvision models with random weights.

    python benchmarks/iree_arena.py [MODEL ...]   (default: mobilenet_v2 resnet18)

Each model is exported to ONNX (PyTorch's TorchScript exporter), imported with IREE's
own importer with its weights external (`iree-import-onnx --externalize-params`),
planned by `memplan.models.iree_program` for llvm-cpu, and both `.vmfb`s (IREE's own and
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

from memplan.models import iree_program as ip


def export(name: str, folder: Path) -> Path:
    import torch
    import torchvision

    torch.manual_seed(0)
    model = getattr(torchvision.models, name)(weights=None).eval()
    onnx_path = folder / f"{name}.onnx"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.randn(1, 3, 224, 224),), str(onnx_path),
                          dynamo=False, opset_version=17)
    mlir = folder / f"{name}.mlir"
    subprocess.run(["iree-import-onnx", str(onnx_path), "--externalize-params",
                    "-o", str(mlir)], check=True, capture_output=True)
    return mlir


def main(names: list[str]) -> None:
    print("| model | arena | slices | IREE | bound | memplan | outcome | invocation peak "
          "IREE -> memplan | IREE layout reproduced | run | plan s |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as folder:
        for name in names:
            mlir = export(name, Path(folder))
            source = mlir.read_bytes()
            started = time.perf_counter()
            plan = ip.plan_iree_program(source, name)
            seconds = time.perf_counter() - started
            run = ip.check_run(plan, source)
            peaks = "; ".join(f"{p.iree:,} -> {p.memplan:,}" if p.iree is not None else "runtime"
                              for p in plan.peaks)
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
