"""Workgroup memory per kernel and stack frames per function, over hand-built census records."""

from __future__ import annotations

from memplan.analysis.census import Allocation
from memplan.ir import SourceLoc
from memplan.place.findings import format_diagnostic
from memplan.place.frame import frame_findings
from memplan.place.workgroup import kernel_budgets, workgroup_findings
from memplan.targets import load_target

GFX942 = load_target("rocm-gfx942")
M55 = load_target("cortex-m55")


def alloc(shape: tuple[int | None, ...], function: str, line: int, space: str | None,
          lifetime: tuple[int, int] = (0, 10), op: str = "memref.alloc",
          bound: int | None = None) -> Allocation:
    exact = None if None in shape else 4 * _product(shape)
    return Allocation(op, function, SourceLoc("k.mlir", line, 10), "f32", shape, 4, exact,
                      exact if exact is not None else bound,
                      None if exact is not None or bound else "depends on %n", space, 0,
                      lifetime)


def _product(shape: tuple[int | None, ...]) -> int:
    n = 1
    for d in shape:
        n *= d or 1
    return n


def test_kernel_within_the_limit_passes():
    tiles = [alloc((128, 66), "fits", 3, "workgroup"), alloc((64, 66), "fits", 4, "workgroup")]
    assert workgroup_findings(tiles, GFX942) == []
    (budget,) = kernel_budgets(tiles, GFX942)
    assert budget.peak == 50688 and budget.fits


def test_kernel_over_the_limit_names_total_limit_and_contributors():
    big = alloc((218468,), "over", 7, "workgroup")
    (finding,) = workgroup_findings([big], GFX942)
    text = format_diagnostic(finding)
    assert "kernel @over uses 873872 bytes of workgroup memory" in text
    assert "limit of rocm-gfx942 is 65536 bytes" in text
    assert "k.mlir:7:10: note: 873872 bytes: memref.alloc 218468xf32" in text


def test_contributors_are_listed_largest_first():
    a = alloc((1000,), "k", 1, "workgroup")
    b = alloc((20000,), "k", 2, "workgroup")
    (finding,) = workgroup_findings([a, b], GFX942)
    assert [n.loc.line for n in finding.notes] == [2, 1]


def test_lifetimes_let_tiles_share_workgroup_memory():
    # Two 48 KiB tiles: together 96 KiB > 64 KiB, but never live at the same time.
    first = alloc((12288,), "k", 1, "workgroup", lifetime=(0, 5))
    second = alloc((12288,), "k", 2, "workgroup", lifetime=(5, 10))
    assert workgroup_findings([first, second], GFX942) == []
    overlapping = alloc((12288,), "k", 2, "workgroup", lifetime=(4, 10))
    assert len(workgroup_findings([first, overlapping], GFX942)) == 1


def test_dynamic_workgroup_allocation_without_bound_is_rejected():
    (finding,) = workgroup_findings([alloc((None,), "dyn", 5, "workgroup")], GFX942)
    assert "dynamic size with no proven bound (depends on %n)" in finding.message


def test_dynamic_workgroup_allocation_with_bound_is_budgeted_by_its_bound():
    bounded = alloc((None,), "dyn", 5, "workgroup", bound=1024)
    assert workgroup_findings([bounded], GFX942) == []


def test_private_and_global_allocations_are_ignored():
    private = alloc((218468,), "p", 1, "private")
    global_ = alloc((218468,), "p", 2, None)
    assert workgroup_findings([private, global_], GFX942) == []


def test_cpu_target_has_no_workgroup_memory():
    (finding,) = workgroup_findings([alloc((4,), "k", 1, "workgroup")], load_target("x86_64"))
    assert "has no workgroup memory" in finding.message


def test_small_allocas_overflowing_the_frame_together_are_rejected():
    # The case TVM's per-allocation rule misses: ten 1 KiB allocas, all live at once.
    allocas = [alloc((256,), "f", i + 1, None, (i, 20), "memref.alloca") for i in range(10)]
    (finding,) = frame_findings(allocas, M55)
    assert "@f needs a 10240-byte stack frame" in finding.message
    assert "within the 1024-byte per-allocation limit" in finding.message
    assert len(finding.notes) == 10


def test_small_allocas_with_disjoint_lifetimes_fit_the_frame():
    allocas = [alloc((256,), "f", i + 1, None, (2 * i, 2 * i + 1), "memref.alloca")
               for i in range(10)]
    assert frame_findings(allocas, M55) == []


def test_alloca_over_per_allocation_limit_and_npu_alloca_are_rejected():
    big = alloc((512,), "f", 1, None, op="memref.alloca")
    (finding,) = frame_findings([big], M55)
    assert "over the per-allocation stack limit of cortex-m55 (1024 bytes)" in finding.message
    small = alloc((4,), "f", 2, None, op="memref.alloca")
    ethos = load_target("cortex-m55+ethos-u55")
    (npu,) = frame_findings([small], ethos, {0: ("cpu", "npu")})
    assert "used by npu, which cannot address the stack" in npu.message
