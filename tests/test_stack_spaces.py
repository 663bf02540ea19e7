"""Every stack-like memory space gets the stack diagnostics: a `memref.alloca` in GPU private
memory in a loop, outside the entry block or without a bound is the same error as on the
CPU stack, as IREE's check-ir-before-llvm-conversion says (it checks every alloca) and as
`memplan opt` treats it. On a GPU target, private allocas IREE's GPU pipeline hoists (static
or bounded, in a loop or outside the entry block) are warnings: IREE hoists them before it
lowers the kernel, and no GPU pass of IREE checks them first."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from iree_opt import error_lines, iree_opt

from memplan.cli import main

# One split per way a stack allocation goes wrong; SPACE is substituted per memory space.
SPLITS = """\
func.func @in_loop(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %f = arith.constant 0.0 : f32
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.alloca() : memref<16xf32SPACE>
    memref.store %f, %a[%c0] : memref<16xf32SPACE>
  }
  return
}

// -----

func.func @unbounded(%n: index) {
  %c0 = arith.constant 0 : index
  %f = arith.constant 0.0 : f32
  %a = memref.alloca(%n) : memref<?xf32SPACE>
  memref.store %f, %a[%c0] : memref<?xf32SPACE>
  return
}

// -----

func.func @not_in_entry() {
  %c0 = arith.constant 0 : index
  %f = arith.constant 0.0 : f32
  cf.br ^bb1
^bb1:
  %a = memref.alloca() : memref<16xf32SPACE>
  memref.store %f, %a[%c0] : memref<16xf32SPACE>
  return
}
"""
IREE_CHECK = "builtin.module(func.func(iree-llvmcpu-check-ir-before-llvm-conversion))"
SPACES = {"default": "", "private": ", #gpu.address_space<private>"}


def write(tmp_path: Path, space: str) -> Path:
    path = tmp_path / f"stack_{space}.mlir"
    path.write_text(SPLITS.replace("SPACE", SPACES[space]))
    return path


def memplan_errors(capsys, path: Path, target: str) -> tuple[int, list[dict]]:
    code = main(["check", str(path), "--target", target, "--json"])
    report = json.loads(capsys.readouterr().out)
    return code, [d for d in report["diagnostics"] if d["severity"] == "error"]


@pytest.mark.parametrize("space", sorted(SPACES))
@pytest.mark.parametrize("target", ["x86_64", "rocm-gfx942"])
def test_check_errors_where_iree_does_in_every_stack_space(capsys, tmp_path, space, target):
    path = write(tmp_path, space)
    iree = iree_opt(path, IREE_CHECK)
    assert iree.returncode != 0 and error_lines(iree.stderr) == [6, 17, 29]
    code, errors = memplan_errors(capsys, path, target)
    if space == "default" and target == "rocm-gfx942":  # no stack on the GPU: one more error each
        errors = [d for d in errors if d["code"] != "stack-allocation-limit"]
    assert code == 1
    if space == "private" and target == "rocm-gfx942":
        # IREE's GPU pipeline hoists the loop's and ^bb1's allocas before lowering (no GPU pass
        # of IREE checks them first): warnings there; the unbounded one stays an error.
        assert [(d["location"]["line"], d["code"]) for d in errors] == [(17, "stack-unbounded")]
        return
    assert [d["location"]["line"] for d in errors] == [6, 17, 29]
    assert [d["code"] for d in errors] == ["stack-in-loop", "stack-unbounded",
                                           "stack-not-in-entry"]


def test_private_diagnostics_are_the_cpu_stack_ones_naming_the_space(capsys, tmp_path):
    _, cpu = memplan_errors(capsys, write(tmp_path, "default"), "x86_64")
    _, private = memplan_errors(capsys, write(tmp_path, "private"), "x86_64")
    assert [d["message"].replace("> in private memory", ">") for d in private] == \
        [d["message"] for d in cpu]
    assert [[n["message"] for n in d["notes"]] for d in private] == \
        [[n["message"] for n in d["notes"]] for d in cpu]


def test_opt_refuses_what_check_reports(capsys, tmp_path):
    # opt hoists the loop and ^bb1 allocas and refuses the unbounded one: exit 1 in both spaces.
    for space in SPACES:
        code = main(["opt", str(write(tmp_path, space)), "--target", "x86_64"])
        err = capsys.readouterr().err
        assert code == 1 and "17:8: error: stack allocation of" in err


TWO_IN_TURN = """\
func.func @two_in_turn(%out: memref<1xf32>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloca() : memref<5120xf32>
  %b = memref.alloca() : memref<5120xf32>
  %x = memref.load %a[%c0] : memref<5120xf32>
  memref.store %x, %out[%c0] : memref<1xf32>
  %y = memref.load %b[%c0] : memref<5120xf32>
  memref.store %y, %out[%c0] : memref<1xf32>
  return
}
"""


def test_a_frame_that_fits_only_packed_is_a_warning_and_place_makes_it_fit(capsys, tmp_path):
    """Two 20 KiB allocas used in turn: packed 20 KiB, summed 40 KiB. IREE's check counts the
    sum and refuses; memplan warns, and `opt --place` writes the frame IREE then accepts."""
    path, placed = tmp_path / "two.mlir", tmp_path / "placed.mlir"
    path.write_text(TWO_IN_TURN)
    assert "Got 40960 bytes" in iree_opt(path, IREE_CHECK).stderr
    code = main(["check", str(path), "--target", "x86_64", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and [d["code"] for d in report["diagnostics"]] == \
        ["stack-frame-needs-packing"]
    assert report["stack_frames"][0]["bytes"] == 20480
    assert main(["opt", str(path), "--target", "x86_64", "--place", "-o", str(placed)]) == 0
    assert iree_opt(placed, IREE_CHECK).returncode == 0


def test_gpu_frame_counts_the_private_allocas_iree_hoists(capsys):
    """IREE's mobilenet_v2 sm_80 dispatch: a 64 B private accumulator in a loop, which IREE's
    GPU pipeline hoists to the entry. The frame counts it at its bound (it was "no bound")
    and a limit below it is an error."""
    path = Path(__file__).parent / "data" / "iree_cuda_private_iter_args.mlir"
    code = main(["check", str(path), "--target", "cuda-sm80", "--json"])
    frame, = json.loads(capsys.readouterr().out)["stack_frames"]
    assert code == 0 and frame["bytes"] == 64 and frame["bounded"] and frame["counted"] == 1
    code = main(["check", str(path), "--target", "cuda-sm80", "--max-frame", "32", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 1 and [d["code"] for d in report["diagnostics"]
                          if d["severity"] == "error"] == ["stack-frame-limit"], report
