"""`memplan opt` with its default pipeline: output unchanged on every example and case.

The expected files were written by `memplan opt FILE --target x86_64` before the
pass pipeline existed (tests/golden/opt/); a change here is a change users see.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from memplan.cli import main

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "opt"
INPUTS = {"examples": ROOT / "examples", "cases": ROOT / "tests" / "data" / "cases"}
FILES = [(kind, path.stem) for kind in INPUTS for path in sorted((GOLDEN / kind).glob("*.mlir"))]


@pytest.mark.parametrize("kind, name", FILES)
def test_default_opt_output_is_unchanged(kind, name, capsys, monkeypatch):
    monkeypatch.chdir(ROOT)  # diagnostics name the input as given, relative to the checkout
    source = INPUTS[kind].relative_to(ROOT) / f"{name}.mlir"
    code = main(["opt", str(source), "--target", "x86_64"])
    out, err = capsys.readouterr()
    assert out == (GOLDEN / kind / f"{name}.mlir").read_text()
    assert err == (GOLDEN / kind / f"{name}.stderr").read_text()
    assert code == int((GOLDEN / kind / f"{name}.exit").read_text())


def test_every_example_and_case_has_a_golden_file():
    for kind, folder in INPUTS.items():
        assert {p.stem for p in folder.glob("*.mlir")} == \
            {p.stem for p in (GOLDEN / kind).glob("*.mlir")}
