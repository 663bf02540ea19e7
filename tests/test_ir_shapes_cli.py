"""check and opt on what real IR carries: targets in the IR, dumps, stream files, private
memory, frames over budget after hoisting, alignment padding."""

from __future__ import annotations

import json
from pathlib import Path

from memplan.cli import main


def _run(capsys, *args: object) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def test_limits_from_the_ir_apply_and_say_so(capsys, data: Path) -> None:
    code, out, _ = _run(capsys, "check", data / "targets_in_ir.mlir", "--target", "x86_64",
                        "--json")
    assert code == 1
    report = json.loads(out)
    frame = next(f for f in report["stack_frames"] if f["function"] == "f16k")
    assert (frame["bytes"], frame["limit"]) == (24576, 16384)  # the preset says 32768
    assert frame["limit_source"] == "max_stack_allocation_size on func.func @f16k in the IR"
    kernel = next(k for k in report["workgroup"] if k["function"] == "gpu")
    assert kernel["limit"] == 32768  # x86_64 has no workgroup memory; the IR gives it
    codes = sorted(d["code"] for d in report["diagnostics"] if d["severity"] == "error")
    assert codes == ["stack-frame-limit", "workgroup-limit"]


def test_the_command_line_wins_over_the_ir(capsys, data: Path) -> None:
    code, out, _ = _run(capsys, "check", data / "targets_in_ir.mlir", "--target", "x86_64",
                        "--max-frame", "32768", "--workgroup-limit", "65536")
    assert code == 0
    assert "24576 of 32768 bytes (limit: --max-frame on the command line;" in out
    assert "49152 of 65536 bytes (limit: --workgroup-limit on the command line;" in out


def test_opt_keeps_a_hoisted_buffer_over_the_frame_and_says_so(capsys, data: Path) -> None:
    code, out, err = _run(capsys, "opt", data / "loop_alloca_64k.mlir", "--target", "x86_64")
    assert code == 1
    assert "memref.alloca() : memref<16384xi32>" in out  # hoisted, bounded
    assert "bound to memref<16384xi32> (65536 bytes) at the function entry" in err
    assert "error: stack frame of @big_in_loop needs 65536 bytes" in err
    # --place puts it where it fits instead: the heap.
    code, out, err = _run(capsys, "opt", data / "loop_alloca_64k.mlir", "--target", "x86_64",
                          "--place")
    assert code == 0, err
    assert "memref.alloca() : memref<16384xi32>" not in out


def test_packed_frame_larger_than_unpacked_is_explained(capsys, data: Path) -> None:
    code, out, _ = _run(capsys, "check", data / "frame_padding.mlir", "--target", "x86_64")
    assert code == 0
    line = next(x for x in out.splitlines() if x.startswith("stack frame @three_words"))
    assert "3 allocations packed, 12 unpacked; packed is larger by" in line
    assert "bytes of alignment padding" in line


def test_private_memory_counts_in_the_per_thread_frame(capsys) -> None:
    example = Path(__file__).resolve().parents[1] / "examples" / "workgroup_memory_budget.mlir"
    _, out, _ = _run(capsys, "check", example, "--target", "cuda-sm80", "--json")
    report = json.loads(out)
    private = [d for d in report["diagnostics"] if d["code"] == "stack-frame-limit"]
    assert len(private) == 1 and "@private_big needs 873872 bytes" in private[0]["message"]
    assert "524288-byte frame limit of target 'cuda-sm80'" in private[0]["message"]
    _, out, _ = _run(capsys, "check", example, "--target", "rocm-gfx942", "--json")
    assert not [d for d in json.loads(out)["diagnostics"] if d["code"].startswith("stack")]


def test_check_a_pipeline_dump_per_snapshot_or_one_pass(capsys, data: Path) -> None:
    dump = data / "pipeline_after_all.dump"
    code, out, _ = _run(capsys, "check", dump, "--target", "x86_64", "--dump")
    assert code == 1  # the first snapshot still has the alloca in its loop
    assert out.count("== snapshot") == 3
    assert "redefinition" not in out
    code, out, _ = _run(capsys, "check", dump, "--target", "x86_64", "--dump", "--pass",
                        "iree-codegen-hoist-statically-bound-allocations")
    assert code == 0 and out.count("== snapshot") == 1
    assert "memref<16xi32>" in out
    code, _, err = _run(capsys, "check", dump, "--target", "x86_64", "--dump", "--pass", "cse")
    assert code == 2 and "no snapshot after pass 'cse'" in err
    code, _, err = _run(capsys, "check", dump, "--target", "x86_64")
    assert code == 2 and "redefinition" in err  # without --dump it is one module, as MLIR says


def test_copies_reads_a_stream_file_alone(capsys, data: Path) -> None:
    code, out, _ = _run(capsys, "copies", data / "concat.stream.mlir", "--json")
    assert code == 0
    (cat,) = [f for f in json.loads(out) if f["function"] == "cat"]
    assert (cat["transient_bytes"], cat["copied_bytes"]) == (256, 256)
    assert [c["op"] for c in cat["copies"]] == ["stream.cmd.copy"] * 2


def test_stack_in_loop_note_is_opts_decision(capsys, data: Path) -> None:
    _, _, err = _run(capsys, "check", data / "iter_args.mlir", "--target", "x86_64")
    notes = [x for x in err.splitlines() if "note: `memplan opt`" in x]
    assert len(notes) == 4
    assert sum("hoists it to the function entry" in n for n in notes) == 3
    (refused,) = [n for n in notes if "cannot hoist it" in n]
    assert "iter_args.mlir:67:10" in refused and "yielded by the loop it is made in" in refused


def test_dump_options_refuse_bad_input_in_one_line(capsys, data: Path) -> None:
    code, _, err = _run(capsys, "check", data / "entry_alloca.mlir", "--target", "x86_64",
                        "--pass", "cse")
    assert code == 2 and "--pass chooses snapshots of a dump: add --dump" in err
    code, _, err = _run(capsys, "check", data / "entry_alloca.mlir", "--target", "x86_64",
                        "--dump")
    assert code == 2 and "not a pass-pipeline dump" in err and len(err.splitlines()) == 1


def test_a_returned_stack_buffer_is_an_error(capsys, data: Path) -> None:
    hoist = data / "peers" / "iree" / "hoist_statically_bound_allocations.mlir"
    code, out, _ = _run(capsys, "check", hoist, "--target", "x86_64", "--json")
    returned = [d for d in json.loads(out)["diagnostics"] if d["code"] == "stack-returned"]
    # splits 06 and 07 return the alloca; 08 returns what its loop yielded: the alloca
    assert [d["location"]["line"] for d in returned] == [147, 162, 180]
    assert [d["notes"][0]["location"]["line"] for d in returned] == [148, 163, 184]
    assert "dangling" in returned[0]["message"]
