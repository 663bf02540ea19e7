"""Issue 16 cases that are not about one file format: runs that cannot run, exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from memplan.cli import main
from memplan.errors import InputError
from memplan.ir import load_mlir
from memplan.run.iree_exec import LoadedProgram
from memplan.run.memref_harness import runnable_calls

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_check_run_skips_functions_calling_bodiless_declarations():
    calls, skipped = runnable_calls(load_mlir(str(EXAMPLES / "placement.mlir")), {})
    assert calls == []
    assert skipped == ["@kws_step: calls @mfcc, which is declared without a body (nothing to "
                       "run)"]


def test_check_run_on_external_calls_is_one_line_not_a_traceback(tmp_path, capsys):
    out = tmp_path / "out.mlir"
    code = main(["opt", str(EXAMPLES / "placement.mlir"), "--target", "x86_64", "--check-run",
                 "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 0 and "Traceback" not in err
    assert "execution check: skipped @kws_step: calls @mfcc" in err


def test_runtime_refusing_a_program_is_one_line():
    with pytest.raises(InputError, match="the IREE runtime cannot load the compiled program"):
        LoadedProgram(b"not a vmfb", name="x.mlir")
