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
# IREE refusals that are about IREE's own bookkeeping (the dispatch_config op, a function
# signature), not about the memory: memplan does not model them and says nothing there.
NOT_MODELLED = {
    "already has a workgroup local memory requirement",
    "workgroup local memory allocations require an iree_codegen.dispatch_config op",
}


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
    expected, skipped = [], []
    for first, text in _splits():
        for n, line in enumerate(text.splitlines()):
            match = re.search(r"expected-error @\+1 \{\{(.*)\}\}", line)
            if match:
                (skipped if match.group(1) in NOT_MODELLED else expected).append(first + n + 1)
    # IREE (run for real) refuses exactly where its file says.
    assert sorted(set(error_lines(ran.stderr))) == sorted(expected + skipped)
    # The signature split's error is on the function: memplan finds no allocation there.
    signature = next(first + n + 1 for first, text in _splits()
                     for n, line in enumerate(text.splitlines())
                     if "only supported for memref.alloc results" in line and "func.func" in
                     text.splitlines()[n + 1])
    assert code == 1 and ours == sorted(set(expected) - {signature}) == [197, 226, 309, 335]


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
