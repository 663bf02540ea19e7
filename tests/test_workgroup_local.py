"""IREE's CPU workgroup-local memory (`#iree_codegen.workgroup_local`), split by split against
IREE's own lit test for iree-llvmcpu-assign-workgroup-local-memory
(compiler/src/iree/compiler/Codegen/LLVMCPU/test/assign_workgroup_local_memory.mlir, read
from the IREE checkout MEMPLAN_IREE_SRC names: it is not shipped here)."""

from __future__ import annotations

import json
import re

import iree_peers
import pytest
from iree_opt import error_lines, iree_opt

from memplan.analysis.census import take_census
from memplan.check.workgroup import HAL_LOCAL_LIMIT, workgroup_local_layouts
from memplan.cli import main
from memplan.ir import load_mlir
from memplan.ir.load import split_chunks

PEER = iree_peers.peer("assign_workgroup_local_memory.mlir")
needs_peer = pytest.mark.skipif(PEER is None, reason="IREE's lit test is read from the IREE "
                                "checkout MEMPLAN_IREE_SRC names")
PIPELINE = ("builtin.module(hal.executable(hal.executable.variant(builtin.module("
            "func.func(iree-llvmcpu-assign-workgroup-local-memory)))))")


def _splits() -> list[tuple[int, str]]:
    return split_chunks(PEER.read_text())


@needs_peer
def test_layout_sizes_are_the_ones_iree_assigns():
    expected = [re.findall(r"// CHECK: .*workgroup_local_memory = (\d+)", text)
                for _, text in _splits()]
    laid_out = []
    for chunk in load_mlir(PEER):
        layouts = workgroup_local_layouts(take_census(chunk))
        laid_out.append([str(layout.size) for layout in layouts if layout.function == "dispatch"])
    checked = [(e, m) for e, m in zip(expected, laid_out, strict=True) if e]
    assert [e for e, _ in checked] == [["1024"], ["80"], ["0"], ["32"], ["4096"]]
    assert all(e == m for e, m in checked)
    # And iree-opt, run on the file, writes those sizes (the CHECK lines are what it does).
    ran = iree_opt(PEER, PIPELINE)
    written = re.findall(r"dispatch_config @dispatch workgroup_local_memory = (\d+)", ran.stdout)
    assert written[:5] == ["1024", "80", "0", "32", "4096"]


@needs_peer
def test_check_errors_where_iree_refuses(capsys):
    ran = iree_opt(PEER, PIPELINE)
    assert ran.returncode != 0
    code = main(["check", str(PEER), "--target", "x86_64", "--json"])
    report = json.loads(capsys.readouterr().out)
    ours = sorted(d["location"]["line"] for d in report["diagnostics"]
                  if d["code"] == "workgroup-local")
    expected = [first + n + 1 for first, text in _splits()
                for n, line in enumerate(text.splitlines())
                if re.search(r"expected-error @\+1 \{\{(.*)\}\}", line)]
    # IREE (run for real) refuses exactly where its file says, and memplan does too: the
    # dispatch_config stating a size already, the helper without one, the argument.
    assert sorted(set(error_lines(ran.stderr))) == sorted(expected)
    assert code == 1 and ours == expected == [197, 226, 257, 282, 309, 335, 362]
    totals = [(d["function"], d["bytes"]) for d in report["workgroup_local"]]
    assert totals[:5] == [("dispatch", n) for n in (1024, 80, 0, 32, 4096)]


@needs_peer
def test_opt_hoists_what_iree_needs_in_the_entry_block(capsys, tmp_path):
    out = tmp_path / "out.mlir"
    code = main(["opt", str(PEER), "--target", "x86_64", "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 1  # the dynamic, dynamic-layout and alloca splits stay errors
    assert "335:14: remark: hoisted workgroup allocation" in err
    assert "335:14: error" not in err


def test_a_dispatch_over_what_the_hal_can_declare(capsys, tmp_path):
    count = HAL_LOCAL_LIMIT // 4 + 1
    path = tmp_path / "big.mlir"
    path.write_text(f"func.func @dispatch() {{\n  %0 = memref.alloc() : "
                    f"memref<{count}xf32, #iree_codegen.workgroup_local>\n  return\n}}\n")
    code = main(["check", str(path), "--target", "x86_64"])
    err = capsys.readouterr().err
    assert code == 1 and f"needs {count * 4} bytes of workgroup-local memory" in err


_EXECUTABLE = """
#target = #hal.executable.target<"llvm-cpu", "embedded-elf-x86_64">
hal.executable private @e {{
  hal.executable.variant public @v target(#target) {{
    builtin.module {{
{body}
    }}
  }}
}}
"""
_ONE = "memref<8xf32, #iree_codegen.workgroup_local>"
_CONFIG = """      iree_codegen.dispatch_config @main{size} {{
        %c1 = arith.constant 1 : index
        iree_codegen.yield %c1, %c1, %c1 : index, index, index
      }}"""


@pytest.mark.parametrize(("body", "message"), [
    (f"      func.func @main() {{\n        %0 = memref.alloc() : {_ONE}\n        return\n"
     f"      }}\n{_CONFIG.format(size=' workgroup_local_memory = 64')}",
     "the dispatch_config of @main already states 64 bytes of workgroup-local memory"),
    (f"      func.func private @main() {{\n        %0 = memref.alloc() : {_ONE}\n        return\n"
     "      }",
     "in @main, which has no iree_codegen.dispatch_config"),
    (f"      func.func @main(%arg0: {_ONE}) {{\n        return\n      }}\n"
     f"{_CONFIG.format(size='')}",
     "@main takes workgroup-local memory as argument #0"),
    (f"      func.func @main() {{\n        %0 = memref.alloc() : {_ONE}\n        return\n"
     f"      }}\n{_CONFIG.format(size='')}", None),
])
def test_dispatch_rules_of_iree_executables(capsys, tmp_path, body, message):
    path = tmp_path / "exe.mlir"
    path.write_text(_EXECUTABLE.format(body=body))
    code = main(["check", str(path), "--target", "x86_64"])
    out, err = capsys.readouterr()
    errors = [line for line in err.splitlines() if ": error: " in line]
    if message is None:
        assert code == 0 and not errors
        assert "workgroup-local memory @main: 32 bytes as IREE lays it out" in out
    else:
        assert code == 1 and len(errors) == 1 and message in errors[0], err


def test_outside_an_executable_no_dispatch_config_is_needed(capsys, tmp_path):
    path = tmp_path / "bare.mlir"
    path.write_text(f"func.func @main() {{\n  %0 = memref.alloc() : {_ONE}\n  return\n}}\n")
    assert main(["check", str(path), "--target", "x86_64"]) == 0
    assert "workgroup-local memory @main: 32 bytes" in capsys.readouterr().out
