"""Scalable vectors: `vector.vscale` bounded by vscale_range, the target, or --vscale-max."""

from __future__ import annotations

from pathlib import Path

from memplan.analysis.assumptions import Assumption, VscaleBound
from memplan.analysis.census import take_census
from memplan.ir import load_mlir

PEERS = Path(__file__).parent / "data" / "peers" / "iree"
HOIST = PEERS / "hoist_statically_bound_allocations.mlir"
UNBOUND = PEERS / "check_ir_before_llvm_conversion_not_fail_unbound.mlir"


def _census(path: Path, split: int, given: list[object] = ()) -> list:
    return take_census(load_mlir(path)[split], given)


def test_function_vscale_range_bounds_a_scalable_size() -> None:
    # hoist split 01: alloca(4 * vscale) x i32 under vscale_range<1, 16>: as IREE, 4*16*4 bytes.
    (alloca,) = _census(HOIST, 1)
    assert alloca.bound_bytes == 256


def test_without_a_bound_the_note_names_vscale() -> None:
    (alloca,) = _census(UNBOUND, 3)  # 16384 * vscale, no vscale_range, no target
    assert alloca.bound_bytes is None
    assert "vector.vscale" in alloca.unbounded_reason
    assert "--vscale-max" in alloca.unbounded_reason


def test_command_line_bound_applies_and_wins_over_the_function() -> None:
    (alloca,) = _census(UNBOUND, 3, [VscaleBound(16)])
    assert alloca.bound_bytes == 16384 * 16 * 4  # 1 MiB: over any CPU stack
    (narrower,) = _census(HOIST, 1, [VscaleBound(2)])
    assert narrower.bound_bytes == 4 * 2 * 4


def test_min_with_vscale_is_bounded_by_vscale_alone() -> None:
    # hoist split 04: affine.min(iv, 32 * vscale) with iv < %arg0 unbounded.
    (alloca,) = _census(HOIST, 4, [VscaleBound(16)])
    assert alloca.bound_bytes == 32 * 16 * 4  # IREE's bound; not the argument's
    (open_,) = _census(HOIST, 4)
    assert "vector.vscale" in open_.unbounded_reason and "%arg0" in open_.unbounded_reason
    (by_arg,) = _census(HOIST, 4, [Assumption("arg0", hi=100)])
    assert by_arg.bound_bytes == 99 * 4  # the argument alone bounds it too (iv < 100)


def test_vscale_max_zero_leaves_it_unbounded_over_the_function() -> None:
    # As IREE's vscale-max=0: the function's vscale_range<1, 16> is not trusted.
    (alloca,) = _census(HOIST, 1, [VscaleBound(None)])
    assert alloca.bound_bytes is None
    assert "--vscale-max 0" in alloca.unbounded_reason
