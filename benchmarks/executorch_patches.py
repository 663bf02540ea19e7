"""Patch-by-patch execution of a .pt2's first stage under ExecuTorch (issue 34): the
bound and ExecuTorch's memory pools before and after.

    python benchmarks/executorch_patches.py [--max-recompute R] [--only NAME ...]

The models are float32 CNNs exported here with torch.export (random weights, eval mode):
five-layer CNNs at 224x224 in a few shapes (strides, channels, a max pool, batch norm), and
torchvision's MobileNetV2 at widths 0.35 and 1.0, 96-224. For each: `rewrite_patches` chooses the
split point and grid within the recompute budget; both programs are lowered by ExecuTorch
with its own planner (`greedy`), so the pools compared are ExecuTorch's, and run by
executorch.runtime on the same random input, outputs compared byte for byte. `bound` is
the most bytes live at once in the lowered program (no plan of it is smaller).
`--graph-fixes` lowers both with ExecuTorch's constant propagation: without it, a linear
layer's weight is transposed at run time into a planned tensor (MobileNetV2's classifier:
5.1 MB, the whole bound).
"""

from __future__ import annotations

import argparse
import time

import torch
from torch import nn

from memplan.report.table import format_table
from memplan.runtimes.executorch import patches
from memplan.runtimes.executorch.program import Planner, identical, lower, run


def cnn5(channels=(16, 32, 64, 64, 128), strides=(2, 2, 2, 2, 2), pool: bool = False,
         batch_norm: bool = False):
    layers, c = [], 3
    for i, (out, s) in enumerate(zip(channels, strides, strict=True)):
        layers += [nn.Conv2d(c, out, 3, s, 1), *([nn.BatchNorm2d(out)] if batch_norm else []),
                   nn.ReLU()]
        if pool and i == 0:
            layers.append(nn.MaxPool2d(3, 2, 1))
        c = out
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, 10))


def mobilenet_v2(width: float):
    import torchvision

    return torchvision.models.mobilenet_v2(width_mult=width)


MODELS = {
    "cnn5_224": (lambda: cnn5(), 224),
    "cnn5_224_s1": (lambda: cnn5(strides=(1, 2, 2, 2, 2)), 224),
    "cnn5_224_wide": (lambda: cnn5((32, 64, 128, 128, 256)), 224),
    "cnn5_224_pool": (lambda: cnn5(pool=True), 224),
    "cnn5_224_c8": (lambda: cnn5((8, 16, 32, 32, 64)), 224),
    "cnn5_224_bn": (lambda: cnn5(batch_norm=True), 224),
    **{f"mobilenet_v2_{width}_{size}": (lambda width=width: mobilenet_v2(width), size)
       for width in (0.35, 1.0) for size in (96, 128, 160, 192, 224)},
}

HEADERS = ("model", "split", "grid", "MACs", "MACs after", "stage +", "model +", "bound",
           "bound after", "x", "pools ET", "pools ET after", "x", "identical", "s")


def row(name: str, build, size: int, max_recompute: float, graph_fixes: bool) -> tuple:
    started = time.perf_counter()
    torch.manual_seed(0)
    exported = torch.export.export(build().eval(), (torch.randn(1, 3, size, size),))
    result = patches.rewrite_patches(exported, max_recompute=max_recompute)
    if result.model is None:
        return (name, result.reason, "-", result.macs_before, *("-",) * 10,
                f"{time.perf_counter() - started:.0f}")
    before = lower(exported, Planner.GREEDY, graph_fixes=graph_fixes)
    after = lower(result.model, Planner.GREEDY, graph_fixes=graph_fixes)
    inputs = [torch.randn(1, 3, size, size, generator=torch.Generator().manual_seed(1))]
    same = identical(run(before.program, inputs), run(after.program, inputs))
    rows, cols = result.grid
    return (name, f"{result.split_tensor} (#{result.split_after})", f"{rows}x{cols}",
            result.macs_before, result.macs_after, f"{result.stage_recompute:.1%}",
            f"{result.macs_after / result.macs_before - 1:.1%}", before.bound(), after.bound(),
            f"{after.bound() / before.bound():.3f}", before.total, after.total,
            f"{after.total / before.total:.3f}", "yes" if same else "NO",
            f"{time.perf_counter() - started:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-recompute", type=float, default=0.2)
    parser.add_argument("--only", nargs="*", choices=sorted(MODELS))
    parser.add_argument("--graph-fixes", action="store_true",
                        help="lower with ExecuTorch's constant propagation and reinplace "
                        "pass (folds a linear layer's transposed weight, else planned)")
    args = parser.parse_args()
    rows = []
    for name in args.only or MODELS:
        build, size = MODELS[name]
        rows.append(row(name, build, size, args.max_recompute, args.graph_fixes))
        # The table so far after each model: a long run still leaves what it measured.
        print(format_table(HEADERS, rows), end="\n\n", flush=True)


if __name__ == "__main__":
    main()
