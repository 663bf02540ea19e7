"""Integer range analysis: a sound interval for each integer/index SSA value.

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
from dataclasses import dataclass
from functools import cached_property

from iree.compiler import ir

from ..errors import InputError
from ..ir import MlirChunk
from ..ir.ops import FUNCTION_OPS, LOOP_OPS
from ..ir.source import source_argument_names
from ..ir.target_attrs import ir_limits
from ..ir.types import int_width
from ..ir.walk import (
    block_argument_owner,
    defining_op,
    dominates,
    enclosing_loops,
    functions,
    is_inside,
    symbol_name,
    walk,
)


@dataclass(frozen=True)
class Range:
    """`[lo, hi]`, inclusive; None is minus/plus infinity. `reason` says why a side is open."""

    lo: int | None
    hi: int | None
    reason: str | None = None

    @staticmethod
    def exact(value: int) -> Range:
        return Range(value, value)

    @staticmethod
    def unknown(reason: str) -> Range:
        return Range(None, None, reason)

    @property
    def is_exact(self) -> bool:
        return self.lo is not None and self.lo == self.hi

    @property
    def bounded(self) -> bool:
        return self.lo is not None and self.hi is not None

    def __str__(self) -> str:
        lo = "-inf" if self.lo is None else str(self.lo)
        hi = "+inf" if self.hi is None else str(self.hi)
        return f"[{lo}, {hi}]"


def _why(*ranges: Range) -> str | None:
    return next((r.reason for r in ranges if r.reason), None)


# --- user assumptions ------------------------------------------------------------

@dataclass(frozen=True)
class Assumption:
    """`[@func:]arg<=N` or `arg>=N`; `arg` is an SSA name (`n`, `%n`) or a 0-based position."""

    arg: str | int
    lo: int | None = None
    hi: int | None = None
    function: str | None = None

    def matches(self, function: str, position: int, name: str | None) -> bool:
        if self.function is not None and self.function != function:
            return False
        return self.arg == position if isinstance(self.arg, int) else self.arg == name

    def __str__(self) -> str:
        where = f"@{self.function}:" if self.function else ""
        if self.lo is not None and self.lo == self.hi:
            return f"{where}{self.arg}=={self.lo}"
        parts = [f"{where}{self.arg}>={self.lo}"] if self.lo is not None else []
        parts += [f"{where}{self.arg}<={self.hi}"] if self.hi is not None else []
        return " and ".join(parts)


def check_assumptions(assumptions: Sequence[Assumption], chunks: Sequence[MlirChunk]) -> None:
    """Every assumption bounds an integer argument of some function, and no two contradict.

    An assumption that names nothing would be ignored silently, and contradictory
    ones (`n>=10` with `n<=5`) describe no execution: both are bad input.
    """
    if not assumptions:
        return
    used: set[int] = set()
    signatures = []
    for chunk in chunks:
        for func in functions(chunk.module):
            name = symbol_name(func)
            args = list(func.regions[0].blocks[0].arguments)
            names = source_argument_names(func, chunk.lines)
            signatures.append(f"@{name}(" + ", ".join(
                f"%{n}" if n else f"#{i}" for i, n in enumerate(names)) + ")")
            for position, (arg, arg_name) in enumerate(zip(args, names, strict=True)):
                matching = [(i, a) for i, a in enumerate(assumptions)
                            if a.matches(name, position, arg_name)]
                if not matching:
                    continue
                label = f"%{arg_name}" if arg_name else f"#{position}"
                if int_width(arg.type) is None:
                    raise InputError("--assume", f"'{matching[0][1]}': argument {label} of "
                                     f"@{name} is {arg.type}, not an integer")
                used.update(i for i, _ in matching)
                lo = max((a.lo for _, a in matching if a.lo is not None), default=None)
                hi = min((a.hi for _, a in matching if a.hi is not None), default=None)
                if lo is not None and hi is not None and lo > hi:
                    said = " with ".join(f"'{a}'" for _, a in matching)
                    raise InputError("--assume", f"{said} contradict: no value of {label} in "
                                     f"@{name} is >= {lo} and <= {hi}")
    for i, a in enumerate(assumptions):
        if i not in used:
            known = ", ".join(signatures[:8]) + (", ..." if len(signatures) > 8 else "")
            raise InputError("--assume", f"'{a}' names no argument of any function "
                             f"({known or 'no functions'})")


@dataclass(frozen=True)
class VscaleBound:
    """`--vscale-max N`: vscale is at most N in every function (over what the IR says); None
    (`--vscale-max 0`, as IREE's pass option) says it is unbounded, whatever the IR says."""

    hi: int | None
    lo: int = 1


# --- interval arithmetic -------------------------------------------------------------

def _add(a: Range, b: Range) -> Range:
    lo = None if a.lo is None or b.lo is None else a.lo + b.lo
    hi = None if a.hi is None or b.hi is None else a.hi + b.hi
    return Range(lo, hi, _why(a, b))


def _neg(a: Range) -> Range:
    return Range(None if a.hi is None else -a.hi, None if a.lo is None else -a.lo, a.reason)


def _sub(a: Range, b: Range) -> Range:
    return _add(a, _neg(b))


def _mul(a: Range, b: Range) -> Range:
    for x, y in ((a, b), (b, a)):
        if x.is_exact:
            # A constant factor keeps whatever side of the other is known (mirrored if < 0).
            k = x.lo
            if k == 0:
                return Range.exact(0)
            lo = None if y.lo is None else y.lo * k
            hi = None if y.hi is None else y.hi * k
            return Range(lo, hi, y.reason) if k > 0 else Range(hi, lo, y.reason)
    if a.bounded and b.bounded:
        corners = [a.lo * b.lo, a.lo * b.hi, a.hi * b.lo, a.hi * b.hi]  # type: ignore[operator]
        return Range(min(corners), max(corners))
    if a.lo is not None and b.lo is not None and a.lo >= 0 and b.lo >= 0:
        hi = None if a.hi is None or b.hi is None else a.hi * b.hi
        return Range(a.lo * b.lo, hi, _why(a, b))
    return Range(None, None, _why(a, b) or "product of values with unknown sign")


def _trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


def _ceil_div(x: int, y: int) -> int:
    return -((-x) // y)


def _div(a: Range, b: Range, rounding: Callable[[int, int], int], what: str) -> Range:
    """Division with a divisor that cannot be 0 (dividing by 0 is undefined behaviour)."""
    if b.is_exact and b.lo > 0:  # type: ignore[operator]
        # By a positive constant every rounding is monotone: each known side stays known.
        return Range(None if a.lo is None else rounding(a.lo, b.lo),  # type: ignore[arg-type]
                     None if a.hi is None else rounding(a.hi, b.lo),  # type: ignore[arg-type]
                     a.reason)
    if b.lo is not None and b.hi is not None and (b.lo > 0 or b.hi < 0):
        if a.bounded:
            corners = [rounding(x, y) for x in (a.lo, a.hi) for y in (b.lo, b.hi)]
            return Range(min(corners), max(corners))
        if b.lo > 0 and a.lo is not None and a.lo >= 0:
            # Non-negative over positive: the quotient shrinks as the divisor grows.
            return Range(rounding(a.lo, b.hi), None, a.reason)
    return Range(None, None, _why(a, b) or f"{what} by a divisor that may be 0 or of unknown sign")


def _floordiv(x: int, y: int) -> int:
    return x // y


def _rem(a: Range, b: Range, unsigned: bool) -> Range:
    if b.lo is None or b.hi is None:
        return Range(None, None, _why(a, b) or "remainder by an unknown divisor")
    if unsigned and (b.lo < 0 or a.lo is None or a.lo < 0):
        return Range(None, None, _why(a, b) or "unsigned remainder of a possibly negative value")
    m = max(abs(b.lo), abs(b.hi)) - 1
    if m < 0:
        return Range(None, None, "remainder by 0")
    lo, hi = -m, m
    if a.lo is not None and a.lo >= 0:
        lo = 0
        hi = m if a.hi is None else min(m, a.hi)
    elif a.hi is not None and a.hi <= 0:
        hi = 0
        lo = -m if a.lo is None else max(-m, a.lo)
    return Range(lo, hi)


def _min(ranges: Sequence[Range]) -> Range:
    los = [r.lo for r in ranges]
    his = [r.hi for r in ranges if r.hi is not None]
    lo = None if None in los else min(los)  # type: ignore[type-var]
    hi = min(his) if his else None
    reason = None if lo is not None and hi is not None else _why(*ranges)
    if hi is None:  # a bound on any one operand would do: name every open one
        reason = "; or ".join(dict.fromkeys(r.reason for r in ranges if r.reason)) or reason
    return Range(lo, hi, reason)


def _max(ranges: Sequence[Range]) -> Range:
    return _neg(_min([_neg(r) for r in ranges]))


def _union(ranges: Sequence[Range]) -> Range:
    los, his = [r.lo for r in ranges], [r.hi for r in ranges]
    lo = None if None in los else min(los)  # type: ignore[type-var]
    hi = None if None in his else max(his)  # type: ignore[type-var]
    return Range(lo, hi, _why(*ranges))


def _non_negative(r: Range) -> bool:
    return r.lo is not None and r.lo >= 0


def _minui(ranges: Sequence[Range]) -> Range:
    if all(_non_negative(r) for r in ranges):
        return _min(ranges)
    known = [r for r in ranges if _non_negative(r) and r.hi is not None]
    if known:  # unsigned min is at most any operand that is a small non-negative number
        return Range(0, min(r.hi for r in known))  # type: ignore[type-var]
    return Range(None, None, _why(*ranges) or "unsigned min of possibly negative values")


def _maxui(ranges: Sequence[Range]) -> Range:
    if all(_non_negative(r) for r in ranges):
        return _max(ranges)
    return Range(None, None, _why(*ranges) or "unsigned max of possibly negative values")


_CMPI_PREDICATES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


def _cmpi(predicate: str, a: Range, b: Range) -> Range:
    if predicate.startswith("u"):
        if not (_non_negative(a) and _non_negative(b)):
            return Range(0, 1)
        predicate = "s" + predicate[1:]
    known = a.bounded and b.bounded
    if not known:
        return Range(0, 1)
    always: bool | None = None
    if predicate == "eq" or predicate == "ne":
        if a.is_exact and b.is_exact:
            always = a.lo == b.lo
        elif a.hi < b.lo or b.hi < a.lo:  # type: ignore[operator]
            always = False
        if always is not None and predicate == "ne":
            always = not always
    elif predicate in ("slt", "sle", "sgt", "sge"):
        x, y = (a, b) if predicate in ("slt", "sle") else (b, a)
        strict = predicate in ("slt", "sgt")
        if (x.hi < y.lo) if strict else (x.hi <= y.lo):  # type: ignore[operator]
            always = True
        elif (x.lo >= y.hi) if strict else (x.lo > y.hi):  # type: ignore[operator]
            always = False
    return Range(0, 1) if always is None else Range.exact(int(always))


def _intersect(a: Range, b: Range) -> Range:
    """Both hold. An empty result (contradictory facts: the code cannot run) keeps `a`."""
    lo = b.lo if a.lo is None else a.lo if b.lo is None else max(a.lo, b.lo)
    hi = b.hi if a.hi is None else a.hi if b.hi is None else min(a.hi, b.hi)
    if lo is not None and hi is not None and lo > hi:
        return a
    reason = None if lo is not None and hi is not None else (a.reason or b.reason)
    return Range(lo, hi, reason)


_SWAPPED = {"eq": "eq", "ne": "ne", "slt": "sgt", "sle": "sge", "sgt": "slt", "sge": "sle",
            "ult": "ugt", "ule": "uge", "ugt": "ult", "uge": "ule"}


def _bound_from_compare(predicate: str, other: Range) -> Range | None:
    """What `x <predicate> other` being true says about x (None: nothing)."""
    if predicate == "eq":
        return other if other.lo is not None or other.hi is not None else None
    if predicate in ("slt", "sle") and other.hi is not None:
        return Range(None, other.hi - (predicate == "slt"), "asserted only from above")
    if predicate in ("sgt", "sge") and other.lo is not None:
        return Range(other.lo + (predicate == "sgt"), None, "asserted only from below")
    if predicate in ("ult", "ule") and _non_negative(other) and other.hi is not None:
        # Unsigned x < y with y a small non-negative number: x is non-negative as well.
        return Range(0, other.hi - (predicate == "ult"))
    return None


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


def _fit(result: Range, width: int | None, what: str) -> Range:
    """Unbounded when the interval may leave the type's signed range (the value could wrap)."""
    if width is None or width == 1:
        return result
    lo_limit, hi_limit = -(1 << (width - 1)), (1 << (width - 1)) - 1
    if (result.lo is not None and result.lo < lo_limit) or (
            result.hi is not None and result.hi > hi_limit):
        return Range(None, None, f"`{what}` may overflow i{width}")
    return result


# --- affine maps --------------------------------------------------------------------

def eval_affine_expr(expr: ir.AffineExpr, dims: Sequence[Range], syms: Sequence[Range]) -> Range:
    """Interval of an affine expression; `mod`/`floordiv`/`ceildiv` by a positive constant."""
    e = expr.maybe_downcast()
    if isinstance(e, ir.AffineConstantExpr):
        return Range.exact(e.value)
    if isinstance(e, ir.AffineDimExpr):
        return dims[e.position]
    if isinstance(e, ir.AffineSymbolExpr):
        return syms[e.position]
    lhs = eval_affine_expr(e.lhs, dims, syms)
    rhs = eval_affine_expr(e.rhs, dims, syms)
    if isinstance(e, ir.AffineAddExpr):
        return _add(lhs, rhs)
    if isinstance(e, ir.AffineMulExpr):
        return _mul(lhs, rhs)
    if isinstance(e, ir.AffineFloorDivExpr):
        return _div(lhs, rhs, _floordiv, "floordiv")
    if isinstance(e, ir.AffineCeilDivExpr):
        return _div(lhs, rhs, _ceil_div, "ceildiv")
    if isinstance(e, ir.AffineModExpr):
        # Affine `mod` is always in [0, rhs - 1] for a positive rhs.
        if rhs.lo is not None and rhs.lo > 0 and rhs.hi is not None:
            if lhs.lo is not None and lhs.lo >= 0 and lhs.hi is not None and lhs.hi < rhs.lo:
                return lhs
            return Range(0, rhs.hi - 1)
        return Range(None, None, _why(lhs, rhs) or "mod by a value that may not be positive")
    return Range(None, None, f"affine expression `{expr}` is not modeled")


def eval_affine_map(amap: ir.AffineMap, operands: Sequence[Range]) -> list[Range]:
    dims, syms = operands[: amap.n_dims], operands[amap.n_dims:]
    return [eval_affine_expr(result, dims, syms) for result in amap.results]


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
                result = _intersect(result, fact)
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
        predicate = _CMPI_PREDICATES[ir.IntegerAttr(op.attributes["predicate"]).value]
        a, b = op.operands
        facts = []
        for value, other, pred in ((a, b, predicate), (b, a, _SWAPPED[predicate])):
            fact = _bound_from_compare(pred, self.range_at(other, op))
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
            return _fit(_assume_int(self, op)[number], int_width(value.type), op.name)
        handler = _HANDLERS.get(op.name)
        if handler is None:
            return Range.unknown(
                f"size comes from `{op.name}`, which the range analysis does not model")
        result = handler(self, op)
        return _fit(result, int_width(value.type), op.name)

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
        reason = None if lb.lo is not None and hi is not None else _why(lb, ub, step)
        return Range(lb.lo, hi, reason)

    def _affine_for_iv(self, op: ir.Operation) -> Range:
        lb_map = _affine_map_attr(op, "lowerBoundMap")
        ub_map = _affine_map_attr(op, "upperBoundMap")
        n_lb, n_ub = lb_map.n_inputs, ub_map.n_inputs
        operands = [self.range_of(v) for v in list(op.operands)[:n_lb + n_ub]]  # then inits
        lbs = eval_affine_map(lb_map, operands[:n_lb])
        ubs = eval_affine_map(ub_map, operands[n_lb:])
        step = ir.IntegerAttr(op.attributes["step"]).value
        return self._induction_variable(_max(lbs), _min(ubs), Range.exact(step))

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
    if _non_negative(a) and _non_negative(b):
        return _div(a, b, _floordiv, "divui")
    return Range(None, None, _why(a, b) or "unsigned division of a possibly negative value")


def _select(analysis: RangeAnalysis, op: ir.Operation) -> Range:
    cond, a, b = _operands(analysis, op)
    if cond.is_exact:
        return a if cond.lo else b
    return _union([a, b])


def _cast(analysis: RangeAnalysis, op: ir.Operation) -> Range:
    (a,) = _operands(analysis, op)
    if op.name in ("arith.extui", "arith.index_castui") and not _non_negative(a):
        width = int_width(op.operands[0].type) or 64
        return Range(0, (1 << width) - 1)
    return a  # sign-preserving; `_fit` makes a value that may not fit unbounded


def _cmpi_handler(analysis: RangeAnalysis, op: ir.Operation) -> Range:
    a, b = _operands(analysis, op)
    predicate = _CMPI_PREDICATES[ir.IntegerAttr(op.attributes["predicate"]).value]
    return _cmpi(predicate, a, b)


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
        stated = _union(bounds) if bounds else Range.unknown("`util.assume.int` states nothing")
        results.append(_intersect(analysis.range_at(operand, op), stated))
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
    "arith.addi": _binary(_add),
    "arith.subi": _binary(_sub),
    "arith.muli": _binary(_mul),
    "arith.divsi": _binary(lambda a, b: _div(a, b, _trunc_div, "divsi")),
    "arith.divui": _binary(_unsigned_div),
    "arith.ceildivsi": _binary(lambda a, b: _div(a, b, _ceil_div, "ceildivsi")),
    "arith.ceildivui": _binary(lambda a, b: _unsigned_div(a, b) if not (
        _non_negative(a) and _non_negative(b)) else _div(a, b, _ceil_div, "ceildivui")),
    "arith.floordivsi": _binary(lambda a, b: _div(a, b, _floordiv, "floordivsi")),
    "arith.remsi": _binary(lambda a, b: _rem(a, b, unsigned=False)),
    "arith.remui": _binary(lambda a, b: _rem(a, b, unsigned=True)),
    "arith.minsi": _variadic(_min),
    "arith.maxsi": _variadic(_max),
    "arith.minui": _variadic(_minui),
    "arith.maxui": _variadic(_maxui),
    "arith.select": _select,
    "arith.cmpi": _cmpi_handler,
    "arith.index_cast": _cast,
    "arith.index_castui": _cast,
    "arith.extsi": _cast,
    "arith.extui": _cast,
    "arith.trunci": _cast,
    "affine.apply": _affine(lambda results: results[0]),
    "affine.min": _affine(_min),
    "affine.max": _affine(_max),
    "memref.dim": _dim,
    "tensor.dim": _dim,
    "vector.vscale": lambda analysis, op: analysis.vscale,
}
