"""Issue 16 cases that are not about one file format: runs that cannot run, exit codes."""

from __future__ import annotations

from pathlib import Path

import pytest

from memplan.cli import main
from memplan.errors import InputError
from memplan.ir import load_mlir
from memplan.runtimes.iree.compile import LoadedProgram
from memplan.runtimes.iree.memref_harness import runnable_calls

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


# Issue 31: the before program turns each heap buffer into a stack one in the loop; 64 MiB
# per iteration overflows the runtime's stack, which killed memplan's own process (SIGSEGV).
STACK_BLOWUP = """func.func @f(%out: memref<16xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.alloc() : memref<16777216xf32>
    %v = memref.load %out[%c0] : memref<16xf32>
    memref.store %v, %a[%i] : memref<16777216xf32>
    %w = memref.load %a[%c0] : memref<16777216xf32>
    memref.store %w, %out[%c1] : memref<16xf32>
  }
  return
}
"""


def test_a_program_that_crashes_the_iree_runtime_is_one_line(tmp_path, capsys):
    source = tmp_path / "blowup.mlir"
    source.write_text(STACK_BLOWUP)
    out = tmp_path / "out.mlir"
    code = main(["opt", str(source), "--target", "x86_64", "--check-run", "--run-arg", "n=4",
                 "-o", str(out)])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and not out.exists()
    assert err[-1].startswith(f"memplan: {source}: the IREE runtime running the programs died "
                              "(SIG")
    assert source.read_text() == STACK_BLOWUP


def test_a_memplan_error_in_the_child_comes_back_as_itself():
    from memplan.plan.child import call_in_child

    with pytest.raises(InputError) as caught:
        call_in_child("memplan.runtimes.iree.compile:compile_to_vmfb", "func.func @f(",
                      "x.mlir", name="x.mlir", what="iree-compile")
    assert caught.value.path == "x.mlir" and "iree-compile failed" in caught.value.reason


# --- outputs: never an input, all or none, only on success, each one named ------------------

CSV = "id,lower,upper,size\na,0,2,8\nb,1,3,8\n"


def test_a_failed_run_leaves_no_output_behind(tmp_path, capsys):
    source = tmp_path / "p.csv"
    source.write_text(CSV)
    plot = tmp_path / "l.svg"
    code = main(["pack", str(source), "--plot", str(plot), "-o",
                 str(tmp_path / "missing" / "x.csv")])
    assert code == 2 and not plot.exists()
    assert "folder" in capsys.readouterr().err


def test_the_target_file_is_an_input(tmp_path, capsys):
    target = tmp_path / "t.toml"
    target.write_text((EXAMPLES / "tiny_stack.toml").read_text())
    before = target.read_bytes()
    assert main(["opt", str(EXAMPLES / "loop_alloca.mlir"), "--target", str(target),
                 "-o", str(target)]) == 2
    assert "refusing to overwrite the input file" in capsys.readouterr().err
    assert target.read_bytes() == before


def test_empty_output_path_is_bad_input(tmp_path, capsys):
    source = tmp_path / "p.csv"
    source.write_text(CSV)
    assert main(["pack", str(source), "-o", ""]) == 2
    assert main(["opt", str(EXAMPLES / "loop_alloca.mlir"), "--target", "x86_64", "-o", ""]) == 2
    assert capsys.readouterr().err.count("an empty path names no file") == 2


def test_over_capacity_writes_nothing_and_says_so(tmp_path, capsys):
    source = tmp_path / "p.csv"
    source.write_text(CSV)
    out = tmp_path / "plan.csv"
    assert main(["pack", str(source), "--capacity", "8", "-o", str(out), "--summary"]) == 1
    assert not out.exists()
    # 8 is below the lower bound (16): the one line says so (issue 24).
    assert capsys.readouterr().err == (f"memplan: nothing written to {out}: no plan can fit "
                                       "capacity 8: the lower bound is 16 bytes\n")


def test_each_written_file_is_named_on_stderr(tmp_path, capsys):
    source = tmp_path / "p.csv"
    source.write_text(CSV)
    out, plot = tmp_path / "plan.csv", tmp_path / "l.svg"
    assert main(["pack", str(source), "-o", str(out), "--plot", str(plot), "--summary"]) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"memplan: wrote plan to {out}", f"memplan: wrote layout plot to {plot}"]


# --- exit codes and help ---------------------------------------------------------------------

def test_a_bug_in_memplan_is_one_line_and_exit_2_never_1(tmp_path, capsys, monkeypatch):
    from memplan.cli import pack
    from memplan.ir.print import VerifyError

    source = tmp_path / "p.csv"
    source.write_text(CSV)
    for exc in (ZeroDivisionError("division by zero"), VerifyError("x: internal error: ...")):
        def broken(args, exc=exc):
            raise exc

        monkeypatch.setattr(pack, "run", broken)
        assert main(["pack", str(source)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "internal error" in err and "Traceback" not in err


def test_every_help_states_the_exit_codes(capsys):
    from memplan.cli import COMMANDS, build_parser, command_module

    parser = build_parser()
    sub = next(a for a in parser._actions if a.choices)  # the subcommands
    for entry in COMMANDS:
        name, command = entry.name, command_module(entry.name)
        text = " ".join(sub.choices[name].format_help().split())
        assert "exit status: 0 success" in text and "2 bad input" in text, name
        assert ("1 " + command.EXIT_1 in text) if command.EXIT_1 else "; 1 " not in text
        assert sub.choices[name].description, f"{name} has no description"
    opt_help = " ".join(sub.choices["opt"].format_help().split())
    for word in ("hoist", "constant", "place"):
        assert word in opt_help


NEVER_RUNS = """func.func @f(%n: index, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  scf.for %i = %c5 to %n step %c1 {
    %sz = arith.subi %n, %i : index
    %a = memref.alloca(%sz) : memref<?xf32>
    %v = memref.load %a[%c0] : memref<?xf32>
    memref.store %v, %out[%c0] : memref<8xf32>
  }
  return
}
"""


def test_hoisting_out_of_a_loop_that_never_runs_verifies(tmp_path, capsys):
    source = tmp_path / "never.mlir"
    source.write_text(NEVER_RUNS)
    out = tmp_path / "out.mlir"
    assert main(["opt", str(source), "--target", "x86_64", "--assume", "n==4", "-o",
                 str(out)]) == 0
    assert "so one element is kept" in capsys.readouterr().err
    text = out.read_text()
    assert "memref.alloca() : memref<1xf32>" in text
    assert load_mlir(str(out))  # parses and verifies


# --- --assume: every assumption names an integer argument, none contradict -----------------

@pytest.mark.parametrize(("assume", "reason"), [
    (["m<=4"], "'m<=4' names no argument of any function (@f(%n, %out))"),
    (["@g:n<=4"], "'@g:n<=4' names no argument"),
    (["5<=4"], "'5<=4' names no argument"),
    (["out<=4"], "argument %out of @f is memref<8xf32>, not an integer"),
    (["n>=10", "n<=5"], "'n>=10' with 'n<=5' contradict: no value of %n in @f is >= 10 and "
     "<= 5"),
    (["n==4", "0>=6"], "contradict"),
    (["n<=" + "9" * 5000], "expected [@func:]ARG=..N"),
])
def test_bad_assumptions_are_bad_input(tmp_path, capsys, assume, reason):
    source = tmp_path / "never.mlir"
    source.write_text(NEVER_RUNS)
    for command in ("check", "opt", "place"):
        args = [a for text in assume for a in ("--assume", text)]
        assert main([command, str(source), "--target", "x86_64", *args]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and reason in err and len(err) < 300, err[:300]


def test_consistent_assumptions_all_hold(tmp_path, capsys):
    source = tmp_path / "never.mlir"
    source.write_text(NEVER_RUNS.replace("%c5 to", "%c0 to"))
    # The tighter bound holds whatever the order (the last one used to win).
    assert main(["check", str(source), "--target", "x86_64", "--assume", "@f:0<=16",
                 "--assume", "n<=64", "--assume", "n>=1"]) == 1  # a stack allocation in a loop
    out = capsys.readouterr().out
    assert "<= 64" in out and "<= 256" not in out


def test_argument_names_follow_the_file_as_it_is_now(tmp_path):
    from memplan.ir.source import source_argument_names
    from memplan.ir.walk import functions

    path = tmp_path / "f.mlir"
    path.write_text("func.func @f(%n: index) {\n  return\n}\n")
    first = load_mlir(str(path))[0]
    assert source_argument_names(functions(first.module)[0], first.lines) == ["n"]
    path.write_text("func.func @f(%size: index) {\n  return\n}\n")
    second = load_mlir(str(path))[0]
    assert source_argument_names(functions(second.module)[0], second.lines) == ["size"]


def test_an_iree_tool_past_its_time_is_one_line_and_its_group_is_killed():
    from memplan.runtimes.iree.stages import run_capped

    # The shell's own child would keep the pipes open if only the shell were killed.
    with pytest.raises(InputError, match=r"^x.mlir: sh did not finish in 1 s$"):
        run_capped(["sh", "-c", "sleep 120 & wait"], None, "x.mlir", timeout=1)


def test_an_iree_tool_runs_under_the_address_space_cap():
    from memplan.runtimes.iree.stages import TOOL_MEMORY, run_capped

    done = run_capped(["sh", "-c", "ulimit -v"], None, "x.mlir")
    assert int(done.stdout) * 1024 == TOOL_MEMORY


def test_the_compiler_linking_a_tvm_executable_is_capped(tmp_path):
    pytest.importorskip("tvm")
    from memplan.runtimes.tvm.relax_run import link_capped

    source = tmp_path / "lib.c"
    source.write_text("int f(void) { return 1; }\n")
    link_capped(str(tmp_path / "lib.so"), [str(source)], cc="gcc")
    assert (tmp_path / "lib.so").stat().st_size > 0
    slow = tmp_path / "slow-cc"
    slow.write_text("#!/bin/sh\nsleep 120 & wait\n")
    slow.chmod(0o755)
    with pytest.raises(InputError, match=r"^TVM's executable: slow-cc did not finish in 1 s$"):
        link_capped(str(tmp_path / "x.so"), [str(source)], cc=str(slow), seconds=1)
