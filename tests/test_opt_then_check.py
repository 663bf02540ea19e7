"""`memplan opt` never hands over what `memplan check` rejects for the same target.

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
                 DATA / "llvm_alloca.mlir", DATA / "loop_alloca_64k.mlir"])
STREAM_LEVEL = {"emplace_allocations.mlir", "elide_async_copies.mlir"}
TINY = str(REPO / "examples" / "tiny_stack.toml")


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


@pytest.mark.parametrize("path, target", _cases(),
                         ids=lambda v: v.name if isinstance(v, Path) else Path(v).stem)
def test_opt_output_passes_check_or_opt_said_why(path: Path, target: str,
                                                 tmp_path: Path) -> None:
    target_args = ["--target", target]
    output = tmp_path / "out.mlir"
    # stdout has the rewrite even when opt reports errors (-o is written only on success).
    opt_code, opt_out, opt_err = _run(["opt", str(path), *target_args, "--keep-locations"])
    assert opt_code in (0, 1), opt_err
    output.write_text(opt_out)
    check_code, check_out, _ = _run(["check", str(output), *target_args, "--json"])
    assert check_code in (0, 1)
    errors = [d for d in json.loads(check_out)["diagnostics"] if d["severity"] == "error"]
    if opt_code == 0:
        assert not errors, [d["message"] for d in errors]
        return
    input_code, _, _ = _run(["check", str(path), *target_args, "--json"])
    assert input_code == 1, "opt made a program check accepts into one it rejects"
    opt_errors = _error_lines(opt_err, path)
    assert opt_errors, opt_err
    unexplained = [d for d in errors
                   if d["location"] is None or d["location"]["line"] not in opt_errors]
    assert not unexplained, ([d["message"] for d in unexplained], opt_err)
