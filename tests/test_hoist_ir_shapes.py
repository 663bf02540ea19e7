"""Hoist-and-bound on the shapes real IR has: CFG loops, blocks other than the entry, and
buffers threaded through iter_args. Decisions by data flow; messages name what is there."""

from __future__ import annotations

from pathlib import Path

from memplan.ir import load_mlir
from memplan.ir.print import print_chunks
from memplan.ir.walk import functions, symbol_name, walk
from memplan.runtimes.iree.memref_harness import Call, check_equivalent
from memplan.transforms.hoist import hoist_and_bound

PEERS = Path(__file__).parent / "data" / "peers" / "iree"


def _opt(path: Path) -> tuple[list, list, str]:
    chunks = load_mlir(path)
    diags = [d for c in chunks for d in hoist_and_bound(c).diagnostics]
    return chunks, diags, print_chunks(chunks)


def _placement(chunks: list) -> dict[str, list[tuple[str, bool]]]:
    """Per function: (type, in the entry block) of each allocation."""
    found = {}
    for chunk in chunks:
        for func in functions(chunk.module):
            entry = func.regions[0].blocks[0]
            found[symbol_name(func)] = [(str(op.results[0].type), op.block == entry)
                                        for op in walk(func)
                                        if op.name in ("memref.alloca", "memref.alloc")]
    return found


def test_allocas_on_cf_loops_and_outside_the_entry_move_to_the_entry(data: Path) -> None:
    chunks, diags, _ = _opt(data / "cf_loops.mlir")
    placed = _placement(chunks)
    assert placed["cf_loop"] == [("memref<256xi32>", True)]
    assert placed["cf_diamond"] == [("memref<16xi32>", True)]
    assert placed["nested_in_scf_in_cf_loop"] == [("memref<8xi32>", True)]
    messages = [d.message for d in diags]
    assert all(d.severity == "remark" for d in diags), messages
    assert "out of the loop of blocks closed by `cf.br` at line 11" in messages[0]
    assert "from a block other than the entry" in messages[1] and "loop" not in messages[1]


def test_cf_loop_hoist_keeps_results(data: Path) -> None:
    path = data / "cf_loop_exec.mlir"
    _, _, after = _opt(path)
    (comparison,) = check_equivalent(path.read_text(), after, [Call("cf_loop_sum")])
    assert comparison.identical


def test_iter_args_threaded_buffers_are_hoisted_and_keep_results(data: Path) -> None:
    path = data / "iter_args.mlir"
    chunks, diags, after = _opt(path)
    placed = _placement(chunks)
    assert placed["threaded_inner"] == [("memref<4xi32>", True)]
    assert placed["threaded_inner_dynamic"] == [("memref<16xi32>", True)]
    assert placed["through_if"] == [("memref<4xi32>", True)]
    assert placed["to_next_iteration"] == [("memref<4xi32>", False)]
    errors = {d.loc.line: d.message for d in diags if d.is_error}
    assert sorted(errors) == [67, 83]  # double buffering, and out through an inner loop's result
    assert all("is yielded by the loop it is made in (`scf.yield`)" in m for m in errors.values())
    comparisons = check_equivalent(path.read_text(), after, [
        Call("threaded_inner", (5,)), Call("threaded_inner_dynamic"), Call("through_if", (1,))])
    assert all(c.identical for c in comparisons), [c.function for c in comparisons]


def test_error_messages_name_the_ir_that_is_there() -> None:
    """Every refusal on IREE's lit splits names the loop (with its line) or the block."""
    chunks = load_mlir(PEERS / "hoist_statically_bound_allocations.mlir")
    diags = [d for c in chunks for d in hoist_and_bound(c).diagnostics if d.is_error]
    assert diags  # the yielded alloca (split 08) and the unbounded scalable ones
    for d in diags:
        names_loop = "`scf.for` at line" in d.message or "loop of blocks" in d.message
        in_loop = "loop" in d.message or "iteration" in d.message
        assert names_loop or not in_loop, d.message


def test_private_alloca_in_gpu_thread_forall_through_iter_args_is_hoisted(data: Path) -> None:
    """IREE's mobilenet_v2 sm_80 dispatch: the 64 B private accumulator, made per iteration
    of a forall GPU threads share out and threaded through iter_args, goes to the entry as
    IREE's pipeline puts it (each thread's private memory serves its iterations in turn)."""
    chunks, diags, _ = _opt(data / "iree_cuda_private_iter_args.mlir")
    (placed,) = _placement(chunks).values()
    assert placed == [("memref<1x16xf32, #gpu.address_space<private>>", True)]
    (remark,) = diags
    assert remark.severity == "remark" and "(64 bytes) at the function entry" in remark.message


_FORALL = """
func.func @f(%out: memref<64xf32>) {{
  %c0 = arith.constant 0 : index
  %z = arith.constant 0.0 : f32
  scf.forall (%i) in (64) {{
    %a = memref.alloca() : memref<4xf32{space}>
    memref.store %z, %a[%c0] : memref<4xf32{space}>
    %v = memref.load %a[%c0] : memref<4xf32{space}>
    memref.store %v, %out[%i] : memref<64xf32>
  }}{mapping}
  return
}}
"""


def test_only_private_memory_leaves_a_forall_and_only_one_mapped_to_the_gpu(
        tmp_path: Path) -> None:
    private = ", #gpu.address_space<private>"
    threads = " {mapping = [#gpu.thread<x>]}"
    cases = {(private, threads): True, (private, ""): False, ("", threads): False,
             (private, " {mapping = [#iree_codegen.workgroup_mapping<x>]}"): True}
    for (space, mapping), hoisted in cases.items():
        path = tmp_path / "forall.mlir"
        path.write_text(_FORALL.format(space=space, mapping=mapping))
        chunks, _, _ = _opt(path)
        (placed,) = _placement(chunks).values()
        assert placed == [(f"memref<4xf32{space}>", hoisted)], (space, mapping)
