"""IREE's transient arenas: IREE's layout reproduced (checked against IREE's own pass),
memplan's plan written through IREE's pipelines, and the run check that can fail."""

from __future__ import annotations

import json
import random
import zipfile
from pathlib import Path

import pytest
from iree.compiler import ir

from memplan.cli import main
from memplan.errors import InputError
from memplan.plan.contract import ReadOptions
from memplan.plan.driver import plan_model
from memplan.report.json_schema import plan_json_problems
from memplan.runtimes.iree import packs as iree_packs
from memplan.runtimes.iree import program as ip
from memplan.runtimes.iree.layout import Layout, PackSlice, ResourceConfig, iree_layout
from memplan.runtimes.iree.packs import Pack
from memplan.targets import load_target

DATA = Path(__file__).parent / "data"
MLP = DATA / "iree_mlp.mlir"


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


def test_greedy_above_the_bound_memplan_at_it() -> None:
    # IREE's best-fit in program order leaves a hole the last slice does not fit in.
    slices = (PackSlice(0, 1, 640), PackSlice(0, 3, 64), PackSlice(2, 3, 320),
              PackSlice(2, 3, 384))
    pack = Pack("f", 0, "loc", slices, ResourceConfig())
    arena = ip.plan_arena(pack, seconds=5)
    assert arena.iree is not None and arena.memplan is not None
    assert arena.bound == 768
    assert arena.memplan.total == 768
    assert arena.iree.total > arena.bound
    assert arena.outcome is ip.ArenaOutcome.AT_BOUND


def test_unbounded_dynamic_slice_is_refused_with_reason() -> None:
    pack = Pack("f", 0, "loc", (PackSlice(0, 1, 64),
                                PackSlice(0, 1, None, why_unbounded="%sz: a function argument")),
                ResourceConfig())
    arena = ip.plan_arena(pack, seconds=1)
    assert arena.outcome is ip.ArenaOutcome.REFUSED and arena.memplan is None
    assert "%sz: a function argument" in (arena.reason or "")


def test_program_planned_written_and_checked_by_running(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture) -> None:
    source = MLP.read_bytes()
    program = ip.read_program(source, str(MLP))
    assert program.iree_reproduced
    assert [len(p.slices) for p in program.packs] == [2]
    # IREE's own layout through the split pipeline is IREE's compile, byte for byte.
    reference = ip.reference_vmfb(source, str(MLP))
    assert ip.write_program(program, {}) == reference

    # The CLI end to end: planned, written, run against IREE's own compile, reported.
    vmfb, plot, header = (tmp_path / n for n in ("mlp.vmfb", "mlp.svg", "mlp.h"))
    code = main(["plan", str(MLP), "--runtime", "iree", "-o", str(vmfb), "--check-run",
                 "--json", "--plot", str(plot), "--c-header", str(header), "--time-limit", "5"])
    document = json.loads(capsys.readouterr().out)
    assert code == 0
    assert plan_json_problems(document) == []
    (arena,) = document["arenas"]
    assert arena["memplan"] == arena["lower_bound"] == 131072 + 32768
    assert document["check"]["ran"] and document["check"]["identical"]
    assert any(n.startswith("invocation @main: transient peak IREE 163,840 B, memplan "
                            "163,840 B (1.000x)") for n in document["notes"])
    assert zipfile.is_zipfile(vmfb)  # IREE's .vmfb: its FlatBuffer in a zip
    assert plot.stat().st_size > 0
    assert "163840" in header.read_text()

    # A plan that puts two slices alive at once on the same bytes changes the outputs.
    def overlapping(pack: Pack) -> ip.ArenaPlan:
        sizes = [s.size for s in pack.slices]
        layout = Layout(tuple(0 for _ in sizes), max(sizes))
        return ip.ArenaPlan(pack, ip.ArenaOutcome.BEST_FOUND, None, None, layout)

    bad = ip.plan_iree_program(source, str(MLP), planner=overlapping)
    result = ip.check_run(bad, source, reference)
    assert not result.identical and "differs" in result.detail


def test_gpu_target_compiles_for_its_backend_and_is_not_run() -> None:
    fe, plan = plan_model(str(MLP), runtime="iree", options=ReadOptions(
        target=load_target("cuda-sm80"), write=False, time_limit=5))
    assert "compiled by IREE for cuda, sm_80" in plan.notes
    (arena,) = plan.arenas
    assert arena.size == arena.lower_bound == 131072 + 32768
    with pytest.raises(InputError, match="this machine cannot run"):
        fe.original(plan.view)


def test_target_without_an_iree_backend_is_refused() -> None:
    with pytest.raises(InputError, match="IREE has no backend memplan knows for target "
                       "'cortex-m4'"):
        plan_model(str(MLP), runtime="iree", options=ReadOptions(
            target=load_target("cortex-m4")))
