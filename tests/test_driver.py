"""The model driver and its contract, on every front end's shared parts: the registry,
the one solve and its proof labels, placement across pools, the read-back check, and a
runtime crash in the child process said in one line.
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys

import pytest

from memplan.buffers import Arena, BufferRequest
from memplan.errors import InputError
from memplan.pack import Buffer, PackOptions, PlanStatus, Problem, pack, validate
from memplan.plan import entry_for, front_end
from memplan.plan.contract import ReadOptions
from memplan.plan.driver import PlanCheckError, check_written, plan_arena, plan_model
from memplan.report.json_schema import plan_json_problems
from memplan.targets.model import Pool, Target


def test_the_registry_finds_by_suffix_and_runtime_and_imports_lazily():
    assert entry_for("m.tflite").name == "tflm"
    assert entry_for("m.bin", "onnx").name == "onnx"
    with pytest.raises(InputError, match="unknown model format '.bin'"):
        entry_for("m.bin")
    with pytest.raises(InputError, match="unknown runtime 'tvm2'"):
        entry_for("m.bin", "tvm2")
    with pytest.raises(InputError, match="already planned"):
        entry_for("m.pte")
    code = ("import sys, memplan.plan as f; f.entry_for('m.pt2'); "
            "print(sorted(m for m in sys.modules if m.startswith('memplan.runtimes')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"  # no runtime's module imported yet
    assert front_end("m.onnx").name == "onnx"


def _keep_best(problem, node_limit, incumbents=None):
    """As the driver packs an arena, the search (when `node_limit` is not None) stopped by
    a count of nodes: a time limit gave another answer on a loaded machine."""
    return pack(problem, PackOptions(exact=node_limit is not None, node_limit=node_limit,
                                     incumbents=incumbents or {}))


def test_the_driver_packing_labels_the_proof_once(minimalloc_dir):
    from memplan.pack import read_problem

    # at the bound: nothing is lower
    easy = _keep_best(Problem((Buffer("a", 0, 2, 8), Buffer("b", 1, 3, 8))), 10_000)
    assert easy.status is PlanStatus.AT_BOUND and easy.peak == 16
    # two 3-byte buffers aligned to 4, live together: 6 bytes live, 7 needed, proven
    aligned = Problem((Buffer("a", 0, 2, 3, 4), Buffer("b", 0, 2, 3, 4)))
    exact, quick = _keep_best(aligned, 10_000), _keep_best(aligned, None)
    assert exact.lower_bound == 6 and exact.peak == exact.proven_bound == 7
    assert exact.status is PlanStatus.OPTIMAL and quick.status is PlanStatus.HEURISTIC
    # minimalloc's D: the exact search cannot close the gap in 100,000 nodes (nor in 8 s)
    hard = _keep_best(read_problem(minimalloc_dir / "D.1048576.csv"), 100_000)
    assert hard.status is PlanStatus.GAP
    assert hard.lower_bound <= hard.proven_bound < hard.peak
    validate(hard.problem, hard.solution, check_capacity=False)


def test_an_incumbent_is_kept_only_when_lower_and_must_be_valid():
    problem = Problem((Buffer("a", 0, 2, 8), Buffer("b", 1, 3, 8)))
    worse = _keep_best(problem, None, {"runtime": (16, 0)})
    assert worse.chosen == "memplan" and worse.peak == 16
    with pytest.raises(Exception, match="overlap"):
        _keep_best(problem, None, {"runtime": (0, 0)})


def _two_pools(fast: int) -> Target:
    return Target("t", "two pools", ("cpu",), pools=(
        Pool("sram", fast, 16, ("cpu",)), Pool("dram", 1 << 20, 16, ("cpu",))))


def test_a_splitting_runtime_gets_one_arena_per_pool_by_the_placement_policy():
    buffers = (BufferRequest(0, "a", 64, 0, 2), BufferRequest(1, "b", 64, 1, 3),
               BufferRequest(2, "big", 512, 1, 2), BufferRequest(3, "pinned", 32, 0, 3,
                                                                  pinned="dram"))
    plans = plan_arena(Arena("pools", buffers, 16), target=_two_pools(256), splits=True)
    by_name = {p.name: p for p in plans}
    assert set(by_name) == {"sram", "dram"}
    assert {b.name for b in by_name["sram"].buffers} == {"a", "b"}
    assert {b.name for b in by_name["dram"].buffers} == {"big", "pinned"}
    [spill] = by_name["dram"].spills
    assert spill.buffer.name == "big" and spill.reasons[0][0] == "sram"
    assert by_name["sram"].size <= 256
    # a runtime with one arena keeps one arena, in the first pool
    [one] = plan_arena(Arena("arena", buffers[:3], 16), target=_two_pools(1024))
    assert one.capacity == 1024 and one.size == one.lower_bound == 640


def test_a_join_shares_its_output_at_an_offset_and_the_plan_checks_it():
    """A zero-copy join: two 48-byte strips written where their bytes sit in the 96-byte
    output, so the three need 96 bytes, not 192; a tensor live meanwhile goes beside."""
    from memplan.buffers import group_offsets, merged, share_groups
    from memplan.check.offline_plan import offline_plan_problems

    strips = (BufferRequest(0, "top", 48, 0, 3, 16, shares_with=2, share_offset=48),
              BufferRequest(1, "bottom", 48, 1, 3, 16, shares_with=2, share_offset=0))
    out = BufferRequest(2, "joined", 96, 2, 4, 16)
    other = BufferRequest(3, "other", 32, 0, 4, 16)
    buffers = (*strips, out, other)
    [group, _] = share_groups(buffers)
    assert group_offsets(group) == {0: 48, 1: 0, 2: 0}
    block = merged(group)
    assert (block.size, block.start, block.end) == (96, 0, 4)
    [plan] = plan_arena(Arena("arena", buffers, 16), time_limit=None)
    assert plan.size == plan.lower_bound == 128
    assert plan.offsets[0] == plan.offsets[2] + 48 and plan.offsets[1] == plan.offsets[2]
    assert offline_plan_problems(list(buffers), dict(plan.offsets), 16) == []
    # the strips swapped, or the other tensor moved into the block, is unsound
    swapped = {**plan.offsets, 0: plan.offsets[1], 1: plan.offsets[0]}
    assert offline_plan_problems(list(buffers), swapped, 16)
    inside = {**plan.offsets, 3: plan.offsets[2] + 32}
    assert offline_plan_problems(list(buffers), inside, 16)
    # a strip whose place is off its alignment is reported
    odd = (dataclasses.replace(strips[0], share_offset=40, size=56),
           dataclasses.replace(strips[1], size=40), out, other)
    [plan] = plan_arena(Arena("arena", odd, 16), time_limit=None)
    assert any("alignment" in p for p in offline_plan_problems(list(odd), dict(plan.offsets),
                                                               16))
    # two members placed two ways in one block: no block holds them
    with pytest.raises(ValueError, match="two offsets"):
        group_offsets([BufferRequest(0, "a", 8, 0, 1, shares_with=1, share_offset=8),
                       BufferRequest(1, "b", 8, 0, 1, shares_with=0, share_offset=8)])


def test_a_buffer_released_in_parts_frees_its_bands_for_later_buffers():
    """An image read in three row bands, one per step, each step's output kept to the
    end: a band is dead once its step has run, so later outputs go where early bands
    were. Planned whole it needs 96 + 3 x 32 bytes; in parts 96 + 32."""
    from memplan.buffers import Part, parts_from_reads, pieces, released_in_parts
    from memplan.check.offline_plan import offline_plan_problems

    # with a halo: bytes [16, 32) are read at steps 0 and 1, so they die with the second
    assert parts_from_reads(96, 0, [(0, 0, 32), (1, 16, 64), (2, 64, 96)], 16) == (
        Part(0, 16, 1), Part(16, 48, 2), Part(64, 32, 3))
    assert parts_from_reads(96, 0, [(2, 0, 96)], 16) == ()  # all at once: nothing early
    parts = parts_from_reads(96, 0, [(0, 0, 32), (1, 32, 64), (2, 64, 96)], 16)
    image = BufferRequest(0, "image", 96, 0, 3, 16, parts=parts)
    assert [(p.offset, p.start, p.end) for p in pieces([image])] == [(0, 0, 1), (32, 0, 2),
                                                                      (64, 0, 3)]
    # a view of the first band (a slice sharing its bytes) holds that band one step more
    view = BufferRequest(9, "band", 32, 0, 2, 16, shares_with=0, share_offset=0)
    assert released_in_parts([image, view])
    assert [(p.offset, p.end) for p in pieces([image, view])] == [(0, 2), (32, 2), (64, 3)]
    assert not released_in_parts([image, dataclasses.replace(view, share_offset=80)])
    outs = tuple(BufferRequest(1 + i, f"out{i}", 32, i, 4, 16) for i in range(3))
    whole = (dataclasses.replace(image, parts=()), *outs)
    [before] = plan_arena(Arena("arena", whole, 16), time_limit=None)
    [after] = plan_arena(Arena("arena", (image, *outs), 16), time_limit=5)
    assert before.lower_bound == before.size == 96 + 3 * 32
    assert after.lower_bound == after.size == 96 + 32
    assert after.offsets[0] == 0  # pinned at the base: its bands are at fixed places
    offsets = dict(after.offsets)
    assert offline_plan_problems([image, *outs], offsets, 16) == []
    # the same offsets with the image whole overlap: the check sees the parts
    assert offline_plan_problems(list(whole), offsets, 16)
    # an output placed over a band still being read is caught
    early = {**offsets, 1: 48}
    assert any("overlap" in p for p in offline_plan_problems([image, *outs], early, 16))
    # two buffers in parts, one after the other: pinned, the second sits above the first
    # (192 B); packed whole they share the same bytes (96 B), which the driver keeps
    later = dataclasses.replace(image, key=5, name="later", start=3, end=6,
                                parts=tuple(dataclasses.replace(p, end=p.end + 3)
                                            for p in parts))
    [both] = plan_arena(Arena("arena", (image, later), 16), time_limit=5)
    assert both.size == 96 and both.offsets[0] == both.offsets[5]


def test_an_in_place_output_released_in_parts_holds_its_input_from_the_input_s_start():
    """An add written over its dying input `a` (step 2) whose output `x` is then read
    band by band (a stage input run patch by patch, issue 34): the group's bytes are
    `a`'s from step 0, so `e`, live at step 1 beside `a`, may not sit over them. The
    pieces once started at `x`'s first step and left `a`'s early steps unreserved."""
    from memplan.buffers import Part, pieces
    from memplan.check.offline_plan import offline_plan_problems

    a = BufferRequest(0, "a", 96, 0, 3, 16)
    x = BufferRequest(1, "x", 96, 2, 6, 16, shares_with=0,
                      parts=(Part(0, 32, 4), Part(32, 32, 5), Part(64, 32, 6)))
    e = BufferRequest(2, "e", 96, 1, 2, 16)
    assert [(p.offset, p.start, p.end) for p in pieces([a, x])] == [
        (0, 0, 4), (32, 0, 5), (64, 0, 6)]
    [plan] = plan_arena(Arena("arena", (a, x, e), 16), time_limit=None)
    assert plan.offsets[0] == plan.offsets[1]
    assert plan.offsets[2] >= plan.offsets[0] + 96 or plan.offsets[0] >= plan.offsets[2] + 96
    assert plan.size == plan.lower_bound == 192
    assert offline_plan_problems([a, x, e], dict(plan.offsets), 16) == []
    # `e` over `a` while both live is caught by the offline-plan check
    assert any("overlap" in p for p in offline_plan_problems(
        [a, x, e], {0: 0, 1: 0, 2: 0}, 16))


def test_rigid_groups_are_placed_by_first_fit_not_stacked_at_the_base():
    """Two images released in three bands each, live one after the other, each band's
    bytes reused by the outputs made after it dies. Stacked from the base the second
    image sits above the first (600 B); packed whole the outputs cannot use the bands
    (500 B); placed by first fit over time x address the second image reuses the first's
    bytes and the outputs its bands: the bound, 300 B."""
    from memplan.buffers import Part, pieces
    from memplan.pack import Buffer, Problem, Solution, validate

    def image(key: int, start: int) -> BufferRequest:
        return BufferRequest(key, f"image{key}", 300, start, start + 3, parts=tuple(
            Part(100 * i, 100, start + 1 + i) for i in range(3)))

    def out(key: int, start: int, end: int) -> BufferRequest:
        return BufferRequest(key, f"out{key}", 100, start, end)

    buffers = (image(0, 0), out(1, 1, 3), out(2, 2, 3), image(3, 3), out(4, 4, 6),
               out(5, 5, 6))
    [plan] = plan_arena(Arena("arena", buffers, 1), time_limit=None)
    assert plan.lower_bound == plan.size == 300
    # every piece at its image's offset plus the piece's, none meeting another in time
    # and address
    rects = [(b, p) for b in buffers for p in pieces([b])]
    validate(Problem(tuple(Buffer(f"{b.name}{p.offset}", p.start, p.end, p.size)
                           for b, p in rects)),
             Solution(tuple(plan.offsets[b.key] + p.offset for b, p in rects)))
    # the placements before: the images stacked from the base, the rest searched around
    # them; or every buffer packed whole
    from memplan.pack import PackOptions
    from memplan.pack.rigid import pack_rigid
    from memplan.plan.driver import _pieces_problem, _stacked

    problem, rigid, _ = _pieces_problem([[b] for b in buffers], 1, None)
    assert _stacked(rigid, problem) == (0, 300)
    only_stacked = pack_rigid(problem, PackOptions(
        exact=True, time_limit=2, rigid=tuple(rigid),
        rigid_bases={"stacked": _stacked(rigid, problem)}), orders=(), hang=False)
    assert only_stacked.peak == 600
    whole = tuple(dataclasses.replace(b, parts=()) for b in buffers)
    [blocks] = plan_arena(Arena("arena", whole, 1), time_limit=2)
    assert blocks.size == blocks.lower_bound == 500


def test_a_written_plan_that_reads_back_differently_is_caught(data):
    from memplan.runtimes.tflm import model as tfl

    path = str(data / "tiny_cnn_int8.tflite")
    fe, plan = plan_model(path, options=ReadOptions(write=True))
    check_written(fe, plan.view, plan.arenas, plan.written)  # what was written: sound
    model = tfl.load_tflite(path)
    everything_at_zero = tfl.with_offline_plan(
        (data / "tiny_cnn_int8.tflite").read_bytes(),
        [0 if t.role is tfl.Role.PLANNED else -1 for t in model.tensors], path)
    with pytest.raises(PlanCheckError, match="differs from the plan written"):
        check_written(fe, plan.view, plan.arenas, everything_at_zero)


def test_tflm_crashing_in_a_small_arena_is_an_arena_it_does_not_run_in(tmp_path):
    """TFLM's interpreter segfaults in some arenas too small for a model instead of refusing
    them (here MIRROR_PAD at 1024 B). Each attempt runs forked: the crash is said, the
    caller lives on, and the search for the smallest arena and the run check go through."""
    pytest.importorskip("tflite_micro")
    import tflite_ops

    from memplan.runtimes.tflm import interpreter as tflm

    data = tflite_ops.mirror_pad()
    inputs = tflm.random_inputs(data)
    crashed = tflm.run(data, 1024, inputs)
    assert not crashed.ok and crashed.crashed == "SIGSEGV"
    smallest = tflm.smallest_arena(data, inputs)
    assert tflm.run(data, smallest, inputs).ok and smallest > 1024
    source, out = tmp_path / "pad.tflite", tmp_path / "planned.tflite"
    source.write_bytes(data)
    done = subprocess.run(
        [sys.executable, "-m", "memplan", "plan", str(source), "-o", str(out), "--check-run",
         "--json"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert plan_json_problems(document) == [] and document["check"]["identical"] is True
    assert out.exists()


@pytest.mark.parametrize(("which", "code", "said"), [
    ("original", 2, "crashed (SIGSEGV) on the input model at arena 3488 B"),
    ("planned", 1, "crashed (SIGSEGV) on the planned model at arena 3488 B")])
def test_a_runtime_crash_is_one_line_with_its_exit_status(data, monkeypatch, which, code,
                                                          said):
    """What the child reports when the runtime kills it becomes one line: exit 2 when the
    input itself crashes the runtime, 1 when only the planned model does."""
    pytest.importorskip("tflite_micro")
    from memplan.plan import child
    from memplan.plan.driver import RunFailure, check_run

    fe, plan = plan_model(str(data / "tiny_cnn_int8.tflite"),
                          options=ReadOptions(write=True, time_limit=1.0))
    monkeypatch.setattr(child, "run_in_child", lambda *a, **k: child.Crash(
        which, "at arena 3488 B", "SIGSEGV", -11))
    with pytest.raises(RunFailure) as failure:
        check_run(fe, plan)
    assert failure.value.exit_code == code
    assert said in str(failure.value) and "\n" not in str(failure.value)


def test_a_runtime_past_its_memory_cap_is_stopped_in_one_line(data, monkeypatch):
    """The check-run child is watched: past its resident-memory cap (here 24 MiB, less
    than Python, numpy and TFLM take to start) it is killed and said in one line."""
    pytest.importorskip("tflite_micro")
    from memplan.plan import child
    from memplan.plan.driver import RunFailure, check_run

    fe, plan = plan_model(str(data / "tiny_cnn_int8.tflite"),
                          options=ReadOptions(write=True, time_limit=1.0))
    monkeypatch.setattr(child, "RUN_MEMORY", 24 * 2**20)
    with pytest.raises(RunFailure) as failure:
        check_run(fe, plan)
    said = str(failure.value)
    assert "was stopped: it used more than 24 MiB of memory" in said and "\n" not in said
    assert failure.value.exit_code == 2


def test_the_schema_check_can_fail(data):
    _, plan = plan_model(str(data / "tiny_cnn_int8.tflite"))
    from memplan.report.model_plan_report import plan_json

    document = plan_json(plan)
    assert plan_json_problems(document) == []
    document["arenas"][0]["status"] = "proven"
    del document["total"]
    found = plan_json_problems(document)
    assert any("missing total" in p for p in found)
    assert any("'proven' is not one of" in p for p in found)
