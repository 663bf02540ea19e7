"""Interval arithmetic: sound integer intervals, the operations on them, affine maps over them.

A `Range` is `[lo, hi]` with None for an open side and a reason naming why it is open.
Every operation is sound: the result holds every value the operation can produce from
values in its operands' ranges. What the IR says about a value is `ranges.py`'s job; what
the user says, `assumptions.py`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from iree.compiler import ir


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


def why(*ranges: Range) -> str | None:
    return next((r.reason for r in ranges if r.reason), None)


def add(a: Range, b: Range) -> Range:
    lo = None if a.lo is None or b.lo is None else a.lo + b.lo
    hi = None if a.hi is None or b.hi is None else a.hi + b.hi
    return Range(lo, hi, why(a, b))


def neg(a: Range) -> Range:
    return Range(None if a.hi is None else -a.hi, None if a.lo is None else -a.lo, a.reason)


def sub(a: Range, b: Range) -> Range:
    return add(a, neg(b))


def mul(a: Range, b: Range) -> Range:
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
        return Range(a.lo * b.lo, hi, why(a, b))
    return Range(None, None, why(a, b) or "product of values with unknown sign")


def trunc_div(x: int, y: int) -> int:
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y > 0) else -q


def ceil_div(x: int, y: int) -> int:
    return -((-x) // y)


def divide(a: Range, b: Range, rounding: Callable[[int, int], int], what: str) -> Range:
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
    return Range(None, None, why(a, b) or f"{what} by a divisor that may be 0 or of unknown sign")


def floor_div(x: int, y: int) -> int:
    return x // y


def remainder(a: Range, b: Range, unsigned: bool) -> Range:
    if b.lo is None or b.hi is None:
        return Range(None, None, why(a, b) or "remainder by an unknown divisor")
    if unsigned and (b.lo < 0 or a.lo is None or a.lo < 0):
        return Range(None, None, why(a, b) or "unsigned remainder of a possibly negative value")
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


def smallest(ranges: Sequence[Range]) -> Range:
    los = [r.lo for r in ranges]
    his = [r.hi for r in ranges if r.hi is not None]
    lo = None if None in los else min(los)  # type: ignore[type-var]
    hi = min(his) if his else None
    reason = None if lo is not None and hi is not None else why(*ranges)
    if hi is None:  # a bound on any one operand would do: name every open one
        reason = "; or ".join(dict.fromkeys(r.reason for r in ranges if r.reason)) or reason
    return Range(lo, hi, reason)


def largest(ranges: Sequence[Range]) -> Range:
    return neg(smallest([neg(r) for r in ranges]))


def union(ranges: Sequence[Range]) -> Range:
    los, his = [r.lo for r in ranges], [r.hi for r in ranges]
    lo = None if None in los else min(los)  # type: ignore[type-var]
    hi = None if None in his else max(his)  # type: ignore[type-var]
    return Range(lo, hi, why(*ranges))


def non_negative(r: Range) -> bool:
    return r.lo is not None and r.lo >= 0


def minui(ranges: Sequence[Range]) -> Range:
    if all(non_negative(r) for r in ranges):
        return smallest(ranges)
    known = [r for r in ranges if non_negative(r) and r.hi is not None]
    if known:  # unsigned min is at most any operand that is a small non-negative number
        return Range(0, min(r.hi for r in known))  # type: ignore[type-var]
    return Range(None, None, why(*ranges) or "unsigned min of possibly negative values")


def maxui(ranges: Sequence[Range]) -> Range:
    if all(non_negative(r) for r in ranges):
        return largest(ranges)
    return Range(None, None, why(*ranges) or "unsigned max of possibly negative values")


CMPI_PREDICATES = ["eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"]


def compare(predicate: str, a: Range, b: Range) -> Range:
    if predicate.startswith("u"):
        if not (non_negative(a) and non_negative(b)):
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


def intersect(a: Range, b: Range) -> Range:
    """Both hold. An empty result (contradictory facts: the code cannot run) keeps `a`."""
    lo = b.lo if a.lo is None else a.lo if b.lo is None else max(a.lo, b.lo)
    hi = b.hi if a.hi is None else a.hi if b.hi is None else min(a.hi, b.hi)
    if lo is not None and hi is not None and lo > hi:
        return a
    reason = None if lo is not None and hi is not None else (a.reason or b.reason)
    return Range(lo, hi, reason)


# The predicate with its operands swapped: `a slt b` is `b sgt a`.
SWAPPED_PREDICATES = {"eq": "eq", "ne": "ne", "slt": "sgt", "sle": "sge", "sgt": "slt",
                      "sge": "sle", "ult": "ugt", "ule": "uge", "ugt": "ult", "uge": "ule"}


def bound_from_compare(predicate: str, other: Range) -> Range | None:
    """What `x <predicate> other` being true says about x (None: nothing)."""
    if predicate == "eq":
        return other if other.lo is not None or other.hi is not None else None
    if predicate in ("slt", "sle") and other.hi is not None:
        return Range(None, other.hi - (predicate == "slt"), "asserted only from above")
    if predicate in ("sgt", "sge") and other.lo is not None:
        return Range(other.lo + (predicate == "sgt"), None, "asserted only from below")
    if predicate in ("ult", "ule") and non_negative(other) and other.hi is not None:
        # Unsigned x < y with y a small non-negative number: x is non-negative as well.
        return Range(0, other.hi - (predicate == "ult"))
    return None


def fit(result: Range, width: int | None, what: str) -> Range:
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
        return add(lhs, rhs)
    if isinstance(e, ir.AffineMulExpr):
        return mul(lhs, rhs)
    if isinstance(e, ir.AffineFloorDivExpr):
        return divide(lhs, rhs, floor_div, "floordiv")
    if isinstance(e, ir.AffineCeilDivExpr):
        return divide(lhs, rhs, ceil_div, "ceildiv")
    if isinstance(e, ir.AffineModExpr):
        # Affine `mod` is always in [0, rhs - 1] for a positive rhs.
        if rhs.lo is not None and rhs.lo > 0 and rhs.hi is not None:
            if lhs.is_exact and rhs.is_exact:
                return Range.exact(lhs.lo % rhs.lo)  # type: ignore[operator]
            if lhs.lo is not None and lhs.lo >= 0 and lhs.hi is not None and lhs.hi < rhs.lo:
                return lhs
            return Range(0, rhs.hi - 1)
        return Range(None, None, why(lhs, rhs) or "mod by a value that may not be positive")
    return Range(None, None, f"affine expression `{expr}` is not modeled")


def eval_affine_map(amap: ir.AffineMap, operands: Sequence[Range]) -> list[Range]:
    dims, syms = operands[: amap.n_dims], operands[amap.n_dims:]
    return [eval_affine_expr(result, dims, syms) for result in amap.results]
