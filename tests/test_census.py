"""The allocation census: sizes, bounds, places, loop depth, spaces and lifetimes."""

from __future__ import annotations

from memplan.analysis.assumptions import Assumption
from memplan.analysis.census import take_census
from memplan.ir import load_mlir
from memplan.ir.source import source_argument_names
from memplan.ir.walk import functions


def census_of(path, assumptions=()):
    return [a for chunk in load_mlir(path) for a in take_census(chunk, assumptions)]


def test_seed_case_census(data):
    census = census_of(data / "loop_alloca_memref.mlir")
    assert [a.function for a in census] == [
        "loop_dynamic_alloca", "loop_dynamic_alloc", "loop_invariant_dynamic_alloc",
        "loop_static_alloc"]
    alloca, alloc, invariant, static = census
    assert alloca.op_name == "memref.alloca" and alloca.is_stack
    assert (alloca.location.line, alloca.location.col) == (13, 12)
    assert alloca.shape == (8, None) and alloca.element_type == "i32"
    assert alloca.exact_bytes is None and alloca.bound_bytes == 1024
    assert alloca.dim_bounds == (8, 32) and alloca.loop_depth == 1
    assert alloca.loop_location.line == 11
    assert alloc.bound_bytes == 1024 and not alloc.is_stack
    assert invariant.bytes_or_bound is None and "%n" in invariant.unbounded_reason
    assert static.exact_bytes == 1024
    # Lifetimes are half-open and cover the uses in nested loops (the dealloc included).
    assert alloca.lifetime[0] < alloca.lifetime[1]


def test_assumption_bounds_an_argument_size(data):
    census = census_of(data / "loop_alloca_memref.mlir", [Assumption("n", hi=100)])
    assert census[2].bound_bytes == 8 * 100 * 4


def test_split_chunks_spaces_and_alloc_tensor(data):
    census = census_of(data / "split_and_spaces.mlir")
    assert [(a.chunk, a.function, a.location.line) for a in census] == [
        (0, "f", 3), (0, "f", 4), (0, "f", 5), (1, "f", 14)]
    stack, workgroup, tensor, opaque = census
    assert stack.exact_bytes == 16 and stack.memory_space is None
    assert workgroup.memory_space == "workgroup" and workgroup.bound_bytes == 32  # 16 x f16
    assert tensor.op_name == "bufferization.alloc_tensor" and tensor.bound_bytes == 32
    assert opaque.bytes_or_bound is None
    assert "`memref.load`, which the range analysis does not model" in opaque.unbounded_reason


def test_gpu_workgroup_and_private_attributions(tmp_path):
    path = tmp_path / "gpu.mlir"
    path.write_text("""gpu.module @kernels {
  gpu.func @k(%arg: memref<4xf32>)
      workgroup(%wg: memref<256xf32, #gpu.address_space<workgroup>>)
      private(%p: memref<4xf32, #gpu.address_space<private>>) kernel {
    gpu.return
  }
}
""")
    wg, private = census_of(path)
    assert (wg.op_name, wg.memory_space, wg.exact_bytes) == ("gpu.func workgroup", "workgroup",
                                                             1024)
    assert (private.memory_space, private.exact_bytes) == ("private", 16)
    assert wg.location.line == 2


def test_argument_names_are_read_back_from_the_source(tmp_path):
    path = tmp_path / "names.mlir"
    path.write_text("func.func @f(%m: memref<8xf32, affine_map<(d0) -> (d0)>>,\n"
                    "             %n: index {memplan.max = 4 : index, memplan.x = [1, 2]},\n"
                    "             %k: index) {\n  return\n}\n")
    (chunk,) = load_mlir(path)
    assert source_argument_names(functions(chunk.module)[0], chunk.lines) == ["m", "n", "k"]
