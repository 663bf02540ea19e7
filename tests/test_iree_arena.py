"""IREE's transient arenas through the one pipeline `memplan plan X.mlir --runtime iree`
takes (the driver with `runtimes/iree/front_end.py`): IREE's layout reproduced (checked
against IREE's own pass), memplan's plan written through IREE's pipelines, IREE's kept
when lower, and the run check that can fail."""

from __future__ import annotations

import dataclasses
import io
import json
import random
import zipfile
from pathlib import Path

import pytest
from iree.compiler import ir

from memplan.cli import main
from memplan.errors import InputError
from memplan.plan.contract import ReadOptions
from memplan.plan.driver import PlanCheckError, check_run, check_written, plan_arena, plan_model
from memplan.report.json_schema import plan_json_problems
from memplan.runtimes.iree import packs as iree_packs
from memplan.runtimes.iree import program as ip
from memplan.runtimes.iree.front_end import NOT_REPRODUCED, pack_arena
from memplan.runtimes.iree.layout import Layout, PackSlice, ResourceConfig, iree_layout
from memplan.runtimes.iree.packs import Pack
from memplan.targets import load_target

DATA = Path(__file__).parent / "data"
MLP = DATA / "iree_mlp.mlir"  # IREE's own layout is at the bound
SKIP = DATA / "iree_skip.mlir"  # IREE's own layout is above it


def _pack_module(packs: list[list[tuple[int, int, int]]]) -> str:
    """One function per pack of (start, end, size) slices, in IREE's stream syntax."""
    funcs = []
    for n, slices in enumerate(packs):
        sizes = sorted({s for _, _, s in slices})
        consts = "\n".join(f"  %c{s} = arith.constant {s} : index" for s in sizes)
        body = ",\n".join(f"    [{a}, {b}] = %c{s}" for a, b, s in slices)
        results = ", ".join(f"%p#{i}" for i in range(len(slices) + 1))
        types = ", ".join("index" for _ in range(len(slices) + 1))
        funcs.append(f"util.func public @f{n}() -> ({types}) {{\n{consts}\n"
                     f"  %p:{len(slices) + 1} = stream.resource.pack slices({{\n{body}\n"
                     f"  }}) : index\n  util.return {results} : {types}\n}}")
    return "\n".join(funcs)


def test_iree_layout_matches_iree_own_pass_on_random_packs() -> None:
    rng = random.Random(7)
    packs = []
    for _ in range(4):
        slices = []
        for _ in range(25):
            start = rng.randrange(0, 30)
            slices.append((start, start + rng.randrange(0, 8), rng.choice(
                [1, 63, 64, 100, 4096, 5000, rng.randrange(1, 20000)])))
        packs.append(sorted(slices))
    module = ir.Module.parse(_pack_module(packs), ir.Context())
    read = iree_packs.read_packs(module)
    assert [len(p.slices) for p in read] == [25] * 4
    layouts = [iree_layout([s.size for s in p.slices], p.slices, p.config) for p in read]
    assert ip._check_reproduction(module, read, layouts, "random packs")
    # and the check can fail: a layout that is not IREE's is told apart
    wrong = [Layout(tuple(o + 64 for o in layouts[0].offsets), layouts[0].total), *layouts[1:]]
    assert not ip._check_reproduction(module, read, wrong, "random packs")


def _planned(slices: tuple[PackSlice, ...], time_limit: float = 5):  # noqa: ANN202
    """One pack planned as `memplan plan` plans it: the front end's arena, IREE's
    reproduced layout its runtime plan, the driver's `plan_arena`."""
    pack = Pack("f", 0, "loc", slices, ResourceConfig())
    iree = iree_layout([s.size for s in slices], slices, pack.config)
    arena = pack_arena(pack, iree)
    assert not isinstance(arena, str)
    (plan,) = plan_arena(arena, time_limit=time_limit)
    return iree, plan


def test_greedy_above_the_bound_memplan_at_it() -> None:
    # IREE's best-fit in program order leaves a hole the last slice does not fit in.
    iree, plan = _planned((PackSlice(0, 1, 640), PackSlice(0, 3, 64), PackSlice(2, 3, 320),
                           PackSlice(2, 3, 384)))
    assert plan.lower_bound == 768
    assert plan.size == 768
    assert plan.proof == "at_bound" and plan.chosen == "memplan"
    assert plan.runtime == iree.total > plan.lower_bound


def test_iree_layout_kept_when_lower_than_memplan_heuristics() -> None:
    # Without the exact search, memplan's heuristics end above the bound here while
    # IREE's greedy is at it: the driver keeps IREE's offsets, the runtime's plan.
    slices = (PackSlice(0, 1, 256), PackSlice(0, 0, 256), PackSlice(2, 2, 320),
              PackSlice(0, 0, 128), PackSlice(1, 2, 320), PackSlice(0, 2, 640))
    iree, plan = _planned(slices, time_limit=0)
    assert plan.chosen == "IREE LayoutSlices" and plan.proof == "at_bound"
    assert plan.size == plan.lower_bound == iree.total == 1280
    assert [plan.offsets[k] for k in range(len(slices))] == list(iree.offsets)
    # With the search, memplan reaches the bound too, and the tie goes to memplan.
    _, searched = _planned(slices)
    assert searched.size == 1280 and searched.proof == "at_bound"


def test_unbounded_dynamic_slice_is_refused_with_reason() -> None:
    pack = Pack("f", 0, "loc", (PackSlice(0, 1, 64),
                                PackSlice(0, 1, None, why_unbounded="%sz: a function argument")),
                ResourceConfig())
    note = pack_arena(pack, None)
    assert isinstance(note, str)
    assert note == ("f#0: left to IREE, a slice has no proven size bound "
                    "(%sz: a function argument)")


def test_bounded_dynamic_slice_planned_at_its_bound_without_iree_plan() -> None:
    # IREE sizes a runtime slice only at run time: there is no static IREE plan to beat.
    pack = Pack("f", 0, "loc", (PackSlice(0, 1, 64), PackSlice(0, 1, None, bound=100)),
                ResourceConfig())
    arena = pack_arena(pack, iree_layout([64], pack.slices[:1], pack.config))
    assert not isinstance(arena, str)
    assert arena.runtime is None
    assert [b.size for b in arena.buffers] == [64, 128]
    (plan,) = plan_arena(arena, time_limit=5)
    assert plan.size == plan.lower_bound == 192


def test_program_planned_written_and_checked_by_running(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture) -> None:
    source = MLP.read_bytes()
    program = ip.read_program(source, str(MLP))
    assert program.iree_reproduced
    assert [len(p.slices) for p in program.packs] == [2]
    # IREE's own layout through the split pipeline is IREE's compile, byte for byte, and
    # so is its compile finished from the stream phase the layout was read from.
    reference = ip.reference_vmfb(source, str(MLP))
    assert ip.write_program(program, {}) == reference
    assert ip.own_vmfb(program) == reference

    # The CLI end to end where memplan's plan is lower than IREE's: planned, written, run
    # against IREE's own compile, reported.
    vmfb, plot, header = (tmp_path / n for n in ("skip.vmfb", "skip.svg", "skip.h"))
    code = main(["plan", str(SKIP), "--runtime", "iree", "-o", str(vmfb), "--check-run",
                 "--json", "--plot", str(plot), "--c-header", str(header), "--time-limit", "5"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    assert plan_json_problems(document) == []
    (arena,) = document["arenas"]
    assert arena["memplan"] == arena["lower_bound"] == 81920
    assert arena["status"] == "at_bound" and arena["runtime"] == 86016
    assert arena["chosen"] == "memplan"
    assert document["runtime_planner"] == "IREE LayoutSlices"
    assert document["check"]["ran"] and document["check"]["identical"]
    assert any(n.startswith("invocation @main: transient peak IREE 86,016 B, memplan "
                            "81,920 B (1.000x)") for n in document["notes"])
    assert zipfile.is_zipfile(vmfb)  # IREE's .vmfb: its FlatBuffer in a zip
    assert vmfb.read_bytes() != ip.reference_vmfb(SKIP.read_bytes(), str(SKIP))
    assert plot.stat().st_size > 0
    assert "81920" in header.read_text()

    assert NOT_REPRODUCED not in document["notes"]

    # The same path in-process, then a plan that puts two slices alive at once on the same
    # bytes: the read-back check calls it unsound, and the run's outputs differ.
    fe, plan = plan_model(str(SKIP), runtime="iree", options=ReadOptions(write=True,
                                                                         time_limit=5))
    assert plan.own is None
    assert check_run(fe, plan).identical
    (good,) = plan.arenas
    overlapping = dataclasses.replace(good, offsets={k: 0 for k in good.offsets})
    bad = fe.write(plan.view, {good.name: overlapping.offsets})
    with pytest.raises(PlanCheckError, match="unsound"):
        check_written(fe, plan.view, [overlapping], bad)
    assert not check_run(fe, dataclasses.replace(plan, written=bad)).identical


def test_iree_own_vmfb_kept_when_its_layout_is_at_the_bound(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """A tie with memplan's plan: IREE's own .vmfb is written (no memplan offsets, no
    resumed compile), and --check-run says it has nothing of memplan's to run."""
    vmfb = tmp_path / "mlp.vmfb"
    code = main(["plan", str(MLP), "--runtime", "iree", "-o", str(vmfb), "--check-run",
                 "--json", "--time-limit", "5"])
    captured = capsys.readouterr()
    document = json.loads(captured.out)
    assert code == 0
    assert f"memplan: wrote the runtime's own model, unchanged to {vmfb}" in captured.err
    assert plan_json_problems(document) == []
    (arena,) = document["arenas"]
    assert arena["memplan"] == arena["lower_bound"] == arena["runtime"] == 131072 + 32768
    assert arena["chosen"] == "IREE LayoutSlices" and arena["status"] == "at_bound"
    assert "IREE's own layout is at the bound: its .vmfb kept, nothing recompiled" in \
        document["notes"]
    assert document["check"] == {"ran": False, "identical": None, "runtime": "IREE's runtime",
                                 "arenas": None, "error": None}
    assert vmfb.read_bytes() == ip.reference_vmfb(MLP.read_bytes(), str(MLP))

    fe, plan = plan_model(str(MLP), runtime="iree", options=ReadOptions(write=True,
                                                                        time_limit=5))
    (planned,) = plan.arenas
    iree = plan.view.arenas[0].runtime
    assert plan.own is not None and planned.offsets == iree.offsets
    check_written(fe, plan.view, plan.arenas, plan.written)  # IREE's offsets, sound
    with pytest.raises(ValueError, match="nothing of memplan's to run"):
        check_run(fe, plan)
    # The library: asked to run, it runs nothing and returns IREE's own bytes.
    from memplan import api

    result = api.plan(MLP, runtime="iree", check_run=True, time_limit=5)
    assert result.check is None and result.model.own == plan.own
    assert result.written == vmfb.read_bytes()
    # Without a written model asked for, nothing is compiled past the layout.
    _, report_only = plan_model(str(MLP), runtime="iree", options=ReadOptions(time_limit=5))
    assert report_only.written is None and report_only.own is None


def test_tie_goes_to_the_runtime_only_for_a_front_end_that_keeps_its_own() -> None:
    """The tie rule is the front end's: the same arena, IREE's plan kept on a tie only
    with `runtime_ties`; memplan's kept otherwise (today's rule for other runtimes)."""
    source = MLP.read_bytes()
    program = ip.read_program(source, str(MLP))
    arena = pack_arena(program.packs[0], program.iree[0])
    (mine,) = plan_arena(arena, time_limit=5)
    (theirs,) = plan_arena(arena, time_limit=5, runtime_ties=True)
    assert mine.size == theirs.size == arena.runtime.sizes[arena.name]
    assert mine.chosen == "memplan" and theirs.chosen == "IREE LayoutSlices"
    assert theirs.offsets == arena.runtime.offsets and theirs.proof is mine.proof


def test_gpu_target_compiles_for_its_backend_and_is_not_run() -> None:
    fe, plan = plan_model(str(MLP), runtime="iree", options=ReadOptions(
        target=load_target("cuda-sm80"), write=False, time_limit=5))
    assert "compiled by IREE for cuda, sm_80" in plan.notes
    (arena,) = plan.arenas
    assert arena.size == arena.lower_bound == 131072 + 32768
    with pytest.raises(InputError, match="this machine cannot run"):
        fe.original(plan.view)


_SMALL_GPU_PROGRAM = """
func.func @main(%x: tensor<8x16xf32>, %w: tensor<16x16xf32>) -> tensor<8x16xf32> {
  %c0 = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x16xf32>
  %f = linalg.fill ins(%c0 : f32) outs(%e : tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<8x16xf32>, tensor<16x16xf32>)
                     outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  %n = linalg.matmul ins(%m, %w : tensor<8x16xf32>, tensor<16x16xf32>)
                     outs(%f : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %n : tensor<8x16xf32>
}
"""
# What each GPU preset's .vmfb holds: IREE's executable format and the chip its code is for
# (cuda-sm90 is sm_80 PTX: IREE 3.13 has no sm_90 target).
_GPU_CODE = {"cuda-sm80": (b"cuda-nvptx-fb", b".target sm_80"),
             "cuda-sm90": (b"cuda-nvptx-fb", b".target sm_80"),
             "rocm-gfx942": (b"rocm-hsaco-fb", b"gfx942")}


@pytest.mark.parametrize("preset", sorted(_GPU_CODE))
def test_every_gpu_preset_compiles_a_dispatch_to_a_vmfb(preset: str, tmp_path: Path) -> None:
    from memplan.runtimes.iree.targets import PRESETS

    assert {n for n in PRESETS if load_target(n).devices == ("gpu",)} == set(_GPU_CODE)
    path = tmp_path / "small.mlir"
    path.write_text(_SMALL_GPU_PROGRAM)
    _, plan = plan_model(str(path), runtime="iree", options=ReadOptions(
        target=load_target(preset), write=True, time_limit=5))
    assert plan.written is not None
    for marker in _GPU_CODE[preset]:
        assert marker in plan.written, marker
    stand_in = [n for n in plan.notes if "cannot target" in n]
    assert stand_in == (["IREE 3.13 cannot target sm_90: compiled as sm_80 PTX, which the "
                         "CUDA driver compiles for sm_90 when it loads the module; IREE's "
                         "kernels then keep within sm_80's 163 KiB of workgroup memory, not "
                         "sm_90's 227 KiB"] if preset == "cuda-sm90" else [])


def test_each_entry_against_the_bound_of_its_own_arenas(tmp_path: Path) -> None:
    """A small entry beside a large one: each invocation's ratio is against its own arenas'
    bound, not the largest arena of the whole program."""
    small = _SMALL_GPU_PROGRAM.replace("@main", "@small")
    path = tmp_path / "two.mlir"
    path.write_text(small + MLP.read_text())
    _, plan = plan_model(str(path), runtime="iree", options=ReadOptions(time_limit=5))
    invocations = {n.split(":")[0]: n for n in plan.notes if n.startswith("invocation @")}
    assert set(invocations) == {"invocation @main", "invocation @small"}
    assert "(1.000x) against a bound of 163,840 B (the largest arena's of @main)" in \
        invocations["invocation @main"]
    small_bound = max(a.lower_bound for a in plan.arenas if a.lower_bound < 163840)
    assert f"(1.000x) against a bound of {small_bound:,} B (the largest arena's of @small)" \
        in invocations["invocation @small"], invocations


_DYNAMIC_BATCH = """
func.func @main(%x: tensor<?x16xf32>, %w: tensor<16x16xf32>) -> tensor<?x16xf32> {
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %e = tensor.empty(%n) : tensor<?x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %m = linalg.matmul ins(%x, %w : tensor<?x16xf32>, tensor<16x16xf32>)
                     outs(%f : tensor<?x16xf32>) -> tensor<?x16xf32>
  %k = linalg.matmul ins(%m, %w : tensor<?x16xf32>, tensor<16x16xf32>)
                     outs(%f : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %k : tensor<?x16xf32>
}
"""


def test_dynamic_batch_planned_and_run_at_the_dim_given(tmp_path: Path) -> None:
    path = tmp_path / "dynamic.mlir"
    path.write_text(_DYNAMIC_BATCH)
    _, unpinned = plan_model(str(path), runtime="iree", options=ReadOptions(time_limit=5))
    assert not unpinned.arenas  # runtime-sized: left to IREE
    for dims in ({"batch": 64}, {"arg0.0": 64}):
        fe, plan = plan_model(str(path), runtime="iree", options=ReadOptions(
            dims=dims, write=True, time_limit=5))
        assert "planned and compiled at --dim sizes: @main arg0.0=64" in plan.notes
        # Two 64x16 f32 results alive at once (the second matmul reads the first).
        assert [a.size for a in plan.arenas] == [a.lower_bound for a in plan.arenas]
        assert sum(a.size for a in plan.arenas) >= 64 * 16 * 4
        # IREE's layout ties with memplan's here, so its own .vmfb is kept; the pinned
        # program written through memplan's path (the resumed compile) still runs the same.
        assert plan.own is not None
        written = fe.write(plan.view, plan.offsets())
        check_written(fe, plan.view, plan.arenas, written)
        assert check_run(fe, dataclasses.replace(plan, written=written, own=None)).identical
    source = path.read_text()
    with pytest.raises(InputError, match=r"--dim rows: not a dynamic input dimension of the "
                       r"program \(memplan names them: arg0\.0, batch\)"):
        plan_model(str(path), runtime="iree", options=ReadOptions(dims={"rows": 4}))
    assert path.read_text() == source  # the input is never modified
    with pytest.raises(InputError, match="take no input of dynamic shape"):
        plan_model(str(MLP), runtime="iree", options=ReadOptions(dims={"batch": 4}))


def test_dynamic_batch_planned_once_for_every_size_up_to_a_bound(tmp_path: Path) -> None:
    """`--dim batch=..64`: the program stays dynamic, the one plan is made at the bound (a
    64x16 f32 slice) and the written .vmfb runs identically to IREE's own compile of the
    input at batch 1, 32 and 64."""
    path = tmp_path / "dynamic.mlir"
    path.write_text(_DYNAMIC_BATCH)
    fe, plan = plan_model(str(path), runtime="iree", options=ReadOptions(
        dim_bounds={"batch": 64}, write=True, time_limit=5))
    assert "planned and compiled at --dim sizes: @main arg0.0=..64" in plan.notes
    assert any(n.startswith("one plan for every size up to the bound (@main arg0.0<=64): 1 "
                            "runtime-sized slice") for n in plan.notes), plan.notes
    assert [a.size for a in plan.arenas] == [64 * 16 * 4]
    assert plan.own is None  # IREE has no static layout of a runtime-sized pack
    original = fe.original(plan.view)
    with zipfile.ZipFile(io.BytesIO(original)) as z:
        spec = json.loads(z.read("run.json"))
    assert [e["shapes"][0][0] for e in spec["entries"]] == [[1, 16], [32, 16], [64, 16]]
    assert check_run(fe, plan).identical
    with pytest.raises(InputError, match=r"--dim batch: given both a size and a bound"):
        plan_model(str(path), runtime="iree", options=ReadOptions(
            dims={"batch": 4}, dim_bounds={"batch": 8}))


def test_bounded_dim_of_a_torch_dialect_program() -> None:
    """iree-turbine's form: the bound is stated around torch_c conversions; two 8x16 f32
    transients at the bound, run identically at batch 1, 4 and 8."""
    fe, plan = plan_model(str(DATA / "iree_torch_dynamic.mlir"), runtime="iree",
                          options=ReadOptions(dim_bounds={"batch": 8}, write=True, time_limit=5))
    assert "planned and compiled at --dim sizes: @main arg0.0=..8" in plan.notes
    assert [(a.size, a.lower_bound) for a in plan.arenas] == [(2 * 8 * 16 * 4,) * 2]
    assert check_run(fe, plan).identical


# A transient of %m rows of 16 f32, filled from the first row of %x and multiplied: the
# programs below differ only in how %m follows the dynamic sizes.
_ROWS_OF_M = """
  %s = tensor.extract_slice %x[0, 0] [1, 16] [1, 1] : tensor<?x16xf32> to tensor<1x16xf32>
  %e = tensor.empty(%m) : tensor<?x16xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(i, j) -> (0, j)>,
                                        affine_map<(i, j) -> (i, j)>],
                       iterator_types = ["parallel", "parallel"]}
       ins(%s : tensor<1x16xf32>) outs(%e : tensor<?x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  } -> tensor<?x16xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x16xf32>) -> tensor<?x16xf32>
  %u = linalg.matmul ins(%t, %w : tensor<?x16xf32>, tensor<16x16xf32>)
                     outs(%f : tensor<?x16xf32>) -> tensor<?x16xf32>
  %g0 = tensor.empty() : tensor<16x16xf32>
  %g = linalg.fill ins(%z : f32) outs(%g0 : tensor<16x16xf32>) -> tensor<16x16xf32>
  %c = linalg.generic {indexing_maps = [affine_map<(i, j, k) -> (k, i)>,
                                        affine_map<(i, j, k) -> (k, j)>,
                                        affine_map<(i, j, k) -> (i, j)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
       ins(%u, %u : tensor<?x16xf32>, tensor<?x16xf32>) outs(%g : tensor<16x16xf32>) {
  ^bb0(%v: f32, %v2: f32, %o: f32):
    %h = arith.mulf %v, %v2 : f32
    %k = arith.addf %o, %h : f32
    linalg.yield %k : f32
  } -> tensor<16x16xf32>
  return %c : tensor<16x16xf32>
}
"""


_SHRINKING = """
func.func @main(%x: tensor<?x16xf32>, %w: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %c0 = arith.constant 0 : index
  %c65 = arith.constant 65 : index
  %z = arith.constant 0.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?x16xf32>
  %m = arith.subi %c65, %n : index
""" + _ROWS_OF_M


def test_bounded_dim_refused_where_sizes_shrink_as_it_grows(tmp_path: Path) -> None:
    path = tmp_path / "shrinking.mlir"
    path.write_text(_SHRINKING)
    # A (65 - batch) x 16 f32 transient: 4,096 B at batch 1, 3,648 B at 8.
    with pytest.raises(InputError, match=r"@main#0's runtime-sized slice 0 takes 4,096 B at "
                       r"arg0\.0=1 but 3,648 B at the bound: sizes do not grow"):
        plan_model(str(path), runtime="iree", options=ReadOptions(
            dim_bounds={"batch": 8}, time_limit=5))


# Two dynamic dimensions: the batch of x (arg0.0) and the columns of w (arg1.1). The
# matmul's a x b f32 result is a transient the reduction reads.
_TWO_DIMS = """
func.func @main(%x: tensor<?x16xf32>, %w: tensor<16x?xf32>) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0.0 : f32
  %a = tensor.dim %x, %c0 : tensor<?x16xf32>
  %b = tensor.dim %w, %c1 : tensor<16x?xf32>
  %e = tensor.empty(%a, %b) : tensor<?x?xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<?x?xf32>) -> tensor<?x?xf32>
  %m = linalg.matmul ins(%x, %w : tensor<?x16xf32>, tensor<16x?xf32>)
                     outs(%f : tensor<?x?xf32>) -> tensor<?x?xf32>
  %r0 = tensor.empty(%a) : tensor<?xf32>
  %r = linalg.fill ins(%z : f32) outs(%r0 : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>,
                                        affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
       ins(%m : tensor<?x?xf32>) outs(%r : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %t = arith.mulf %v, %v : f32
    %u = arith.addf %o, %t : f32
    linalg.yield %u : f32
  } -> tensor<?xf32>
  return %s : tensor<?xf32>
}
"""


def test_two_bounded_dims_checked_and_run_at_every_corner(tmp_path: Path) -> None:
    """`--dim arg0.0=..8 --dim arg1.1=..4`: one plan at the bound, run identically to IREE's
    own compile at the four corners (each dimension at 1 or its bound) and the middle."""
    path = tmp_path / "two.mlir"
    path.write_text(_TWO_DIMS)
    fe, plan = plan_model(str(path), runtime="iree", options=ReadOptions(
        dim_bounds={"arg0.0": 8, "arg1.1": 4}, write=True, time_limit=5))
    assert "planned and compiled at --dim sizes: @main arg0.0=..8, arg1.1=..4" in plan.notes
    assert any("every corner and the middle" in n for n in plan.notes), plan.notes
    assert "--check-run runs each entry at 5 size(s): every corner (each bounded dimension " \
        "at 1 or at its bound), and the middle (each at half its bound, rounded up)" in plan.notes
    assert sum(a.size for a in plan.arenas) >= 8 * 4 * 4  # the 8x4 f32 product at the bound
    with zipfile.ZipFile(io.BytesIO(fe.original(plan.view))) as z:
        spec = json.loads(z.read("run.json"))
    shapes = [(e["shapes"][0][0][0], e["shapes"][1][0][1]) for e in spec["entries"]]
    assert shapes == [(1, 1), (1, 4), (4, 2), (8, 1), (8, 4)]
    assert check_run(fe, plan).identical


def test_corners_are_capped() -> None:
    from memplan.runtimes.iree.dims import corners
    from memplan.runtimes.iree.front_end import RUN_POINTS

    four = corners({"main": {(0, k): 4 for k in range(4)}}, RUN_POINTS)
    assert four.every_corner and four.corners == 16 and len(four.points) == 17
    # A fifth dimension doubles the corners past the cap: all at 1, all at the bound, each
    # alone at one end with the others at the other end, and the middle.
    five = corners({"main": {(0, k): 4 for k in range(5)}}, RUN_POINTS)
    assert not five.every_corner and five.corners == 2 + 2 * 5 and len(five.points) == 13
    assert five.points[0] == {"main": dict.fromkeys([(0, k) for k in range(5)], 1)}
    assert five.points[-1] == {"main": dict.fromkeys([(0, k) for k in range(5)], 4)}
    # A dimension bounded at 1 has one end: no corner twice.
    assert len(corners({"f": {(0, 0): 1}, "g": {(1, 0): 2}}, RUN_POINTS).points) == 2


# A transient of a*b + 2*(9-a)*(5-b) rows for a = batch of x (<= 8), b = length of y (<= 4):
# 34 rows at the bound, no more along either dimension with the other at its bound
# (6b + 10, 2a + 18), but 65 rows with both at 1: only a corner shows it.
_CORNER_ONLY = """
func.func @main(%x: tensor<?x16xf32>, %y: tensor<?xf32>, %w: tensor<16x16xf32>)
    -> tensor<16x16xf32> {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c9 = arith.constant 9 : index
  %z = arith.constant 0.0 : f32
  %a = tensor.dim %x, %c0 : tensor<?x16xf32>
  %b = tensor.dim %y, %c0 : tensor<?xf32>
  %ab = arith.muli %a, %b : index
  %p = arith.subi %c9, %a : index
  %q = arith.subi %c5, %b : index
  %pq = arith.muli %p, %q : index
  %pq2 = arith.muli %pq, %c2 : index
  %m = arith.addi %ab, %pq2 : index
""" + _ROWS_OF_M


def test_a_size_larger_only_at_a_corner_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "corner.mlir"
    path.write_text(_CORNER_ONLY)
    # 65 x 16 f32 = 4,160 B at (1, 1); 34 x 16 f32 = 2,176 B at the bound.
    with pytest.raises(InputError, match=r"takes 4,160 B at arg0\.0=1, arg1\.0=1 but 2,176 B "
                       r"at the bound: sizes do not grow"):
        plan_model(str(path), runtime="iree", options=ReadOptions(
            dim_bounds={"arg0.0": 8, "arg1.0": 4}, time_limit=5))


def test_bounded_dim_refused_by_runtimes_that_plan_one_size(
        capsys: pytest.CaptureFixture) -> None:
    assert main(["plan", str(DATA / "small_cnn.onnx"), "--dim", "batch=..4"]) == 2
    assert capsys.readouterr().err.strip().endswith(
        "--dim batch=..4: the onnx runtime is planned at one size per dimension (give NAME=N)")


def test_target_without_an_iree_backend_is_refused() -> None:
    with pytest.raises(InputError, match="IREE has no backend memplan knows for target "
                       "'cortex-m4'"):
        plan_model(str(MLP), runtime="iree", options=ReadOptions(
            target=load_target("cortex-m4")))
