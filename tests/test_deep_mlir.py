"""IR nested deeper than Python's recursion limit is read; deeper than the parser takes is
refused in one line (issue 16)."""

from __future__ import annotations

from memplan.cli import main


def _nested(depth: int) -> str:
    body = "%a = memref.alloca() : memref<4xf32>\n"
    return ("func.func @f() {\n" + "scf.execute_region {\n" * depth + body
            + "scf.yield\n}\n" * depth + "return\n}\n")


def test_ir_nested_beyond_the_python_recursion_limit_is_checked(tmp_path, capsys):
    path = tmp_path / "deep.mlir"
    path.write_text(_nested(1500))  # deeper than Python's default recursion limit (1,000)
    code = main(["check", str(path), "--target", "x86_64"])
    out, err = capsys.readouterr()
    assert code in (0, 1) and "Traceback" not in err
    assert "memref<4xf32>" in out  # the allocation at the bottom is in the census


def test_ir_nested_deeper_than_the_parser_takes_is_one_line(tmp_path, capsys):
    path = tmp_path / "deeper.mlir"
    path.write_text(_nested(4000))
    code = main(["check", str(path), "--target", "x86_64"])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    # the function body, 4,000 regions, and the alloca's parentheses
    assert err.count("\n") == 1 and "nested 4002 deep" in err
