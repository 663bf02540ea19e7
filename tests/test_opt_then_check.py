"""`memplan opt` never hands over what `memplan check` rejects for the same target, whatever
the pipeline (the default one, the default spelled out with -p, each pass alone).

Property over every example, shared case and IREE peer split (x86_64, GPU files on
rocm-gfx942, and files with stack allocations also on a 512-byte frame): when opt exits 0,
check on its output exits 0; when opt exits 1, every error check finds in the output is at a
place opt reported an error of its own (it said what it could not fix); and a program check
accepts, opt never turns into one it rejects.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import pytest

from memplan.cli import main

REPO = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"
INPUTS = sorted([*REPO.glob("examples/*.mlir"), *DATA.glob("cases/*.mlir"),
                 *DATA.glob("peers/iree/*.mlir"), DATA / "iter_args.mlir",
                 DATA / "cf_loops.mlir", DATA / "loop_alloca_memref.mlir",
                 DATA / "hoist_users.mlir", DATA / "targets_in_ir.mlir",
                 DATA / "llvm_alloca.mlir", DATA / "loop_alloca_64k.mlir",
                 DATA / "iree_cuda_private_iter_args.mlir"])
STREAM_LEVEL = {"emplace_allocations.mlir", "elide_async_copies.mlir"}
TINY = str(REPO / "examples" / "tiny_stack.toml")
DEFAULT = "hoist-and-bound,constant-destinations,state-in-place"
# None: no -p. Each pass alone leaves what the others would fix: check must still be heard.
PIPELINES = [None, DEFAULT, "hoist-and-bound", "constant-destinations", "state-in-place",
             "place"]


def _cases() -> list[tuple[Path, str]]:
    cases = []
    for path in INPUTS:
        if path.name in STREAM_LEVEL:
            continue
        text = path.read_text()
        gpu = "gpu.address_space" in text or "gpu.func" in text
        cases.append((path, "rocm-gfx942" if gpu else "x86_64"))
        if "alloca" in text and not gpu:
            cases.append((path, TINY))
    return cases


def _run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(args)
    return code, out.getvalue(), err.getvalue()


def _error_lines(text: str, path: Path) -> set[int]:
    prefix = f"{path}:"
    lines = set()
    for line in text.splitlines():
        if line.startswith(prefix) and ": error:" in line:
            lines.add(int(line[len(prefix):].split(":", 1)[0]))
    return lines


@pytest.mark.parametrize("pipeline", PIPELINES, ids=lambda p: p or "no-p")
@pytest.mark.parametrize("path, target", _cases(),
                         ids=lambda v: v.name if isinstance(v, Path) else Path(v).stem)
def test_opt_output_passes_check_or_opt_said_why(path: Path, target: str, pipeline: str | None,
                                                 tmp_path: Path) -> None:
    target_args = ["--target", target]
    output = tmp_path / "out.mlir"
    passes = ["-p", pipeline] if pipeline else []
    # stdout has the rewrite even when opt reports errors (-o is written only on success).
    opt_code, opt_out, opt_err = _run(["opt", str(path), *target_args, *passes,
                                       "--keep-locations"])
    assert opt_code in (0, 1), opt_err
    output.write_text(opt_out)
    check_code, check_out, _ = _run(["check", str(output), *target_args, "--json"])
    assert check_code in (0, 1)
    errors = [d for d in json.loads(check_out)["diagnostics"] if d["severity"] == "error"]
    if opt_code == 0:
        assert not errors, [d["message"] for d in errors]
        return
    if pipeline != "place":  # placing may find no room where check has no budget to break
        input_code, _, _ = _run(["check", str(path), *target_args, "--json"])
        assert input_code == 1, "opt made a program check accepts into one it rejects"
    opt_errors = _error_lines(opt_err, path)
    assert opt_errors, opt_err
    unexplained = [d for d in errors
                   if d["location"] is None or d["location"]["line"] not in opt_errors]
    assert not unexplained, ([d["message"] for d in unexplained], opt_err)


# The case of issue 22: a stack buffer in a loop, left there by a pipeline that does not
# hoist (or by hoist-and-bound, into a parallel loop's body): check rejects the output, so
# opt writes nothing and exits 1, naming check's error; the default list spelled out with -p
# says what the default pipeline says.
LOOP_ALLOCA = """func.func @f(%out: memref<4xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %z = arith.constant 0 : i32
  scf.parallel (%p) = (%c0) to (%c8) step (%c1) {
    scf.for %i = %c0 to %c8 step %c1 {
      %buf = memref.alloca() : memref<4xi32>
      memref.store %z, %buf[%c0] : memref<4xi32>
    }
    scf.reduce
  }
  return
}
"""


@pytest.mark.parametrize("pipeline", [DEFAULT, "constant-destinations", "state-in-place",
                                      "hoist-and-bound"])
def test_opt_p_writes_nothing_check_rejects(pipeline: str, tmp_path: Path) -> None:
    source = tmp_path / "in.mlir"
    source.write_text(LOOP_ALLOCA)
    output = tmp_path / "out.mlir"
    check_code, _, check_err = _run(["check", str(source), "--target", "x86_64"])
    assert check_code == 1 and "inside a loop" in check_err
    code, out, err = _run(["opt", str(source), "--target", "x86_64", "-p", pipeline,
                           "-o", str(output)])
    assert code == 1, err
    assert not output.exists()
    assert f"{source}:8:" in err and "inside a loop" in err, err
    assert out == ""


def test_opt_p_default_list_says_what_the_default_says(tmp_path: Path) -> None:
    source = tmp_path / "in.mlir"
    source.write_text(LOOP_ALLOCA)
    default = _run(["opt", str(source), "--target", "x86_64"])
    spelled = _run(["opt", str(source), "--target", "x86_64", "-p", DEFAULT])
    assert default == spelled and default[0] == 1
