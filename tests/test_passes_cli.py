"""`memplan passes` lists the registry; `memplan opt -p` runs exactly the passes named."""

from __future__ import annotations

from pathlib import Path

import pytest

from memplan.cli import main
from memplan.ir import load_mlir
from memplan.ir.print import print_chunks
from memplan.transforms.passes import DEFAULT_PIPELINE, PASSES

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run(args: list[str], capsys) -> tuple[int, str, str]:
    code = main(args)
    out, err = capsys.readouterr()
    return code, out, err


def test_passes_lists_every_registered_pass_with_its_summary(capsys):
    code, out, err = run(["passes"], capsys)
    assert code == 0 and err == ""
    rows = {line.split()[0]: line for line in out.splitlines()[2:]}  # after header and rule
    assert set(rows) == set(PASSES)
    for name, p in PASSES.items():
        assert p.summary in rows[name]
        assert ("yes" in rows[name].removesuffix(p.summary)) == (name in DEFAULT_PIPELINE)


def test_one_pass_runs_alone(capsys):
    loop_alloca = str(EXAMPLES / "loop_alloca.mlir")
    # constant-destinations has nothing to do here: the in-loop allocations stay where they are,
    # so check's errors on them are opt's (exit 1), whatever the pipeline.
    code, out, err = run(["opt", loop_alloca, "--target", "x86_64", "-p", "constant-destinations"],
                         capsys)
    assert code == 1 and "remark" not in err and "error: stack allocation" in err
    assert out == print_chunks(load_mlir(loop_alloca))  # as parsed, nothing rewritten
    assert out.index("scf.for") < out.index("memref.alloca(%0) : memref<8x?xi32>")
    # hoist-and-bound alone does: the same file, one static buffer of the bound, remarks.
    code, out, err = run(["opt", loop_alloca, "--target", "x86_64", "-p", "hoist-and-bound"],
                         capsys)
    assert code == 0 and err.count("remark:") == 4
    assert "memref.alloca(%" not in out and "memref.alloca() : memref<8x32xi32>" in out


def test_hoist_alone_leaves_constant_destinations(capsys):
    code, out, err = run(["opt", str(EXAMPLES / "constant_outs.mlir"), "--target", "x86_64",
                          "-p", "hoist-and-bound"], capsys)
    assert code == 0 and err == ""
    assert "outs(%cst : tensor<128x256xf32>)" in out and "linalg.fill" not in out


@pytest.mark.parametrize("passes, message", [
    ("nope", "memplan: --passes: unknown pass 'nope'; known: " + ", ".join(PASSES)),
    ("hoist-and-bound,nope", "memplan: --passes: unknown pass 'nope'"),
    (",", "memplan: --passes: no pass named; see `memplan passes`"),
])
def test_bad_pass_name_is_one_line_exit_2(passes, message, capsys):
    code, out, err = run(["opt", str(EXAMPLES / "loop_alloca.mlir"), "--target", "x86_64",
                          "-p", passes], capsys)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and err.startswith(message)


def test_opt_help_names_the_default_pipeline_and_every_pass(capsys):
    from memplan.cli.opt import DEFAULT_PASSES

    assert DEFAULT_PASSES == ",".join(DEFAULT_PIPELINE)  # spelled twice: the parser loads no IR
    with pytest.raises(SystemExit):
        main(["opt", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert all(p.summary.split()[0] in text for p in PASSES.values())


def test_building_the_parser_loads_no_mlir_bindings():
    import subprocess
    import sys

    code = ("import sys, memplan.cli as c; c.build_parser(); "
            "print(any(m.startswith('iree') for m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
