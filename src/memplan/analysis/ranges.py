"""Integer range analysis: a sound interval for each integer/index SSA value of one function.

The dataflow over MLIR: which op gives which interval (`intervals.py` does the arithmetic)
and what the user assumed (`assumptions.py`) or the program asserts.

Models: `arith.constant`; `memref.dim`/`tensor.dim` (static dims, and dynamic dims of an
allocation in the same function); `arith` add/sub/mul, divsi/divui/ceildivsi/floordivsi,
remsi/remui, minsi/maxsi/minui/maxui, select, cmpi, index_cast(ui), extsi/extui/
trunci; `affine.apply/min/max` (their maps evaluated over intervals);
induction variables of `scf.for`, `scf.parallel`, `scf.forall` and `affine.for` (from lower
bound, upper bound and step, nested loops included); function arguments bounded
by the user (`Assumption`, or an argument attribute `{memplan.max = N}` /
`{memplan.min = N}`); `vector.vscale`, bounded by `--vscale-max` (`VscaleBound`), else
the function's `vscale_range` or an SVE target in the IR (`ir.target_attrs`).

Facts the program states itself: a `cf.assert` whose condition is an `arith.cmpi`
against a bounded value (or an `arith.andi` of such) bounds the compared value, and
what it is a value-preserving cast of, at every op the assert dominates (the program
stops at a failed assert, so later ops only run when it held); `util.assume.int`
bounds its results (the union of its per-call-site `umin`/`umax` rows, IREE's form of
torch's symbolic-shape ranges after input conversion). An operand's range at an op is
its own range narrowed by the asserts that dominate that op.

Sound: a reported bound holds on every execution in which the value exists
(a value inside a loop body only exists while the loop runs, so `iv < ub`).
Anything else is unbounded, with a reason naming where knowledge stopped.
A result that may leave its type's signed range is unbounded too ("may overflow").

`i1` values are 0 (false) or 1 (true) here: they only steer `select`.

Also answers loop invariance: `varying_loops(v)` is the set of loops in whose
iterations `v` may change (it reads an induction variable, an iteration
argument, or the result of an op with effects inside the loop).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from functools import cached_property

from iree.compiler import ir

from ..ir.ops import FUNCTION_OPS, LOOP_OPS
from ..ir.target_attrs import ir_limits
from ..ir.types import int_width
from ..ir.walk import (
    block_argument_owner,
    defining_op,
    dominates,
    enclosing_loops,
    is_inside,
    symbol_name,
    walk,
)
from .assumptions import Assumption, VscaleBound
from .intervals import (
    CMPI_PREDICATES,
    SWAPPED_PREDICATES,
    Range,
    add,
    bound_from_compare,
    ceil_div,
    compare,
    divide,
    eval_affine_map,
    fit,
    floor_div,
    intersect,
    largest,
    maxui,
    minui,
    mul,
    non_negative,
    remainder,
    smallest,
    sub,
    trunc_div,
    union,
    why,
)

# Casts that keep the integer value (index is 64-bit here): a bound on the result is
# a bound on the source and the other way round.
_SAME_VALUE_CASTS = frozenset({"arith.index_cast", "arith.extsi"})


def _same_value_chain(value: ir.Value) -> list[ir.Value]:
    """`value` and the values it is a value-preserving cast of."""
    chain = [value]
    op = defining_op(value)
    while op is not None and op.name in _SAME_VALUE_CASTS and \
            (int_width(op.operands[0].type) or 0) <= (int_width(op.results[0].type) or 0):
        chain.append(op.operands[0])
        op = defining_op(op.operands[0])
    return chain


# --- the analysis ------------------------------------------------------------------------

def _affine_map_attr(op: ir.Operation, name: str) -> ir.AffineMap:
    return ir.AffineMapAttr(op.attributes[name]).value


class RangeAnalysis:
    """Ranges and loop dependence of values in one function (memoised, demand-driven)."""

    def __init__(self, func: ir.Operation, assumptions: Iterable[Assumption | VscaleBound] = (),
                 arg_names: Sequence[str | None] | Callable[[], Sequence[str | None]] | None
                 = None):
        """`arg_names`: the source's names of the arguments, or a function that reads them,
        called only if an argument's range is asked for (most functions never are)."""
        self.func = func
        self.function = symbol_name(func)
        given = tuple(assumptions)
        self.assumptions = tuple(a for a in given if isinstance(a, Assumption))
        self._vscale_given = [a for a in given if isinstance(a, VscaleBound)]
        self._arg_names = arg_names
        self._ranges: dict[ir.Value, Range] = {}
        self._varying: dict[ir.Value, frozenset[ir.Operation]] = {}
        self._asserted: dict[ir.Value, list[tuple[ir.Operation, Range]]] | None = None

    # ranges

    def range_at(self, value: ir.Value, user: ir.Operation) -> Range:
        """The range of `value` where `user` reads it: narrowed by the asserts before it."""
        result = self.range_of(value)
        for assert_op, fact in self.asserted_facts().get(value, ()):
            if dominates(assert_op, user):
                result = intersect(result, fact)
        return result

    def asserted_facts(self) -> dict[ir.Value, list[tuple[ir.Operation, Range]]]:
        """Per value, the `cf.assert` ops of the function that bound it, and the bound."""
        if self._asserted is None:
            self._asserted = {}
            for op in walk(self.func):
                if op.name == "cf.assert":
                    for value, fact in self._facts_of_condition(op.operands[0], op):
                        self._asserted.setdefault(value, []).append((op, fact))
        return self._asserted

    def _facts_of_condition(self, cond: ir.Value, at: ir.Operation,
                            depth: int = 0) -> list[tuple[ir.Value, Range]]:
        """(value, range) pairs that hold whenever `cond` is true."""
        op = defining_op(cond)
        if op is None or depth > 8:
            return []
        if op.name == "arith.andi":
            return [f for v in op.operands for f in self._facts_of_condition(v, at, depth + 1)]
        if op.name != "arith.cmpi":
            return []
        predicate = CMPI_PREDICATES[ir.IntegerAttr(op.attributes["predicate"]).value]
        a, b = op.operands
        facts = []
        for value, other, pred in ((a, b, predicate), (b, a, SWAPPED_PREDICATES[predicate])):
            fact = bound_from_compare(pred, self.range_at(other, op))
            if fact is not None:
                facts += [(v, fact) for v in _same_value_chain(value)]
        return facts

    def range_of(self, value: ir.Value) -> Range:
        cached = self._ranges.get(value)
        if cached is None:
            cached = self._compute(value)
            self._ranges[value] = cached
        return cached

    def _compute(self, value: ir.Value) -> Range:
        op = defining_op(value)
        if op is None:
            return self._block_argument(value)
        if op.name == "util.assume.int":
            number = value.maybe_downcast().result_number
            return fit(_assume_int(self, op)[number], int_width(value.type), op.name)
        handler = _HANDLERS.get(op.name)
        if handler is None:
            return Range.unknown(
                f"size comes from `{op.name}`, which the range analysis does not model")
        result = handler(self, op)
        return fit(result, int_width(value.type), op.name)

    def _block_argument(self, value: ir.Value) -> Range:
        owner, number = block_argument_owner(value)  # type: ignore[misc]
        if owner.name in FUNCTION_OPS:
            return self._function_argument(owner, number)
        if owner.name == "scf.for" and number == 0:
            lb, ub, step = (self.range_of(owner.operands[i]) for i in range(3))
            return self._induction_variable(lb, ub, step)
        if owner.name == "scf.parallel":
            rank = (len(owner.operands) - _parallel_inits(owner)) // 3
            if number < rank:
                lb, ub, step = (self.range_of(owner.operands[k * rank + number]) for k in range(3))
                return self._induction_variable(lb, ub, step)
        if owner.name == "affine.for" and number == 0:
            return self._affine_for_iv(owner)
        if owner.name == "scf.forall" and number < len(_static_array(owner, "staticUpperBound")):
            return self._forall_iv(owner, number)
        what = "an iteration argument" if owner.name in LOOP_OPS else "a block argument"
        return Range.unknown(f"size is {what} of `{owner.name}`, which the range analysis "
                             "does not model")

    @cached_property
    def vscale(self) -> Range:
        """What `vector.vscale` may be here (asked of the IR's targets only when met)."""
        given = self._vscale_given
        if given:
            bound = given[-1]
            return Range(bound.lo, bound.hi, None if bound.hi is not None else
                         "size scales with `vector.vscale`, left unbounded by --vscale-max 0")
        found = ir_limits(self.func).vscale
        if found is not None:
            return Range(found[0].value, found[1].value)
        return Range(1, None, "size scales with `vector.vscale`, which neither the function's "
                     "`vscale_range` nor the target in the IR bounds (give --vscale-max N)")

    @cached_property
    def arg_names(self) -> list[str | None]:
        names = self._arg_names() if callable(self._arg_names) else self._arg_names
        if names is None:
            return [None] * len(self.func.regions[0].blocks[0].arguments)
        return list(names)

    def _function_argument(self, func: ir.Operation, number: int) -> Range:
        name = self.arg_names[number] if number < len(self.arg_names) else None
        lo = hi = None
        for assumption in self.assumptions:  # all of them hold: the tightest bounds win
            if assumption.matches(self.function, number, name):
                if assumption.lo is not None:
                    lo = assumption.lo if lo is None else max(lo, assumption.lo)
                if assumption.hi is not None:
                    hi = assumption.hi if hi is None else min(hi, assumption.hi)
        attrs = _arg_attrs(func, number)
        if "memplan.max" in attrs and hi is None:
            hi = ir.IntegerAttr(attrs["memplan.max"]).value
        if "memplan.min" in attrs and lo is None:
            lo = ir.IntegerAttr(attrs["memplan.min"]).value
        label = f"%{name}" if name else f"#{number}"
        reason = None
        if hi is None:
            reason = (f"size comes from argument {label} of @{self.function}, which has no upper "
                      f"bound (give --assume {name or number}=..N or an argument attribute "
                      "{memplan.max = N : index})")
        return Range(lo, hi, reason)

    @staticmethod
    def _induction_variable(lb: Range, ub: Range, step: Range) -> Range:
        """`lb <= iv < ub`; with a constant lb and step, iv is also on the step's grid."""
        hi = None if ub.hi is None else ub.hi - 1
        if hi is not None and lb.is_exact and step.is_exact and step.lo and step.lo > 0:
            hi = lb.lo + (hi - lb.lo) // step.lo * step.lo  # type: ignore[operator]
        reason = None if lb.lo is not None and hi is not None else why(lb, ub, step)
        return Range(lb.lo, hi, reason)

    def _affine_for_iv(self, op: ir.Operation) -> Range:
        lb_map = _affine_map_attr(op, "lowerBoundMap")
        ub_map = _affine_map_attr(op, "upperBoundMap")
        n_lb, n_ub = lb_map.n_inputs, ub_map.n_inputs
        operands = [self.range_of(v) for v in list(op.operands)[:n_lb + n_ub]]  # then inits
        lbs = eval_affine_map(lb_map, operands[:n_lb])
        ubs = eval_affine_map(ub_map, operands[n_lb:])
        step = ir.IntegerAttr(op.attributes["step"]).value
        return self._induction_variable(largest(lbs), smallest(ubs), Range.exact(step))

    def _forall_iv(self, op: ir.Operation, number: int) -> Range:
        """`scf.forall` bounds mix static values and operands (lower, upper, step in order)."""
        operands = iter(op.operands)
        bounds = []
        for name in ("staticLowerBound", "staticUpperBound", "staticStep"):
            values = [Range.exact(v) if v != _DYNAMIC else self.range_of(next(operands))
                      for v in _static_array(op, name)]
            bounds.append(values[number])
        return self._induction_variable(*bounds)

    # loop invariance

    def varying_loops(self, value: ir.Value) -> frozenset[ir.Operation]:
        """Loops in whose iterations `value` may change."""
        cached = self._varying.get(value)
        if cached is None:
            cached = self._compute_varying(value)
            self._varying[value] = cached
        return cached

    def _compute_varying(self, value: ir.Value) -> frozenset[ir.Operation]:
        op = defining_op(value)
        if op is None:
            owner, _ = block_argument_owner(value)  # type: ignore[misc]
            if owner.name in FUNCTION_OPS:
                return frozenset()
            # Region arguments change with their owner's iterations (and any loop around it).
            return frozenset(enclosing_loops(owner)) | (
                {owner} if owner.name in LOOP_OPS else frozenset())
        if not is_pure(op):
            return frozenset(enclosing_loops(op))
        varying: frozenset[ir.Operation] = frozenset()
        for operand in op.operands:
            varying |= self.varying_loops(operand)
        return varying

    def pure_slice(self, value: ir.Value, outside: ir.Operation) -> list[ir.Operation] | None:
        """The ops inside `outside` that compute `value`, in order, if all can move before it.

        None when `value` depends on something that cannot move (an induction
        variable, an op with effects, a block argument inside `outside`).
        """
        ops: list[ir.Operation] = []
        seen: set[ir.Operation] = set()

        def visit(v: ir.Value) -> bool:
            op = defining_op(v)
            if op is None:
                owner, _ = block_argument_owner(v)  # type: ignore[misc]
                return not (owner == outside or is_inside(owner, outside))
            if not is_inside(op, outside):
                return True
            if op in seen:
                return True
            if not is_pure(op) or len(op.regions) or not self._speculatable(op):
                return False
            if not all(visit(operand) for operand in op.operands):
                return False
            seen.add(op)
            ops.append(op)
            return True

        return ops if visit(value) else None


    def _speculatable(self, op: ir.Operation) -> bool:
        if op.name not in _DIVISIONS:
            return True
        divisor = self.range_of(op.operands[1])
        return divisor.bounded and (divisor.lo > 0 or divisor.hi < 0)  # type: ignore[operator]


_DYNAMIC = ir.ShapedType.get_dynamic_size()


def _static_array(op: ir.Operation, name: str) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes[name])) if name in op.attributes else []


def _parallel_inits(op: ir.Operation) -> int:
    return len(op.results)


def _arg_attrs(func: ir.Operation, number: int) -> dict[str, ir.Attribute]:
    if "arg_attrs" not in func.attributes:
        return {}
    dicts = ir.ArrayAttr(func.attributes["arg_attrs"])
    if number >= len(dicts):
        return {}
    table = ir.DictAttr(dicts[number])
    return {named.name: named.attr for named in table}


# Side-effect-free ops: their value depends only on their operands, so they may move.
_PURE_DIALECTS = ("arith.", "index.", "math.")
_PURE_OPS = frozenset({"affine.apply", "affine.min", "affine.max"})
# Pure but undefined for a zero divisor: moving one out of a loop that may not run
# would execute a division the program never did.
_DIVISIONS = frozenset({
    "arith.divsi", "arith.divui", "arith.ceildivsi", "arith.ceildivui", "arith.floordivsi",
    "arith.remsi", "arith.remui",
})


def is_pure(op: ir.Operation) -> bool:
    return op.name.startswith(_PURE_DIALECTS) or op.name in _PURE_OPS


# --- per-op transfer functions -----------------------------------------------------------

def _operands(analysis: RangeAnalysis, op: ir.Operation) -> list[Range]:
    return [analysis.range_at(v, op) for v in op.operands]


def _constant(analysis: RangeAnalysis, op: ir.Operation) -> Range:
    attr = op.attributes["value"]
    if isinstance(attr, ir.IntegerAttr):
        value = ir.IntegerAttr(attr).value
        if int_width(op.results[0].type) == 1:
            value = value & 1  # i1 true prints as -1 in a signed view; we use 1
        return Range.exact(value)
    return Range.unknown("`arith.constant` is not an integer")


def _binary(fn: Callable[[Range, Range], Range]) -> Callable[[RangeAnalysis, ir.Operation], Range]:
    def handler(analysis: RangeAnalysis, op: ir.Operation) -> Range:
        a, b = _operands(analysis, op)
        return fn(a, b)
    return handler


def _variadic(fn: Callable[[Sequence[Range]], Range]) -> Callable[[RangeAnalysis, ir.Operation],
                                                                    Range]:
    def handler(analysis: RangeAnalysis, op: ir.Operation) -> Range:
        return fn(_operands(analysis, op))
    return handler


def _unsigned_div(a: Range, b: Range) -> Range:
    if non_negative(a) and non_negative(b):
        return divide(a, b, floor_div, "divui")
    return Range(None, None, why(a, b) or "unsigned division of a possibly negative value")


def _select(analysis: RangeAnalysis, op: ir.Operation) -> Range:
    cond, a, b = _operands(analysis, op)
    if cond.is_exact:
        return a if cond.lo else b
    return union([a, b])


def _cast(analysis: RangeAnalysis, op: ir.Operation) -> Range:
    (a,) = _operands(analysis, op)
    if op.name in ("arith.extui", "arith.index_castui") and not non_negative(a):
        width = int_width(op.operands[0].type) or 64
        return Range(0, (1 << width) - 1)
    return a  # sign-preserving; `fit` makes a value that may not fit unbounded


def _cmpi_handler(analysis: RangeAnalysis, op: ir.Operation) -> Range:
    a, b = _operands(analysis, op)
    predicate = CMPI_PREDICATES[ir.IntegerAttr(op.attributes["predicate"]).value]
    return compare(predicate, a, b)


def _affine(reduce: Callable[[Sequence[Range]], Range]) -> Callable[[RangeAnalysis, ir.Operation],
                                                                     Range]:
    def handler(analysis: RangeAnalysis, op: ir.Operation) -> Range:
        results = eval_affine_map(_affine_map_attr(op, "map"), _operands(analysis, op))
        return reduce(results)
    return handler


def _dim(analysis: RangeAnalysis, op: ir.Operation) -> Range:
    """`memref.dim`/`tensor.dim`: a static dim is a constant; a dynamic dim of an allocation
    is that allocation's size operand."""
    source, index = op.operands
    position = analysis.range_of(index)
    shaped = source.type
    if not position.is_exact or not 0 <= position.lo < shaped.rank:  # type: ignore[operator]
        return Range.unknown(f"`{op.name}` of a dimension that is not a constant")
    dims = list(shaped.shape)
    if not shaped.is_dynamic_dim(position.lo):
        return Range.exact(dims[position.lo])
    alloc = defining_op(source)
    if alloc is not None and alloc.name in _ALLOCATIONS:
        dynamic_before = sum(1 for d in range(position.lo) if shaped.is_dynamic_dim(d))
        return analysis.range_of(alloc.operands[dynamic_before])
    return Range(0, None, f"size comes from a dynamic dimension (`{op.name}`) of a value the "
                 "range analysis cannot see the allocation of")


def _assume_int(analysis: RangeAnalysis, op: ir.Operation) -> list[Range]:
    """`util.assume.int`: each result is its operand, within the union of its rows."""
    rows = ir.ArrayAttr(op.attributes["assumptions"])
    results = []
    for number, operand in enumerate(op.operands):
        row = rows[number] if number < len(rows) else None
        variants = [str(a) for a in ir.ArrayAttr(row)] if isinstance(row, ir.ArrayAttr) else \
            [str(row)] if row is not None else []
        bounds = [_assumption_range(text) for text in variants]
        stated = union(bounds) if bounds else Range.unknown("`util.assume.int` states nothing")
        results.append(intersect(analysis.range_at(operand, op), stated))
    return results


def _assumption_range(text: str) -> Range:
    """`#util.int.assumption<umin = A, umax = B, udiv = C>`; a missing side is open."""
    lo = re.search(r"umin\s*=\s*(\d+)", text)
    hi = re.search(r"umax\s*=\s*(\d+)", text)
    reason = None if hi else "`util.assume.int` gives no umax"
    # Unsigned bounds: a value at most umax < 2**63 is non-negative in the signed view too.
    return Range(int(lo.group(1)) if lo else 0, int(hi.group(1)) if hi else None, reason)


_ALLOCATIONS = frozenset({"memref.alloc", "memref.alloca", "bufferization.alloc_tensor",
                          "tensor.empty"})


_HANDLERS: dict[str, Callable[[RangeAnalysis, ir.Operation], Range]] = {
    "arith.constant": _constant,
    "llvm.mlir.constant": _constant,
    "arith.addi": _binary(add),
    "arith.subi": _binary(sub),
    "arith.muli": _binary(mul),
    "arith.divsi": _binary(lambda a, b: divide(a, b, trunc_div, "divsi")),
    "arith.divui": _binary(_unsigned_div),
    "arith.ceildivsi": _binary(lambda a, b: divide(a, b, ceil_div, "ceildivsi")),
    "arith.ceildivui": _binary(lambda a, b: _unsigned_div(a, b) if not (
        non_negative(a) and non_negative(b)) else divide(a, b, ceil_div, "ceildivui")),
    "arith.floordivsi": _binary(lambda a, b: divide(a, b, floor_div, "floordivsi")),
    "arith.remsi": _binary(lambda a, b: remainder(a, b, unsigned=False)),
    "arith.remui": _binary(lambda a, b: remainder(a, b, unsigned=True)),
    "arith.minsi": _variadic(smallest),
    "arith.maxsi": _variadic(largest),
    "arith.minui": _variadic(minui),
    "arith.maxui": _variadic(maxui),
    "arith.select": _select,
    "arith.cmpi": _cmpi_handler,
    "arith.index_cast": _cast,
    "arith.index_castui": _cast,
    "arith.extsi": _cast,
    "arith.extui": _cast,
    "arith.trunci": _cast,
    "affine.apply": _affine(lambda results: results[0]),
    "affine.min": _affine(smallest),
    "affine.max": _affine(largest),
    "memref.dim": _dim,
    "tensor.dim": _dim,
    "vector.vscale": lambda analysis, op: analysis.vscale,
}
