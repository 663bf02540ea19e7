"""Shared helpers for the tensor-level tests: parse inline MLIR, find ops, run the CLI."""

from __future__ import annotations

from pathlib import Path

from memplan.cli import main
from memplan.ir import MlirChunk, parse_mlir
from memplan.ir.walk import functions, walk

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"
DATA = Path(__file__).resolve().parent / "data"


def chunk(text: str, path: str = "case.mlir") -> MlirChunk:
    return MlirChunk(path, 0, 1, parse_mlir(text, path))


def ops_named(module, name: str) -> list:
    return [op.opview for fn in functions(module) for op in walk(fn) if op.name == name]


def run_cli(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err
