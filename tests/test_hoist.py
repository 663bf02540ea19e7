"""Hoist-and-bound: what moves where, which view each user gets, what is refused."""

from __future__ import annotations

import shutil

from memplan.analysis.assumptions import Assumption
from memplan.analysis.census import take_census
from memplan.ir import load_mlir, source_loc
from memplan.ir.print import print_chunks
from memplan.ir.walk import functions, symbol_name, walk
from memplan.runtimes.iree.memref_harness import check_equivalent
from memplan.transforms.hoist import hoist_and_bound


def opt(path, assumptions=()):
    """Rewrite a file; return the chunks (rewritten), diagnostics, and the printed output."""
    chunks = load_mlir(path)
    diags = [d for c in chunks for d in hoist_and_bound(c, assumptions).diagnostics]
    return chunks, diags, print_chunks(chunks)


def write(tmp_path, text, name="in.mlir"):
    path = tmp_path / name
    path.write_text(text)
    return path


def function_text(chunks, name):
    for chunk in chunks:
        for func in functions(chunk.module):
            if symbol_name(func) == name:
                return str(func)
    raise KeyError(name)


def entry_ops(chunks, name):
    """Names of the ops in a function's entry block, constants left out."""
    for chunk in chunks:
        for func in functions(chunk.module):
            if symbol_name(func) == name:
                return [op.operation.name for op in func.regions[0].blocks[0].operations
                        if op.operation.name != "arith.constant"]
    raise KeyError(name)


LOOP = """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %z = arith.constant 0 : i32
"""


def test_seed_case_leaves_no_allocation_in_a_loop(data):
    chunks, diags, _ = opt(data / "loop_alloca_memref.mlir")
    assert not [d for d in diags if d.is_error]
    census = [a for c in chunks for a in take_census(c)]
    assert all(a.loop_depth == 0 for a in census)
    (stack,) = [a for a in census if a.is_stack]
    assert stack.shape == (8, 32) and stack.exact_bytes == 1024
    text = function_text(chunks, "loop_dynamic_alloca")
    assert "memref.subview %alloca[0, 0] [8, %0] [1, 1] : memref<8x32xi32> to " \
           "memref<8x?xi32, strided<[32, 1]>>" in text
    # The loop-invariant heap size (an argument) moves before the loop, still dynamic.
    assert entry_ops(chunks, "loop_invariant_dynamic_alloc") == [
        "memref.alloc", "scf.for", "memref.dealloc", "func.return"]
    assert entry_ops(chunks, "loop_dynamic_alloc") == [
        "memref.alloc", "scf.for", "memref.dealloc", "func.return"]


def test_created_ops_keep_the_location_of_the_allocation_they_replace(data):
    chunks, _, _ = opt(data / "loop_alloca_memref.mlir")
    func = functions(chunks[0].module)[0]
    created = [op for op in walk(func) if op.name in ("memref.alloca", "memref.subview")]
    assert {(source_loc(op, "f").line, source_loc(op, "f").col) for op in created} == {(13, 12)}


def test_each_user_kind_gets_a_view_it_accepts(data):
    chunks, diags, _ = opt(data / "hoist_users.mlir")
    assert not [d for d in diags if d.is_error]
    census = [a for c in chunks for a in take_census(c)]
    assert all(a.loop_depth == 0 and a.exact_bytes for a in census)
    # linalg, memref.copy and vector transfers take the strided subview as it is.
    linalg = function_text(chunks, "user_copy_linalg")
    assert "memref.copy %subview_0, %subview" in linalg
    assert "ins(%subview : memref<8x?xi32, strided<[32, 1]>>)" in linalg
    assert "vector.transfer_write %1, %subview" in function_text(chunks, "user_vector")
    # A subview of the buffer gets its result type re-inferred from the new layout.
    assert "to memref<4x?xi32, strided<[32, 1], offset: 128>>" in function_text(
        chunks, "user_subview")
    # The callee wants memref<8x?xi32>: a packed view keeps that type; the callee is untouched.
    call = function_text(chunks, "user_call")
    assert "memref.reinterpret_cast %alloca to offset: [0], sizes: [8, %0], strides: [%0, 1] " \
           ": memref<8x32xi32> to memref<8x?xi32>" in call
    assert "func.call @fill_from(%reinterpret_cast" in call
    assert "%arg0: memref<8x?xi32>" in function_text(chunks, "fill_from")
    # Nested loops: the inner buffers leave both loops.
    nested = function_text(chunks, "nested")
    assert nested.index("memref<32xi32>") < nested.index("scf.for")


def test_a_cast_user_also_gets_the_packed_view(tmp_path):
    path = write(tmp_path, f"""
func.func @f(%out: memref<72xi32>) {{{LOOP}
  scf.for %iv = %c0 to %c72 step %c32 {{
    %sz = affine.min affine_map<(d0) -> (-d0 + 72, 32)>(%iv)
    %buf = memref.alloca(%sz) : memref<2x?xi32>
    %any = memref.cast %buf : memref<2x?xi32> to memref<?x?xi32>
    memref.store %z, %any[%c0, %c0] : memref<?x?xi32>
  }}
  return
}}""")
    chunks, diags, _ = opt(path)
    assert "keeping the original type (`memref.cast` needs it)" in diags[0].message
    assert "memref.reinterpret_cast" in function_text(chunks, "f")


def test_unbounded_size_that_varies_in_the_loop_is_refused_and_unchanged(tmp_path):
    path = shutil.copy("examples/loop_alloca_unbounded.mlir", tmp_path / "u.mlir")
    before = function_text(load_mlir(path), "loop_unbounded_alloca")
    chunks, diags, _ = opt(path)
    assert [d.severity for d in diags] == ["error"]
    assert (diags[0].loc.line, diags[0].loc.col) == (13, 12)
    assert "size changes in the `scf.for` at line 11 and has no proven bound" in \
        diags[0].message
    assert "argument %n of @loop_unbounded_alloca" in diags[0].notes[0].message
    assert function_text(chunks, "loop_unbounded_alloca") == before
    # With a bound on %n it becomes static: iv <= 64, n <= 8.
    chunks, diags, _ = opt(path, [Assumption("n", hi=8)])
    assert diags[0].severity == "remark" and "memref<8x72xi32>" in diags[0].message


def test_unsupported_op_in_the_size_is_unbounded_and_said_so(tmp_path):
    path = write(tmp_path, f"""
func.func @f(%sizes: memref<4xindex>) {{{LOOP}
  scf.for %iv = %c0 to %c72 step %c32 {{
    %sz = memref.load %sizes[%c0] : memref<4xindex>
    %buf = memref.alloca(%sz) : memref<?xi32>
    memref.store %z, %buf[%c0] : memref<?xi32>
  }}
  return
}}""")
    _, diags, _ = opt(path)
    assert diags[0].is_error
    assert "size comes from `memref.load`, which the range analysis does not model" in \
        diags[0].notes[0].message


def test_a_buffer_that_escapes_its_iteration_is_refused(tmp_path):
    path = write(tmp_path, f"""
func.func @f(%init: memref<4xi32>) -> memref<4xi32> {{{LOOP}
  %r = scf.for %iv = %c0 to %c72 step %c32 iter_args(%prev = %init) -> memref<4xi32> {{
    %buf = memref.alloc() : memref<4xi32>
    memref.copy %prev, %buf : memref<4xi32> to memref<4xi32>
    scf.yield %buf : memref<4xi32>
  }}
  return %r : memref<4xi32>
}}""")
    chunks, diags, _ = opt(path)
    assert diags[0].is_error and "is yielded by the loop it is made in (`scf.yield`)" in \
        diags[0].message
    assert [a.loop_depth for a in take_census(chunks[0])] == [1]


def test_invariant_heap_size_moves_with_its_computation_and_dealloc(tmp_path):
    path = write(tmp_path, f"""
func.func @f(%n: index) {{{LOOP}
  scf.for %iv = %c0 to %c72 step %c32 {{
    scf.for %i = %c0 to %c8 step %c1 {{
      %m = arith.muli %n, %c8 : index
      %buf = memref.alloc(%m) : memref<?xi32>
      memref.store %z, %buf[%i] : memref<?xi32>
      memref.dealloc %buf : memref<?xi32>
    }}
  }}
  return
}}""")
    chunks, diags, _ = opt(path)
    assert diags[0].severity == "remark"
    assert entry_ops(chunks, "f") == [
        "arith.muli", "memref.alloc", "scf.for", "memref.dealloc", "func.return"]


def test_size_of_the_outer_iv_without_bound_leaves_the_inner_loop_only(tmp_path):
    path = write(tmp_path, f"""
func.func @f(%n: index) {{{LOOP}
  scf.for %iv = %c0 to %c72 step %c32 {{
    scf.for %i = %c0 to %c8 step %c1 {{
      %m = arith.muli %iv, %n : index
      %buf = memref.alloc(%m) : memref<?xi32>
      memref.store %z, %buf[%i] : memref<?xi32>
      memref.dealloc %buf : memref<?xi32>
    }}
  }}
  return
}}""")
    chunks, diags, _ = opt(path)
    assert [d.severity for d in diags] == ["remark", "error"]
    assert "(its size does not change there), no further" in diags[1].message
    outer = next(op for op in walk(functions(chunks[0].module)[0]) if op.name == "scf.for")
    assert [op.operation.name for op in outer.regions[0].blocks[0].operations] == [
        "arith.muli", "memref.alloc", "scf.for", "memref.dealloc", "scf.yield"]


def test_nothing_leaves_a_parallel_loop(tmp_path):
    path = write(tmp_path, f"""
func.func @f() {{{LOOP}
  scf.parallel (%p) = (%c0) to (%c8) step (%c1) {{
    scf.for %iv = %c0 to %c72 step %c32 {{
      %buf = memref.alloca() : memref<4xi32>
      memref.store %z, %buf[%c0] : memref<4xi32>
    }}
    scf.reduce
  }}
  return
}}""")
    chunks, _, _ = opt(path)
    (a,) = take_census(chunks[0])
    assert a.loop_depth == 1  # left the scf.for, stays in the scf.parallel


def test_split_input_is_rewritten_chunk_by_chunk(tmp_path):
    body = f"""
func.func @f() {{{LOOP}
  scf.for %iv = %c0 to %c72 step %c32 {{
    %buf = memref.alloca() : memref<4xi32>
    memref.store %z, %buf[%c0] : memref<4xi32>
  }}
  return
}}"""
    path = write(tmp_path, body + "\n// -----\n" + body)
    chunks, diags, text = opt(path)
    lines = [n for n, line in enumerate(path.read_text().splitlines(), 1) if "alloca" in line]
    assert [d.loc.line for d in diags] == lines and len(lines) == 2
    assert text.count("// -----") == 1
    assert all(a.loop_depth == 0 for c in chunks for a in take_census(c))


# --- check by execution (IREE compiles: keep these few) ------------------------------------

# The seed's case runs through `memplan opt --check-run` in test_check_cli.py.
def test_every_user_kind_computes_the_same_results_under_iree(data):
    before = (data / "hoist_users.mlir").read_text()
    _, _, after = opt(data / "hoist_users.mlir")
    calls = ["user_load_store", "user_copy_linalg", "user_vector", "user_subview", "user_call",
             "nested"]
    for comparison in check_equivalent(before, after, calls):
        assert comparison.identical, comparison.function


def test_the_harness_sees_a_wrong_rewrite(data):
    before = (data / "hoist_users.mlir").read_text()
    wrong = before.replace("%y = arith.addi %x, %one : i32", "%y = arith.addi %x, %x : i32")
    (comparison,) = check_equivalent(before, wrong, ["user_load_store"])
    assert not comparison.identical
