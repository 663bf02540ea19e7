"""A transient one IREE region fills and a later one reads, folded into the later region's
pack (`runtimes/iree/fold.py`): on hand-written stream modules (lit-style, matched with
FileCheck), then through IREE's compile and runtime on a small program."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from iree.compiler import ir
from test_passes_golden import filecheck

from memplan.plan.contract import ReadOptions
from memplan.plan.driver import check_run, plan_model
from memplan.runtimes.iree.fold import FoldedAlloca, fold_transients

DATA = Path(__file__).parent / "data"
FOLD = DATA / "iree_fold.mlir"
COPY = DATA / "iree_region_copy.mlir"  # a constant copied by one region, updated by the next


def _splits() -> list[str]:
    return FOLD.read_text().split("\n// -----\n")


def test_folded_module_matches_its_checks() -> None:
    printed, folded = [], []
    for split in _splits():
        module = ir.Module.parse(split, ir.Context())
        folded += [dataclasses.replace(f, location="") for f in fold_transients(module)]
        assert module.operation.verify()
        printed.append(module.operation.get_asm())
    status, message = filecheck(FOLD, "CHECK", "\n// -----\n".join(printed), "<folded>")
    assert status == 0, message
    assert folded == [FoldedAlloca("folded", 0, 2, 256, 1, ""),
                      FoldedAlloca("freed_on_its_own", 0, 2, 256, 1, "")]


def test_a_later_command_narrows_the_last_reader_step() -> None:
    """The last reader reaches no slice of the pack: its step is bounded by the next
    command's (slices 0 and 1, [1, 2] and [2, 3]: the reader is at step 1 at most)."""
    split = _splits()[0].replace(
        "stream.cmd.copy %arg0[%c0], %arg1[%p#1], %c128 : !stream.resource<transient>{%c256} "
        "-> !stream.resource<transient>{%p#0}",
        "stream.cmd.copy %arg0[%c0], %arg2[%c0], %c128 : !stream.resource<transient>{%c256} "
        "-> !stream.resource<external>{%c128}")
    assert split != _splits()[0]
    module = ir.Module.parse(split, ir.Context())
    (folded,) = fold_transients(module)
    assert folded.end == 1  # not 3, the pack's last step


def test_program_folded_planned_at_one_bound_and_run() -> None:
    """Through IREE: the copy's 320 B transient is planned in the next region's arena, the
    invocation peak is the bound of that one plan, and the .vmfb runs bit-identically to
    IREE's own (which holds the copy apart); the copy's slice laid over a slice alive with
    it makes the run differ."""
    fe, plan = plan_model(str(COPY), runtime="iree", options=ReadOptions(write=True,
                                                                         time_limit=5))
    program = plan.view.source["program"]
    assert [len(p.slices) for p in program.packs] == [3]
    assert [a.pack for a in program.allocas] == [None, 0]  # IREE's: the copy apart
    assert [a.pack for a in program.planned_allocas] == [0]
    (good,) = plan.arenas
    (view,) = plan.view.arenas
    assert view.runtime.sizes[view.name] == 960
    assert good.size == good.lower_bound == 640 and plan.own is None
    assert any("IREE's layout holds 960 B across 2 allocations" in n for n in plan.notes)
    assert any(n.startswith("invocation @main: transient peak IREE 960 B, memplan 640 B "
                            "(1.000x) against a bound of 640 B") for n in plan.notes)
    assert check_run(fe, plan).identical

    overlapping = dict(good.offsets)
    overlapping[2] = overlapping[0]  # slice 0 is [1, 2], the copy's [0, 1]
    bad = fe.write(plan.view, {good.name: overlapping})
    assert not check_run(fe, dataclasses.replace(plan, written=bad)).identical


def test_a_transfers_flush_is_not_a_step() -> None:
    """A flush (as a transfer lowers to) between the reader and the next command: counted
    as a step, it would leave the reader none (at most 0, its slice starts at 1)."""
    flush = "stream.cmd.flush %arg2[%c0 for %c128] : !stream.resource<external>{%c128}\n"
    copy = "    stream.cmd.copy %arg1[%p#1], %arg1[%p#2]"
    split = _splits()[0].replace(copy, "    " + flush + copy)
    assert split != _splits()[0]
    (folded,) = fold_transients(ir.Module.parse(split, ir.Context()))
    assert folded.end == 1
