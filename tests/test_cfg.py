"""Unstructured loops: blocks on a cf.br cycle run more than once."""

from __future__ import annotations

from pathlib import Path

from memplan.ir import load_mlir
from memplan.ir.cfg import cfg_cycle_around, region_cycles
from memplan.ir.walk import functions, symbol_name, walk


def test_back_edge_loop_diamond_and_nested_region(data: Path) -> None:
    (chunk,) = load_mlir(data / "cf_loops.mlir")  # keeps the module alive while ops are used
    found = {symbol_name(f): [(op, f) for op in walk(f) if op.name == "memref.alloca"]
             for f in functions(chunk.module)}
    (op, func), = found["cf_loop"]
    branch = cfg_cycle_around(op, func)
    assert branch is not None and branch.name == "cf.br"  # ^bb2 -> ^bb1 closes the loop
    (op, func), = found["cf_diamond"]
    assert cfg_cycle_around(op, func) is None  # runs at most once
    (op, func), = found["nested_in_scf_in_cf_loop"]
    branch = cfg_cycle_around(op, func)  # the scf.if is in ^bb1, which branches back to itself
    assert branch is not None and branch.name == "cf.cond_br"


def test_single_block_and_cycle_membership(data: Path) -> None:
    (chunk,) = load_mlir(data / "cf_loops.mlir")
    loop = next(f for f in functions(chunk.module) if symbol_name(f) == "cf_loop")
    blocks = list(loop.regions[0].blocks)
    cycles = region_cycles(loop.regions[0])
    assert [cycles.contains(b) for b in blocks] == [False, True, True, False]
    (entry_only,) = load_mlir(data / "entry_alloca.mlir")
    func = functions(entry_only.module)[0]
    assert not region_cycles(func.regions[0]).closing_branch
