"""Range analysis: one small function per op kind; the value under test is returned."""

from __future__ import annotations

import pytest

from memplan.analysis.assumptions import Assumption
from memplan.analysis.intervals import Range
from memplan.analysis.ranges import RangeAnalysis
from memplan.cli.args import parse_assumption
from memplan.errors import InputError
from memplan.ir import parse_mlir
from memplan.ir.walk import functions, walk

_modules = []  # keep parsed modules alive: ops of a collected module are invalid


def parse_function(text: str):
    module = parse_mlir(text)
    _modules.append(module)
    return functions(module)[0]


def returned_range(body: str, args: str = "", assumptions=(), names=None) -> Range:
    """Range of the value a one-function module returns: `func @f(args) -> index {body}`."""
    text = f"func.func @f({args}) -> index {{\n{body}\n}}"
    func = parse_function(text)
    ret = next(op for op in walk(func) if op.name == "func.return")
    return RangeAnalysis(func, assumptions, names).range_of(ret.operands[0])


C = """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c32 = arith.constant 32 : index
  %c72 = arith.constant 72 : index
  %cm5 = arith.constant -5 : index
"""


def binary(op: str, a: str, b: str) -> Range:
    return returned_range(C + f"  %x = {op} {a}, {b} : index\n  return %x : index")


def test_constants_and_add_sub_mul():
    assert returned_range(C + "  return %c72 : index") == Range.exact(72)
    assert binary("arith.addi", "%c8", "%c32") == Range.exact(40)
    assert binary("arith.subi", "%c8", "%c32") == Range.exact(-24)
    assert binary("arith.muli", "%c8", "%cm5") == Range.exact(-40)


@pytest.mark.parametrize("op, a, b, expected", [
    ("arith.divsi", "%cm5", "%c3", -1),
    ("arith.divui", "%c72", "%c32", 2),
    ("arith.ceildivsi", "%c72", "%c32", 3),
    ("arith.floordivsi", "%cm5", "%c3", -2),
    ("arith.remsi", "%cm5", "%c3", -2),
    ("arith.remui", "%c72", "%c32", 8),
    ("arith.minsi", "%cm5", "%c3", -5),
    ("arith.maxsi", "%cm5", "%c3", 3),
    ("arith.minui", "%c72", "%c32", 32),
    ("arith.maxui", "%c72", "%c32", 72),
])
def test_division_remainder_min_max_on_constants(op, a, b, expected):
    r = binary(op, a, b)
    assert r.lo <= expected <= r.hi, (op, r)


def test_division_by_a_range_that_may_be_zero_is_unbounded():
    r = returned_range(C + """
  %x = arith.divsi %c72, %n : index
  return %x : index""", "%n: index")
    assert r.hi is None and r.reason


def test_induction_variable_and_affine_min_of_the_seed():
    # The IV is in {0, 32, 64}, so 72 - iv is in [8, 72] and the min in [8, 32].
    text = C + """
  scf.for %iv = %c0 to %c72 step %c32 {
    %sz = affine.min affine_map<(d0) -> (-d0 + 72, 32)>(%iv)
    %m = memref.alloca(%sz) : memref<?xi8>
  }
  return %c0 : index"""
    func = parse_function(f"func.func @f() -> index {{\n{text}\n}}")
    ops = {op.name: op for op in walk(func)}
    analysis = RangeAnalysis(func)
    iv = ops["scf.for"].regions[0].blocks[0].arguments[0]
    assert analysis.range_of(iv) == Range(0, 64)
    assert analysis.range_of(ops["affine.min"].results[0]) == Range(8, 32)
    assert analysis.varying_loops(ops["affine.min"].results[0]) == {ops["scf.for"]}


def test_nested_loops_bound_inner_by_outer():
    text = C + """
  scf.for %i = %c0 to %c8 step %c1 {
    %ub = arith.addi %i, %c3 : index
    scf.for %j = %i to %ub step %c1 {
      %m = memref.alloca(%j) : memref<?xi8>
    }
  }
  return %c0 : index"""
    func = parse_function(f"func.func @f() -> index {{\n{text}\n}}")
    alloca = next(op for op in walk(func) if op.name == "memref.alloca")
    analysis = RangeAnalysis(func)
    assert analysis.range_of(alloca.operands[0]) == Range(0, 9)
    assert len(analysis.varying_loops(alloca.operands[0])) == 2


def test_affine_apply_max_mod_floordiv_ceildiv():
    r = returned_range(C + """
  %x = affine.apply affine_map<(d0)[s0] -> (d0 mod 8 + s0 floordiv 4 + s0 ceildiv 4)>(%n)[%c32]
  return %x : index""", "%n: index")
    assert r == Range(16, 23)
    r = returned_range(C + """
  %x = affine.max affine_map<(d0) -> (d0, 3)>(%c1)
  return %x : index""")
    assert r == Range.exact(3)


def test_select_cmpi_and_index_cast():
    r = returned_range(C + """
  %p = arith.cmpi slt, %c8, %c32 : index
  %x = arith.select %p, %c8, %c72 : index
  return %x : index""")
    assert r == Range.exact(8)
    r = returned_range(C + """
  %p = arith.cmpi eq, %n, %c32 : index
  %x = arith.select %p, %c8, %c72 : index
  return %x : index""", "%n: index")
    assert r == Range(8, 72)
    r = returned_range("""
  %c = arith.constant 100 : i32
  %x = arith.index_cast %c : i32 to index
  return %x : index""")
    assert r == Range.exact(100)


def test_truncation_that_may_not_fit_is_unbounded():
    r = returned_range("""
  %c = arith.constant 1000 : i32
  %t = arith.trunci %c : i32 to i8
  %x = arith.index_cast %t : i8 to index
  return %x : index""")
    assert r.hi is None and "overflow" in r.reason


def test_arguments_by_assumption_position_and_attribute():
    body = "  return %n : index"
    assert returned_range(body, "%n: index").hi is None
    assert returned_range(body, "%n: index", [Assumption("n", hi=4096)], ["n"]).hi == 4096
    assert returned_range(body, "%n: index", [Assumption(0, lo=1, hi=64)]) == Range(1, 64)
    assert returned_range(body, "%n: index {memplan.max = 4096 : index}").hi == 4096
    other = [Assumption("n", hi=4096, function="g")]
    assert returned_range(body, "%n: index", other, ["n"]).hi is None


def test_unmodeled_op_is_unbounded_with_its_name():
    r = returned_range("""
  %c0 = arith.constant 0 : index
  %x = memref.load %m[%c0] : memref<4xindex>
  return %x : index""", "%m: memref<4xindex>")
    assert r.hi is None and "`memref.load`" in r.reason


def test_parse_assumption():
    assert parse_assumption("n<=4096") == Assumption("n", hi=4096)
    assert parse_assumption("%n>=1") == Assumption("n", lo=1)
    assert parse_assumption("@f:1==7") == Assumption(1, lo=7, hi=7, function="f")
    with pytest.raises(InputError, match="--assume"):
        parse_assumption("n < 3")


def _first(func, name):
    return next(op for op in walk(func) if op.name == name)


def test_scf_parallel_forall_and_affine_for_induction_variables():
    func = parse_function("""
func.func @f() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c10 = arith.constant 10 : index
  scf.parallel (%p, %q) = (%c0, %c1) to (%c4, %c10) step (%c1, %c4) {
    %s = arith.addi %p, %q : index
    scf.reduce
  }
  affine.for %k = 2 to min affine_map<()[s0] -> (s0, 16)>()[%c10] step 3 {
    %t = arith.addi %k, %c0 : index
  }
  scf.forall (%x, %y) = (0, %c1) to (%c10, 64) step (4, 8) {
    %u = arith.addi %x, %y : index
  }
  return
}""")
    analysis = RangeAnalysis(func)
    p, q = _first(func, "scf.parallel").regions[0].blocks[0].arguments
    assert analysis.range_of(p) == Range(0, 3)
    assert analysis.range_of(q) == Range(1, 9)  # 1, 5, 9
    k = _first(func, "affine.for").regions[0].blocks[0].arguments[0]
    assert analysis.range_of(k) == Range(2, 8)  # 2, 5, 8 (< min(10, 16))
    x, y = _first(func, "scf.forall").regions[0].blocks[0].arguments
    assert (analysis.range_of(x), analysis.range_of(y)) == (Range(0, 8), Range(1, 57))


def test_iteration_arguments_are_unbounded_with_a_reason():
    r = returned_range(C + """
  %r = scf.for %iv = %c0 to %c8 step %c1 iter_args(%acc = %c0) -> index {
    %next = arith.addi %acc, %c1 : index
    scf.yield %next : index
  }
  return %r : index""")
    assert r.hi is None and "`scf.for`" in r.reason


def test_division_by_a_positive_constant_keeps_a_one_sided_bound():
    r = returned_range(C + """
  %x = affine.apply affine_map<()[s0] -> ((s0 + 7) floordiv 8)>()[%n]
  return %x : index""", "%n: index {memplan.max = 4096 : index}")
    assert r.lo is None and r.hi == 512


def test_dim_of_a_static_dimension_and_of_an_allocation():
    r = returned_range(C + """
  %d = memref.dim %m, %c0 : memref<12x?xi8>
  return %d : index""", "%m: memref<12x?xi8>")
    assert r == Range.exact(12)
    r = returned_range(C + """
  %a = memref.alloc(%c32) : memref<4x?xi8>
  %d = memref.dim %a, %c1 : memref<4x?xi8>
  return %d : index""")
    assert r == Range.exact(32)
    r = returned_range(C + """
  %d = memref.dim %m, %c1 : memref<12x?xi8>
  return %d : index""", "%m: memref<12x?xi8>")
    assert r.lo == 0 and r.hi is None and "dynamic dimension" in r.reason


# One affine evaluator: over exact operands the interval evaluator gives the exact value,
# which is how `memplan copies` evaluates `affine.apply` at given sizes (index_eval.py).
@pytest.mark.parametrize("d0, s0", [(-7, 2), (7, 3), (0, 5), (13, -4)])
def test_affine_maps_at_exact_values_are_exact(d0: int, s0: int) -> None:
    from iree.compiler import ir

    from memplan.analysis.intervals import eval_affine_map

    with ir.Context():
        amap = ir.AffineMapAttr(ir.Attribute.parse(
            "affine_map<(d0)[s0] -> (d0 mod 4, d0 floordiv s0, d0 ceildiv s0, d0 * s0 + 1, "
            "(d0 + 8) mod 3)>")).value
        got = eval_affine_map(amap, [Range.exact(d0), Range.exact(s0)])
    # Affine mod is never negative for a positive divisor; floordiv/ceildiv round down/up.
    want = [d0 % 4, d0 // s0, -(-d0 // s0), d0 * s0 + 1, (d0 + 8) % 3]
    assert got == [Range.exact(w) for w in want]
