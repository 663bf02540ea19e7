"""Facts the program states (asserts, `util.assume.int`) and offset relations between values."""

from __future__ import annotations

from memplan.analysis.intervals import Range
from memplan.analysis.ranges import RangeAnalysis
from memplan.analysis.relations import Relations
from memplan.ir import parse_mlir
from memplan.ir.walk import functions, walk

_modules = []  # parsed modules must outlive their ops

# PyTorch's normalisation of a slice end `e` over a dimension of 512, as exported.
CLAMP = """
  %{o}0 = arith.index_cast %{e} : i64 to index
  %{o}1 = arith.cmpi slt, %{o}0, %c0 : index
  %{o}2 = arith.addi %{o}0, %c512 : index
  %{o}3 = arith.select %{o}1, %{o}2, %{o}0 : index
  %{o}4 = arith.cmpi slt, %{o}3, %c0 : index
  %{o}5 = arith.select %{o}4, %cm1, %{o}3 : index
  %{o}6 = arith.minsi %{o}5, %c512 : index
  %{o} = arith.maxsi %{o}6, %c0 : index
"""


def exported(asserts: str) -> tuple[Relations, dict[str, object]]:
    """`@f(%t)`: p = %t[0], the clamps of p (`%start`) and of p + 1 (`%end`), returned."""
    text = f"""func.func @f(%t: tensor<1xi64>) -> (index, index) {{
  %c0 = arith.constant 0 : index
  %c512 = arith.constant 512 : index
  %cm1 = arith.constant -1 : index
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %c511_i64 = arith.constant 511 : i64
  %p = tensor.extract %t[%c0] : tensor<1xi64>
{asserts}
{CLAMP.format(o="start", e="p")}
  %q = arith.addi %p, %c1_i64 : i64
{CLAMP.format(o="end", e="q")}
  return %start, %end : index, index
}}"""
    module = parse_mlir(text)
    _modules.append(module)
    func = functions(module)[0]
    ret = next(op for op in walk(func) if op.name == "func.return")
    ranges = RangeAnalysis(func)
    return Relations(ranges), {"start": ret.operands[0], "end": ret.operands[1],
                               "ranges": ranges}


BOTH_ASSERTS = """
  %ge = arith.cmpi sge, %p, %c0_i64 : i64
  cf.assert %ge, "u0 >= 0"
  %le = arith.cmpi sle, %p, %c511_i64 : i64
  cf.assert %le, "u0 <= 511"
"""


def test_asserts_bound_the_values_they_dominate():
    rel, v = exported(BOTH_ASSERTS)
    assert v["ranges"].range_of(v["start"]) == Range(0, 511)
    assert v["ranges"].range_of(v["end"]) == Range(1, 512)


def test_clamp_of_p_plus_one_is_clamp_of_p_plus_one_under_the_asserts():
    rel, v = exported(BOTH_ASSERTS)
    assert rel.difference(v["end"], v["start"]).offset == 1
    assert rel.difference(v["start"], v["end"]).offset == -1


def test_an_and_of_conditions_bounds_both_sides():
    rel, v = exported("""
  %ge = arith.cmpi sge, %p, %c0_i64 : i64
  %le = arith.cmpi slt, %p, %c511_i64 : i64
  %both = arith.andi %ge, %le : i1
  cf.assert %both, "0 <= u0 < 511"
""")
    assert v["ranges"].range_of(v["start"]) == Range(0, 510)
    assert rel.difference(v["end"], v["start"]).offset == 1


def test_unbounded_position_is_refused_with_the_reason():
    rel, v = exported("")
    diff = rel.difference(v["end"], v["start"])
    assert diff.offset is None
    assert "cannot tell which operand" in diff.reason or "not decided" in diff.reason


def test_only_a_lower_bound_is_not_enough():
    # p <= 511 missing: p = 600 clamps both ends to 512, a difference of 0, not 1.
    rel, v = exported("""
  %ge = arith.cmpi sge, %p, %c0_i64 : i64
  cf.assert %ge, "u0 >= 0"
""")
    assert rel.difference(v["end"], v["start"]).offset is None


def test_a_bound_of_512_is_refused_since_the_end_clamps():
    # p = 512: start = 512, end = clamp(513) = 512; the relation does not hold there.
    rel, v = exported("""
  %c512_i64 = arith.constant 512 : i64
  %ge = arith.cmpi sge, %p, %c0_i64 : i64
  cf.assert %ge, "u0 >= 0"
  %le = arith.cmpi sle, %p, %c512_i64 : i64
  cf.assert %le, "u0 <= 512"
""")
    assert rel.difference(v["end"], v["start"]).offset is None


def parse_one(text: str):
    module = parse_mlir(text)
    _modules.append(module)
    func = functions(module)[0]
    ret = next(op for op in walk(func) if op.name in ("func.return", "util.return"))
    return RangeAnalysis(func), list(ret.operands)


def test_an_assert_after_the_use_does_not_bound_it():
    ranges, (early, late) = parse_one("""func.func @f(%a: index) -> (index, index) {
  %c0 = arith.constant 0 : index
  %c9 = arith.constant 9 : index
  %early = arith.addi %a, %c0 : index
  %ok = arith.cmpi ule, %a, %c9 : index
  cf.assert %ok, "a <= 9"
  %late = arith.addi %a, %c0 : index
  return %early, %late : index, index
}""")
    assert not ranges.range_of(early).bounded
    assert ranges.range_of(late) == Range(0, 9)


def test_an_assert_inside_a_branch_does_not_bound_code_after_it():
    ranges, (after,) = parse_one("""func.func @f(%a: index, %b: i1) -> index {
  %c0 = arith.constant 0 : index
  %c9 = arith.constant 9 : index
  scf.if %b {
    %ok = arith.cmpi sle, %a, %c9 : index
    cf.assert %ok, "a <= 9"
  }
  %after = arith.addi %a, %c0 : index
  return %after : index
}""")
    assert ranges.range_of(after).hi is None


def test_util_assume_int_bounds_its_results_by_the_union_of_its_rows():
    ranges, (x, y) = parse_one("""util.func public @f(%a: index, %b: index) -> (index, index) {
  %0:2 = util.assume.int %a<umin = 0, umax = 511>,
                         %b[<umin = 1, umax = 10>, <umin = 20, umax = 30>] : index, index
  util.return %0#0, %0#1 : index, index
}""")
    assert ranges.range_of(x) == Range(0, 511)
    assert ranges.range_of(y) == Range(1, 30)


def test_recomputed_pure_ops_are_the_same_value_and_affine_apply_is_linear():
    module = parse_mlir("""func.func @f(%t: tensor<1xi64>) -> (index, index) {
  %c0 = arith.constant 0 : index
  %a = tensor.extract %t[%c0] : tensor<1xi64>
  %b = tensor.extract %t[%c0] : tensor<1xi64>
  %ia = arith.index_cast %a : i64 to index
  %ib = arith.index_cast %b : i64 to index
  %two = affine.apply affine_map<()[s0] -> (s0 * 2 + 3)>()[%ia]
  return %ib, %two : index, index
}""")
    _modules.append(module)
    func = functions(module)[0]
    ret = next(op for op in walk(func) if op.name == "func.return")
    rel = Relations(RangeAnalysis(func))
    ib, two = ret.operands
    ia = next(op for op in walk(func) if op.name == "arith.index_cast").results[0]
    assert rel.equal(ia, ib)
    # ia is unbounded, so 2 * ia + 3 may overflow: no relation is claimed.
    assert rel.difference(two, ia).offset is None
    assert "overflow" in rel.difference(two, ia).reason
