"""Build the small ONNX test model (random weights) with PyTorch's TorchScript exporter.

    python benchmarks/onnx_build.py tests/data/small_cnn.onnx

A CNN with a Flatten (a view) and a symbolic batch dimension named `batch`, so that
planning it needs `--dim batch=1`.
"""

from __future__ import annotations

import sys
import warnings

import torch
from torch import nn


def main() -> None:
    torch.manual_seed(14)
    model = nn.Sequential(
        nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.Flatten(), nn.Linear(8 * 8 * 8, 10),
    ).eval()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(model, (torch.randn(1, 1, 16, 16),), sys.argv[1], dynamo=False,
                          input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": {0: "batch"}, "y": {0: "batch"}})


if __name__ == "__main__":
    main()
