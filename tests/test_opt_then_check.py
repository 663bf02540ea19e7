"""`memplan opt` never hands over what `memplan check` rejects for the same target.

Property over every example, shared case and IREE peer split: when opt exits 0, check on
its output exits 0; when opt exits 1, every error check finds in the output is at a place
opt reported an error of its own (it said what it could not fix).
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
                 DATA / "hoist_users.mlir", DATA / "targets_in_ir.mlir"])
STREAM_LEVEL = {"emplace_allocations.mlir", "elide_async_copies.mlir"}
TARGETS = ["x86_64", "cortex-m55", str(REPO / "examples" / "tiny_stack.toml")]


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


@pytest.mark.parametrize("target", TARGETS, ids=["x86_64", "cortex-m55", "tiny-stack"])
@pytest.mark.parametrize("path", [p for p in INPUTS if p.name not in STREAM_LEVEL],
                         ids=lambda p: p.name)
def test_opt_output_passes_check_or_opt_said_why(path: Path, target: str,
                                                 tmp_path: Path) -> None:
    target_args = ["--target", target]
    if "gpu" in path.name or "workgroup" in path.name:
        target_args = ["--target", "rocm-gfx942"]
    output = tmp_path / "out.mlir"
    opt_code, _, opt_err = _run(["opt", str(path), *target_args, "-o", str(output),
                                 "--keep-locations"])
    assert opt_code in (0, 1), opt_err
    check_code, check_out, _ = _run(["check", str(output), *target_args, "--json"])
    assert check_code in (0, 1)
    errors = [d for d in json.loads(check_out)["diagnostics"] if d["severity"] == "error"]
    if opt_code == 0:
        assert not errors, [d["message"] for d in errors]
        return
    opt_errors = _error_lines(opt_err, path)
    assert opt_errors, opt_err
    unexplained = [d for d in errors
                   if d["location"] is None or d["location"]["line"] not in opt_errors]
    assert not unexplained, ([d["message"] for d in unexplained], opt_err)
