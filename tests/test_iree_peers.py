"""memplan agrees with IREE's own lit tests, split by split (tests/iree_peers.py)."""

from __future__ import annotations

import re

import iree_peers
import pytest
from iree_opt import iree_opt


@pytest.fixture(scope="module")
def rows() -> list[iree_peers.Row]:
    return iree_peers.compare_all()


def test_every_split_of_every_memref_level_file_is_compared(rows) -> None:
    splits = {}
    for r in rows:
        splits.setdefault((r.file, r.prefix), set()).add(r.split)
    expected = {
        ("check_ir_before_llvm_conversion.mlir", "CHECK"): 8,
        ("check_ir_before_llvm_conversion_not_fail_unbound.mlir", "CHECK"): 4,
        ("gpu_check_resource_usage.mlir", "CHECK"): 3,
        ("gpu_reuse_shared_memory_allocs.mlir", "CHECK"): 7,
        ("reuse_shared_memory_allocs.mlir", "CHECK"): 4,
        ("hoist_statically_bound_allocations.mlir", "CHECK"): 11,
        # The second RUN line's prefix has lines in three splits only.
        ("hoist_statically_bound_allocations.mlir", "CHECK-UNBOUNDED-VSCALE"): 3,
    }
    here = {k: n for k, n in expected.items() if iree_peers.peer(k[0]) is not None}
    assert {k: len(v) for k, v in splits.items()} == here


def test_expectations_are_read_from_the_file(rows) -> None:
    by_key = {(r.file, r.prefix, r.split): r for r in rows}
    check = "check_ir_before_llvm_conversion.mlir"
    assert by_key[(check, "CHECK", 1)].iree == ("stack 65536 > 32768",)
    assert by_key[(check, "CHECK", 4)].iree == ("stack not in entry block",)
    assert by_key[(check, "CHECK", 6)].iree == ("passes",)
    gpu = "gpu_check_resource_usage.mlir"
    assert by_key[(gpu, "CHECK", 2)].iree == ("workgroup 144984 > 65536",)
    hoist = "hoist_statically_bound_allocations.mlir"
    assert by_key[(hoist, "CHECK", 1)].iree == ("alloca entry 256B",)  # 4 * vscale(16) * i32
    assert by_key[(hoist, "CHECK", 8)].iree == ("alloca stays",)


def test_memplan_agrees_on_every_split_but_the_justified_ones(rows) -> None:
    bad = [(r.file, r.prefix, r.split, r.iree, r.memplan) for r in rows
           if r.verdict not in (iree_peers.AGREE, iree_peers.JUSTIFIED_DIFFERENCE)]
    assert not bad
    justified = {(r.file, r.prefix, r.split) for r in rows
                 if r.verdict == iree_peers.JUSTIFIED_DIFFERENCE}
    listed = {k for k in iree_peers.JUSTIFIED if iree_peers.peer(k[0]) is not None}
    assert justified == listed  # no stale entry
    # The done-when files, on their main RUN line: only the listed differences.
    main = [r for r in rows if r.prefix == "CHECK" and "not_fail" not in r.file]
    assert sum(r.verdict == iree_peers.AGREE for r in main) == \
        len(main) - sum(k[1] == "CHECK" and "not_fail" not in k[0] for k in listed)


def test_shared_memory_figures_are_what_iree_leaves(rows) -> None:
    """The reuse expectations read from the CHECK lines are what iree-opt's pass leaves."""
    for name in iree_peers.REUSE_FILES:
        path = iree_peers.peer(name)
        if path is None:
            pytest.skip(f"{name}: IREE's lit test is read from MEMPLAN_IREE_SRC")
        (run,) = iree_peers.run_lines(path)
        pipeline = re.search(r'pass-pipeline="([^"]+)"', run.text).group(1)
        result = iree_opt(path, pipeline)
        assert result.returncode == 0, result.stderr
        left = [_workgroup_bytes(split) for split in result.stdout.split("// -----")]
        expected = [r.iree[0] for r in rows if r.file == name]
        assert [f"workgroup {b}B" for b in left] == expected


def _workgroup_bytes(text: str) -> int:
    total = 0
    for dims, elem in re.findall(r"memref\.alloc\(\) : memref<((?:\d+x)+)(\w+), "
                                 r"#gpu\.address_space<workgroup>>", text):
        count = 1
        for d in dims.rstrip("x").split("x"):
            count *= int(d)
        total += count * {"i8": 1, "f16": 2, "f32": 4}[elem]
    return total


def test_stream_splits_list_what_their_text_holds() -> None:
    for row in iree_peers.stream_rows():
        allocas, copies = row[3], row[4]
        listed, in_text = allocas.split(" / ")
        assert listed == in_text, row
        listed, in_text = copies.split(" / ")
        assert listed == in_text, row


def test_dynamic_allocations_are_padded_to_the_bound_iree_pads_them_to(tmp_path) -> None:
    """IREE's pad-dynamic-alloc on its own lit file (iree-opt, for real) and `memplan opt`
    agree split by split on every allocation's static type: workgroup memory (`memref<..., 3>`)
    and the stack are sized at launch, so a dynamic size is padded to its bound."""
    path = iree_peers.peer("pad_dynamic_alloc.mlir")
    if path is None:
        pytest.skip("pad_dynamic_alloc.mlir: IREE's lit test is read from MEMPLAN_IREE_SRC")
    iree = iree_opt(path, "builtin.module(func.func(iree-codegen-pad-dynamic-alloc))")
    assert iree.returncode == 0, iree.stderr
    code, out, err = iree_peers.memplan(["opt", str(path), "--target", "rocm-gfx942",
                                         "-p", "hoist-and-bound"])
    assert code == 0, err
    theirs, ours = (_allocations(text) for text in (iree.stdout, out))
    assert ours == theirs == [["memref.alloc() : memref<1x64x32xf32, 3>"],
                              ["memref.alloc() : memref<1x64x32xf32, 3>"],
                              ["memref.alloc() : memref<4088xf32, 3>"],
                              ["memref.alloca() : memref<4088xf32, 3>"],
                              ["memref.alloc() : memref<32x32xf32, 3>"]]


def _allocations(text: str) -> list[list[str]]:
    return [re.findall(r"memref\.alloca?\(\) : memref<[^>]*>", split)
            for split in text.split("// -----")]
