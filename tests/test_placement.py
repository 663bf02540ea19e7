"""Placement rules, one test each, over census records built by hand."""

from __future__ import annotations

import dataclasses
import itertools

from place_reference import admit_group_reference

from memplan.analysis.census import Allocation
from memplan.analysis.devices import DeviceUse
from memplan.ir import SourceLoc
from memplan.mlir_requests import MlirPlacement, build_requests, request_of
from memplan.place import place
from memplan.targets import load_target

_line = itertools.count(1)


def alloc(nbytes: int | None, lifetime: tuple[int, int] = (0, 10), function: str = "f",
          space: str | None = None, op: str = "memref.alloc") -> Allocation:
    line = next(_line)
    return Allocation(
        op_name=op, function=function, location=SourceLoc("t.mlir", line, 5),
        element_type="i8", shape=(nbytes,), element_bytes=1, exact_bytes=nbytes,
        bound_bytes=nbytes, unbounded_reason=None if nbytes else "size depends on %n",
        memory_space=space, loop_depth=0, lifetime=lifetime)


def on(devices: tuple[str, ...], *allocations: Allocation) -> list:
    return [request_of(a, i, devices) for i, a in enumerate(allocations)]


def cpu(*allocations: Allocation) -> list:
    return on(("cpu",), *allocations)


def spaces(placement) -> list[str | None]:
    return [d.space for d in placement.decisions]


def test_x86_small_on_stack_large_on_heap():
    result = place(cpu(alloc(256), alloc(64 * 1024)), load_target("x86_64"))
    assert spaces(result) == ["stack", "heap"]
    assert "over the frame limit of 32768 B" in result.decisions[1].reason
    assert result.decisions[0].offset == 0 and result.decisions[1].offset is None


def test_micro_spills_by_size_through_its_pools():
    result = place(cpu(alloc(512), alloc(4096), alloc(3 << 20)), load_target("cortex-m55"))
    assert spaces(result) == ["stack", "sram", "dram"]
    assert "per-allocation limit of 1024 B" in result.decisions[1].reason
    assert "over the capacity of 2097152 B" in result.decisions[2].reason


def test_npu_touched_buffer_never_on_stack():
    requests = [*on(("cpu", "npu"), alloc(512)), *on(("cpu",), alloc(512))]
    requests[1] = dataclasses.replace(requests[1], key=1)
    result = place(requests, load_target("cortex-m55+ethos-u55"))
    assert spaces(result) == ["sram", "stack"]
    assert "stack: not addressable by npu" in result.decisions[0].reason


def test_many_small_allocations_overflowing_the_frame_spill():
    # Ten 1 KiB buffers: each passes TVM's 1024-byte rule, together 10 KiB > 8 KiB frame.
    live_together = cpu(*[alloc(1024, (i, 20)) for i in range(10)])
    result = place(live_together, load_target("cortex-m55"))
    assert spaces(result).count("stack") == 8 and spaces(result).count("sram") == 2
    frame = next(u for u in result.usage if u.space == "stack")
    assert frame.peak <= 8192
    spilled = [d for d in result.decisions if d.space == "sram"]
    assert all("full: the frame of @f would need at least 9216 B of 8192 B" in d.reason
               for d in spilled)


def test_many_small_allocations_with_disjoint_lifetimes_share_the_frame():
    one_at_a_time = cpu(*[alloc(1024, (2 * i, 2 * i + 1)) for i in range(10)])
    result = place(one_at_a_time, load_target("cortex-m55"))
    assert spaces(result) == ["stack"] * 10
    frame = next(u for u in result.usage if u.space == "stack")
    assert frame.peak == 1024 and {d.offset for d in result.decisions} == {0}


def test_buffer_inside_a_loop_gets_no_static_slot():
    from dataclasses import replace

    in_loop = replace(alloc(64), loop_depth=1)
    result = place(cpu(in_loop), load_target("x86_64"))
    assert spaces(result) == ["heap"]
    assert "stack: inside a loop" in result.decisions[0].reason
    result = place(cpu(in_loop), load_target("cortex-m55"))
    assert spaces(result) == ["heap"]
    assert "stack, sram, dram: inside a loop" in result.decisions[0].reason


def test_frames_are_per_function():
    requests = cpu(*[alloc(1024, (0, 5), function=fn) for fn in "abcdefghij"])
    result = place(requests, load_target("cortex-m55"))
    assert spaces(result) == ["stack"] * 10
    assert len([u for u in result.usage if u.space == "stack"]) == 10


def test_pool_capacity_is_checked_with_lifetimes_across_functions():
    # 1.5 MiB in each of two functions: SRAM (2 MiB) holds one; functions get their own
    # time window because a caller and its callee can be live together.
    big = 3 << 19
    result = place(cpu(alloc(big, function="a"), alloc(big, function="b")),
                   load_target("cortex-m55"))
    assert sorted(spaces(result)) == ["dram", "sram"]
    dram = next(d for d in result.decisions if d.space == "dram")
    assert "sram: full" in dram.reason


def test_pinned_pool_is_honoured():
    result = place(cpu(alloc(64, space="dram"), alloc(64, space='"sram"')),
                   load_target("cortex-m55"))
    assert spaces(result) == ["dram", "sram"]
    assert "stack, sram: the IR asks for memory space 'dram'" in result.decisions[0].reason


def test_workgroup_and_foreign_spaces_are_left_alone():
    result = place(cpu(alloc(64, space="workgroup"), alloc(64, space="private")),
                   load_target("x86_64"))
    assert spaces(result) == ["workgroup", "private"]
    assert result.decisions[0].offset is None and not result.unplaced


def test_unbounded_buffer_goes_to_an_unbounded_heap_only():
    result = place(cpu(alloc(None)), load_target("x86_64"))
    assert spaces(result) == ["heap"]
    assert "size not bounded (size depends on %n)" in result.decisions[0].reason


def test_nowhere_to_go_names_every_space_and_its_reason():
    result = place(cpu(alloc(None)), load_target("cortex-m55"))
    (decision,) = result.unplaced
    assert decision.space is None
    assert [space for space, _ in decision.refusals] == ["stack", "sram", "dram", "heap"]
    assert decision.reason == ("nowhere to go: stack, sram, dram: size not bounded (size depends "
                               "on %n); heap: holds only 32768 B and the size has no bound")


def test_npu_buffer_too_big_for_every_npu_space_is_refused():
    result = place(on(("cpu", "npu"), alloc(40 << 20)), load_target("cortex-m55+ethos-u55"))
    (decision,) = result.unplaced
    assert "heap: not reachable by npu" in decision.reason


def test_device_without_a_counterpart_on_the_target_falls_back_to_the_default():
    op = object()  # stands for the allocation op: requests find device uses by the op
    a = dataclasses.replace(alloc(128), op=op)
    (request,), _ = build_requests([a], {op: DeviceUse(("npu",), False)}, load_target("x86_64"))
    assert request.devices == ("cpu",)
    assert "npu: not a device of x86_64" in request.notes[0]
    (npu_request,), _ = build_requests([a], {op: DeviceUse(("npu",), True)},
                                    load_target("cortex-m55+ethos-u55"))
    assert npu_request.devices == ("cpu", "npu")


def test_offsets_in_a_pool_do_not_overlap_when_lifetimes_do():
    requests = cpu(*[alloc(4096, (0, 10)) for _ in range(3)])
    result = place(requests, load_target("cortex-m55"))
    offsets = sorted(d.offset for d in result.decisions)
    assert offsets == [0, 4096, 8192]


# --- writing the placement into the IR ------------------------------------------------

APPLY_SRC = """func.func @f() {
  %a = memref.alloc() : memref<16xf32>
  %b = memref.alloc() : memref<4096xf32>
  %c = memref.alloca() : memref<16384xf32>
  %c0 = arith.constant 0 : index
  %x = memref.load %a[%c0] : memref<16xf32>
  func.call @use(%b) : (memref<4096xf32>) -> ()
  %z = memref.load %c[%c0] : memref<16384xf32>
  memref.dealloc %a : memref<16xf32>
  memref.dealloc %b : memref<4096xf32>
  return
}
func.func private @use(memref<4096xf32>)
"""


def _f32(line: int, n: int, op: str = "memref.alloc") -> Allocation:
    return Allocation(op, "f", SourceLoc("x.mlir", line, 8), "f32", (n,), 4, 4 * n, 4 * n, None,
                      None, 0, (0, 10))


def _with_ops(module, allocations: list[Allocation]) -> list[Allocation]:
    """Hand-built records bound to the module's allocation ops, in order (as the census does)."""
    from memplan.ir.ops import ALLOCATION_OPS
    from memplan.ir.walk import walk

    ops = [op for op in walk(module.operation) if op.name in ALLOCATION_OPS]
    return [dataclasses.replace(a, op=op) for a, op in zip(allocations, ops, strict=True)]


def test_apply_placement_rewrites_and_verifies():
    from memplan.ir import parse_mlir
    from memplan.transforms.placement import apply_placement

    module = parse_mlir(APPLY_SRC, "x.mlir")
    allocations = _with_ops(module, [_f32(2, 16), _f32(3, 4096), _f32(4, 16384, "memref.alloca")])
    placement = MlirPlacement(place(cpu(*allocations), load_target("x86_64")),
                              tuple(allocations))
    assert spaces(placement) == ["stack", "stack", "heap"]
    assert apply_placement(module, placement) == 3
    assert module.operation.verify()
    text = str(module)
    # One frame of the packed size, the two stack buffers are views into it at their offsets.
    assert "memref.alloca() alignment = 64 {memplan.space = \"stack\"} : memref<16448xi8>" in text
    assert text.count("memref.view %alloca") == 2
    assert "memref.alloc() {memplan.space = \"heap\"} : memref<16384xf32>" in text
    assert text.count("memref.dealloc") == 1  # only the heap buffer, freed before return

    module = parse_mlir(APPLY_SRC, "x.mlir")
    bound = _with_ops(module, allocations)
    target = load_target("cortex-m55+ethos-u55")
    placement = MlirPlacement(place(on(("cpu", "npu"), *bound), target), tuple(bound))
    assert spaces(placement) == ["sram", "sram", "sram"]
    apply_placement(module, placement)
    assert module.operation.verify()
    text = str(module)
    assert 'memref.global "private" @memplan_pool_sram : memref<81984xi8, "sram">' in text
    assert text.count("memref.view %0") == 3 and "memref.dealloc" not in text
    assert "call @use(%memspacecast" in text  # callers keep their signatures


# --- memplan place on the bundled example ---------------------------------------------

def _example(name: str) -> str:
    from pathlib import Path

    return str(Path(__file__).resolve().parents[1] / "examples" / name)


def _place_json(capsys, target: str, name: str = "placement.mlir") -> dict:
    import json
    import os

    from memplan.cli import main

    path = name if os.path.isabs(name) else _example(name)
    assert main(["place", path, "--target", target, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _by_line(report: dict) -> dict[int, str]:
    return {a["location"]["line"]: a["space"] for a in report["allocations"]}


def test_example_placed_three_ways(capsys):
    x86 = _by_line(_place_json(capsys, "x86_64"))
    m55 = _by_line(_place_json(capsys, "cortex-m55"))
    ethos_report = _place_json(capsys, "cortex-m55+ethos-u55")
    ethos = _by_line(ethos_report)
    assert x86 == {22: "stack", 27: "stack", 31: "stack", 35: "stack", 41: "stack", 53: "heap"}
    assert m55 == {22: "stack", 27: "sram", 31: "sram", 35: "stack", 41: "stack", 53: "sram"}
    assert ethos == {22: "sram", 27: "sram", 31: "sram", 35: "sram", 41: "stack", 53: "sram"}
    # Nothing the NPU touches is on the stack.
    for a in ethos_report["allocations"]:
        if "npu" in a["devices"]:
            assert a["space"] != "stack"


def test_place_apply_writes_verified_ir_and_leaves_the_input_alone(tmp_path, capsys):
    from pathlib import Path

    from memplan.cli import main
    from memplan.ir import load_mlir

    source = Path(_example("placement.mlir"))
    before = source.read_text()
    out = tmp_path / "placed.mlir"
    assert main(["place", str(source), "--target", "cortex-m55+ethos-u55", "--apply",
                 "-o", str(out)]) == 0
    assert source.read_text() == before
    (chunk,) = load_mlir(out)  # parses and verifies
    text = out.read_text()
    assert '@memplan_pool_sram : memref<40960xi8, "sram">' in text
    assert text.count("memref.get_global @memplan_pool_sram") == 1
    assert "memref.alloca() alignment = 16 {memplan.space = \"stack\"} : memref<48xi8>" in text
    capsys.readouterr()
    # The placed IR places again: only the frame is left to allocate, and it stays.
    report = _place_json(capsys, "cortex-m55+ethos-u55", str(out))
    assert [a["space"] for a in report["allocations"]] == ["stack"]


def test_place_stack_frame_example_spills_what_the_frame_cannot_hold(capsys):
    report = _place_json(capsys, "cortex-m55", "stack_frame.mlir")
    together = [a["space"] for a in report["allocations"] if a["function"] == "all_live_together"]
    apart = [a["space"] for a in report["allocations"] if a["function"] == "one_at_a_time"]
    assert together.count("stack") == 8 and together.count("sram") == 2
    assert apart == ["stack"] * 10


def test_place_nowhere_to_go_is_exit_1_with_one_line_per_buffer(tmp_path, capsys):
    from memplan.cli import main

    path = tmp_path / "big.mlir"
    path.write_text("func.func @f(%n: index) {\n  %a = memref.alloc(%n) : memref<?xf32>\n"
                    "  return\n}\n")
    out = tmp_path / "never.mlir"
    assert main(["place", str(path), "--target", "cortex-m55", "--apply", "-o", str(out)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and f"{path}:2:8: error: memref.alloc in @f has nowhere to go" in err[0]
    assert "stack, sram, dram: size not bounded" in err[0] and "heap: holds only" in err[0]
    assert err[1] == f"memplan: nothing written to {out}: a buffer has nowhere to go"
    assert not out.exists()
    # opt --place follows the same rule (it used to write the file and exit 1).
    assert main(["opt", str(path), "--target", "cortex-m55", "--place", "-o", str(out)]) == 1
    assert capsys.readouterr().err.strip().splitlines()[-1].startswith(
        f"memplan: nothing written to {out}")
    assert not out.exists()


def test_place_bad_inputs_exit_2(tmp_path, capsys):
    from memplan.cli import main

    assert main(["place", _example("placement.mlir"), "--target", "nope"]) == 2
    assert main(["place", str(tmp_path / "missing.mlir"), "--target", "x86_64"]) == 2
    assert main(["place", _example("placement.mlir"), "--target", "x86_64", "--apply"]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 3


def test_opt_place_hoists_then_places(tmp_path, capsys):
    from memplan.cli import main
    from memplan.ir import load_mlir

    out = tmp_path / "opt.mlir"
    assert main(["opt", _example("loop_alloca.mlir"), "--target", "x86_64", "--place",
                 "-o", str(out)]) == 0
    load_mlir(out)  # parses and verifies
    text = out.read_text()
    # The hoisted, bounded buffers are placed: on x86_64 the small ones go to the stack.
    assert 'memplan.space = "stack"' in text and 'memplan.space = "heap"' in text
    assert "nowhere to go" not in capsys.readouterr().err


def test_packed_frame_computes_the_same_results_under_iree(tmp_path, capsys):
    """Buffers that share frame bytes by lifetime must not clobber each other."""
    from pathlib import Path

    from memplan.cli import main
    from memplan.runtimes.iree.memref_harness import check_equivalent

    source = Path(_example("placement_exec.mlir"))
    out = tmp_path / "placed.mlir"
    assert main(["place", str(source), "--target", "x86_64", "--apply", "-o", str(out)]) == 0
    offsets = [line for line in capsys.readouterr().out.splitlines() if line.startswith("chain ")]
    assert len({line.split()[5] for line in offsets}) == 2  # four buffers, two offsets
    (comparison,) = check_equivalent(source.read_text(), out.read_text(), ["chain"])
    assert comparison.identical
    # The check has teeth: move %b onto %a's bytes while %a is live and the output changes.
    placed = out.read_text().replace("memref.view %alloca[%c256]", "memref.view %alloca[%c0]", 1)
    (clobbered,) = check_equivalent(source.read_text(), placed, ["chain"])
    assert not clobbered.identical


def test_tensor_allocation_in_a_pool_names_the_memory_space(tmp_path, capsys):
    from memplan.cli import main

    path = tmp_path / "t.mlir"
    path.write_text("func.func @t() {\n  %e = bufferization.alloc_tensor() : tensor<4096xf32>\n"
                    "  return\n}\n")
    out = tmp_path / "out.mlir"
    assert main(["place", str(path), "--target", "cortex-m55", "--apply", "-o", str(out)]) == 0
    assert 'bufferization.alloc_tensor() <{memory_space = "sram"}>' in out.read_text()


def test_malformed_device_attribute_is_one_line_exit_2(tmp_path, capsys):
    from memplan.cli import main

    path = tmp_path / "d.mlir"
    path.write_text("func.func @f() {\n  %a = memref.alloc() {memplan.device = 3} : memref<4xf32>\n"
                    "  return\n}\n")
    assert main(["place", str(path), "--target", "x86_64"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}:2:8: memplan.device must be a device name" in err


# --- admission: incremental packing against the previous full re-pack per buffer -------

def _tiny_target():
    from memplan.targets.model import Heap, Pool, StackSpace, Target

    return Target("tiny", "contested spaces", ("cpu",),
                  stack=StackSpace(max_frame=1024, alignment=16, addressable_by=("cpu",)),
                  pools=(Pool("sram", 2048, alignment=32, reachable_by=("cpu",)),),
                  heap=Heap(("cpu",), capacity=None))


def _check_sound(result, target):
    """Every space's packing: aligned, no two buffers share bytes while both live (a
    function's buffers by lifetime, different functions' never in a pool), in capacity."""
    capacity = {"stack": target.stack.max_frame, "sram": target.pools[0].capacity}
    alignment = {"stack": target.stack.alignment, "sram": target.pools[0].alignment}
    for space in ("stack", "sram"):
        placed = [d for d in result.decisions if d.space == space]
        for d in placed:
            assert d.offset % alignment[space] == 0
            assert d.offset + d.request.size <= capacity[space]
        for k, a in enumerate(placed):
            for b in placed[k + 1:]:
                same_frame = a.request.scope == b.request.scope
                if space == "stack" and not same_frame:
                    continue
                (a_start, a_end), (b_start, b_end) = a.request.lifetime, b.request.lifetime
                together = not same_frame or (a_start < b_end and b_start < a_end)
                if together:
                    assert (a.offset + a.request.size <= b.offset
                            or b.offset + b.request.size <= a.offset)
    for use in result.usage:
        if use.capacity is not None:
            assert use.lower_bound <= use.peak <= use.capacity


def _buffer_strategy():
    from hypothesis import strategies as st

    return st.lists(st.tuples(st.integers(1, 40).map(lambda k: 16 * k),  # size
                              st.integers(0, 12), st.integers(1, 8),  # start, duration
                              st.sampled_from("ab")), min_size=1, max_size=24)


def _requests(buffers):
    return cpu(*[alloc(size, (start, start + length), function=fn)
                 for size, start, length, fn in buffers])


def test_incremental_admission_is_always_sound():
    from hypothesis import given, settings

    target = _tiny_target()

    @settings(max_examples=150, deadline=None)
    @given(_buffer_strategy())
    def check(buffers):
        requests = _requests(buffers)
        new = place(requests, target)
        old = place(requests, target, admission=admit_group_reference)
        _check_sound(new, target)
        _check_sound(old, target)
        # Nothing is lost: a buffer the stack or pool refuses still lands on the heap.
        assert not new.unplaced and not old.unplaced

    check()


def test_incremental_admission_keeps_as_many_buffers_as_the_old_one_give_or_take_one():
    """Both are greedy and neither is optimal, so they can part ways: on 300 seeded random
    problems they differ on 5, by one buffer either way (4285 buffers kept in the stack or
    the pool against 4286). Guard: never more than one buffer apart, in total within 1%."""
    import random

    target = _tiny_target()
    kept_new = kept_old = 0
    for seed in range(300):
        rng = random.Random(seed)
        requests = _requests([(16 * rng.randint(1, 40), rng.randint(0, 12), rng.randint(1, 8),
                               rng.choice("ab")) for _ in range(rng.randint(1, 30))])
        new = sum(d.space in ("stack", "sram") for d in place(requests, target).decisions)
        old = sum(d.space in ("stack", "sram")
                  for d in place(requests, target, admission=admit_group_reference).decisions)
        assert abs(new - old) <= 1, seed
        kept_new, kept_old = kept_new + new, kept_old + old
    assert kept_new >= 0.99 * kept_old


def test_incremental_admission_equals_the_old_one_when_everything_fits_or_nothing_shares():
    # Everything fits: one packing, as before. Every buffer live together: the lower bound
    # decides, as before. Both admissions agree buffer by buffer, offsets included.
    target = _tiny_target()
    for requests in (_requests([(64, i, 2, "a") for i in range(12)]),
                     _requests([(16 * (i + 1), 0, 20, "a") for i in range(12)])):
        new, old = place(requests, target), place(requests, target, admission=admit_group_reference)
        assert [(d.space, d.offset, d.reason) for d in new.decisions] == \
               [(d.space, d.offset, d.reason) for d in old.decisions]


def test_a_larger_buffer_drops_into_the_bytes_of_buffers_that_ended():
    # Four 256 B buffers fill the 1 KiB frame; a fifth, live with all of them, cannot fit
    # (refused by the lower bound); a 512 B one living after two of them end takes their
    # bytes (placed by best fit into the kept packing).
    target = _tiny_target()
    requests = _requests([(256, 0, 4, "a"), (256, 0, 4, "a"), (256, 0, 10, "a"),
                          (256, 0, 10, "a"), (272, 0, 10, "a"), (512, 5, 3, "a")])
    result = place(requests, target)
    assert [d.space for d in result.decisions] == ["stack"] * 4 + ["sram", "stack"]
    assert "would need at least 1296 B of 1024 B" in result.decisions[4].reason
    _check_sound(result, target)
