"""Equality and offset relations between integer/index values of one function.

Each value is written as a linear form `c0 + sum(ci * atom_i)` over atoms (values
the forms do not look through). Two values differ by a constant when their forms
differ only in `c0`. This is how exported code is read: PyTorch normalises a slice
bound `p` as `clamp(p < 0 ? p + n : p, 0, n)` and the bound `p + 1` by the same
clamp computed again, and under `0 <= p <= n - 1` both clamps are the identity, so
the second is the first plus 1.

Looked through, each only when it is sound:
- `arith.constant`; `addi`/`subi`, `muli` by a constant, `affine.apply` of a linear
  map: only when the range analysis shows the result cannot overflow its type
  (forms are over mathematical integers);
- value-preserving casts (`index_cast`, `extsi`; `index_castui`, `extui` of a
  non-negative value; `trunci` of a value that fits);
- `select` whose condition the ranges decide (or whose arms are equal), `minsi`,
  `maxsi` (and the unsigned ones on non-negative values) whose operands' ranges
  order them: what the range analysis, with the program's asserts, proves.
Two ops with the same name, attributes and (related-equal) operands that read no
memory give the same value (an exporter computes `tensor.extract %pos[0]` twice).

Anything else is an atom, with the reason it could not be looked through, so a
relation that does not hold says why.
"""

from __future__ import annotations

from dataclasses import dataclass

from iree.compiler import ir

from ..ir.source import source_loc
from ..ir.types import int_width
from ..ir.walk import defining_op
from .intervals import Range
from .ranges import RangeAnalysis

Key = object  # an atom: an ir.Value, or a structural key of a recomputed pure op


@dataclass(frozen=True)
class Linear:
    """`const + sum(coef * atom)`; no zero coefficients, so equal forms compare equal."""

    terms: frozenset[tuple[Key, int]]
    const: int

    @staticmethod
    def constant(value: int) -> Linear:
        return Linear(frozenset(), value)

    @staticmethod
    def atom(key: Key) -> Linear:
        return Linear(frozenset({(key, 1)}), 0)

    def plus(self, other: Linear, sign: int = 1) -> Linear:
        coefs: dict[Key, int] = dict(self.terms)
        for key, coef in other.terms:
            coefs[key] = coefs.get(key, 0) + sign * coef
        return _linear(coefs, self.const + sign * other.const)

    def times(self, k: int) -> Linear:
        return _linear({key: coef * k for key, coef in self.terms}, self.const * k)


def _linear(coefs: dict[Key, int], const: int) -> Linear:
    return Linear(frozenset((k, c) for k, c in coefs.items() if c), const)


def _non_negative(r: Range) -> bool:
    return r.lo is not None and r.lo >= 0


@dataclass(frozen=True)
class Difference:
    """`a - b`: `offset` if it is provably constant, else None and `reason`."""

    offset: int | None
    reason: str | None = None


# Ops that read no memory and have no effects: equal operands give an equal result.
_STRUCTURAL = ("arith.", "index.", "affine.apply", "affine.min", "affine.max", "tensor.extract",
               "tensor.dim")


class Relations:
    """Linear forms of the integer values of one function (memoised)."""

    def __init__(self, ranges: RangeAnalysis, path: str = "<input>",
                 ignore_overflow: bool = False):
        """`path`: the input's name (a `SourceName` for a chunk), for the lines reasons cite.
        `ignore_overflow` (unsound: only to word a refusal) reads through any add or mul."""
        self.ranges = ranges
        self.path = path
        self.ignore_overflow = ignore_overflow
        self._forms: dict[ir.Value, Linear] = {}
        self._why: dict[Key, str] = {}  # why an atom could not be looked through

    def difference(self, a: ir.Value | int, b: ir.Value | int) -> Difference:
        fa, fb = self.form(a), self.form(b)
        delta = fa.plus(fb, -1)
        if not delta.terms:
            return Difference(delta.const)
        left = {key for key, _ in delta.terms}
        # The first side's atoms first: the reason names where `a` stopped being readable.
        ordered = [key for form in (fa, fb) for key, _ in form.terms if key in left]
        reasons = [self._why[key] for key in ordered if key in self._why]
        names = ", ".join(_describe(key, self.path) for key, _ in delta.terms)
        return Difference(None, reasons[0] if reasons else f"{names} is not related to the other")

    def explain(self, a: ir.Value | int, b: ir.Value | int, want: int) -> str:
        """Why `a - b` is not provably `want`: the offset it has if that is a different
        constant (even when overflow was what stopped the proof), else the reason."""
        diff = self.difference(a, b)
        if diff.offset is not None:
            return f"it is the prefix length + {diff.offset}"
        loose = Relations(self.ranges, self.path, ignore_overflow=True).difference(a, b)
        if loose.offset is not None and loose.offset != want:
            return f"it is the prefix length + {loose.offset}"
        return diff.reason or "no relation found"

    def equal(self, a: ir.Value | int, b: ir.Value | int) -> bool:
        return self.difference(a, b).offset == 0

    def form(self, value: ir.Value | int) -> Linear:
        if isinstance(value, int):
            return Linear.constant(value)
        cached = self._forms.get(value)
        if cached is None:
            cached = self._compute(value)
            self._forms[value] = cached
        return cached

    # --- one op at a time ---------------------------------------------------------

    def _compute(self, value: ir.Value) -> Linear:
        op = defining_op(value)
        if op is None:
            return Linear.atom(value)
        if op.name == "arith.constant":
            exact = self.ranges.range_of(value)
            if exact.is_exact and int_width(value.type) != 1:
                return Linear.constant(exact.lo)  # type: ignore[arg-type]
        handler = _LOOK_THROUGH.get(op.name)
        if handler is not None:
            found = handler(self, op)
            if isinstance(found, Linear):
                return found
            return self._atom(value, op, found)
        return self._atom(value, op, None)

    def _atom(self, value: ir.Value, op: ir.Operation, reason: str | None) -> Linear:
        key = self._structural_key(op, value) if op.name.startswith(_STRUCTURAL) else value
        if reason and key not in self._why:
            self._why[key] = reason
        return Linear.atom(key)

    def _structural_key(self, op: ir.Operation, value: ir.Value) -> Key:
        """Same op, attributes and operands (by their forms) -> same key."""
        operands = tuple(self.form(v) if int_width(v.type) else v for v in op.operands)
        number = value.maybe_downcast().result_number
        attributes = tuple(sorted((name, str(op.attributes[name])) for name in op.attributes))
        return (op.name, attributes, operands, number)

    def _no_overflow(self, op: ir.Operation) -> str | None:
        """None when the result provably fits its type; else why it may not."""
        if self.ignore_overflow:
            return None
        result = self.ranges.range_of(op.results[0])
        if result.bounded:
            return None
        if op.name in ("arith.addi", "arith.subi") and self._sum_fits(op):
            return None
        return (f"`{op.name}` at {_where(op, self.path)} may overflow: its range is {result}"
                + (f" ({result.reason})" if result.reason else ""))

    def _sum_fits(self, op: ir.Operation) -> bool:
        """`a + b` (or `a - b`) cannot wrap: on each side either the bound is known and in
        range, or the other operand pushes away from it (p + 1 with p <= 15 cannot
        underflow, whatever p's lower bound)."""
        width = int_width(op.results[0].type) or 64
        low, high = -(1 << (width - 1)), (1 << (width - 1)) - 1
        a, b = self._operand_ranges(op)
        if op.name == "arith.subi":
            b = Range(None if b.hi is None else -b.hi, None if b.lo is None else -b.lo)
        up = (a.hi is not None and b.hi is not None and a.hi + b.hi <= high) or \
            (a.hi is None and b.hi is not None and b.hi <= 0) or \
            (b.hi is None and a.hi is not None and a.hi <= 0)
        down = (a.lo is not None and b.lo is not None and a.lo + b.lo >= low) or \
            (a.lo is None and b.lo is not None and b.lo >= 0) or \
            (b.lo is None and a.lo is not None and a.lo >= 0)
        return up and down

    def _operand_ranges(self, op: ir.Operation) -> list[Range]:
        return [self.ranges.range_at(v, op) for v in op.operands]


def _where(op: ir.Operation, path: str) -> str:
    loc = source_loc(op, path)
    return f"line {loc.line}" if loc is not None else "an unknown place"


def _unbounded_source(rel: Relations, op: ir.Operation) -> str:
    """The first value `op` is computed from whose range is open, and why (or "")."""
    seen: set[ir.Operation] = set()
    pending = [op]
    while pending:
        current = pending.pop()
        for v in current.operands:
            r = rel.ranges.range_at(v, current)
            source = defining_op(v)
            if not r.bounded and (source is None or source.name not in _LOOK_THROUGH):
                return f"; it depends on a value in {r}" + (f": {r.reason}" if r.reason else "")
            if source is not None and source not in seen and source.name in _LOOK_THROUGH:
                seen.add(source)
                pending.append(source)
            elif source is not None and source.name == "arith.cmpi" and source not in seen:
                seen.add(source)
                pending.append(source)
    return ""


def _describe(key: Key, path: str) -> str:
    if isinstance(key, tuple):
        return f"the result of `{key[0]}`"
    op = defining_op(key)  # type: ignore[arg-type]
    return (f"the result of `{op.name}` at {_where(op, path)}" if op is not None
            else "an argument")


# --- transfer functions: a Linear, or the reason (or None) the op stays an atom -------

def _add_sub(rel: Relations, op: ir.Operation) -> Linear | str | None:
    why = rel._no_overflow(op)
    if why:
        return why
    a, b = (rel.form(v) for v in op.operands)
    return a.plus(b, -1 if op.name == "arith.subi" else 1)


def _mul(rel: Relations, op: ir.Operation) -> Linear | str | None:
    a, b = (rel.form(v) for v in op.operands)
    for x, y in ((a, b), (b, a)):
        if not x.terms:
            why = rel._no_overflow(op)
            return why if why else y.times(x.const)
    return None  # a product of two unknowns is not linear


def _cast(rel: Relations, op: ir.Operation) -> Linear | str | None:
    (source,) = op.operands
    width_in, width_out = int_width(source.type) or 64, int_width(op.results[0].type) or 64
    src = rel.ranges.range_at(source, op)
    if op.name in ("arith.index_castui", "arith.extui") and not _non_negative(src):
        return f"`{op.name}` at {_where(op, rel.path)} of a value that may be negative ({src})"
    if width_out < width_in and not rel.ranges.range_of(op.results[0]).bounded:
        return f"`{op.name}` at {_where(op, rel.path)} may not keep the value"
    return rel.form(source)


def _select(rel: Relations, op: ir.Operation) -> Linear | str | None:
    cond, a, b = op.operands
    decided = rel.ranges.range_at(cond, op)
    if decided.is_exact:
        return rel.form(a if decided.lo else b)
    fa, fb = rel.form(a), rel.form(b)
    if fa == fb:
        return fa
    return (f"`arith.select` at {_where(op, rel.path)}: its condition is not decided "
            + _because(rel, cond, op) + _unbounded_source(rel, op))


def _because(rel: Relations, cond: ir.Value, op: ir.Operation) -> str:
    """Why a comparison is undecided: the first unbounded operand's reason."""
    cmp = defining_op(cond)
    operands = list(cmp.operands) if cmp is not None and cmp.name == "arith.cmpi" else [cond]
    for v in operands:
        r = rel.ranges.range_at(v, cmp or op)
        if not r.bounded:
            return f"(an operand's range is {r}" + (f": {r.reason})" if r.reason else ")")
    ranges = ", ".join(str(rel.ranges.range_at(v, cmp or op)) for v in operands)
    return f"(operand ranges {ranges} overlap)"


def _min_max(rel: Relations, op: ir.Operation) -> Linear | str | None:
    ranges = rel._operand_ranges(op)
    unsigned = op.name in ("arith.minui", "arith.maxui")
    if unsigned and not all(_non_negative(r) for r in ranges):
        return f"`{op.name}` at {_where(op, rel.path)} of values that may be negative"
    smaller_wins = op.name in ("arith.minsi", "arith.minui")
    for i, r in enumerate(ranges):
        others = [o for j, o in enumerate(ranges) if j != i]
        if smaller_wins and r.hi is not None and all(o.lo is not None and r.hi <= o.lo
                                                     for o in others):
            return rel.form(op.operands[i])
        if not smaller_wins and r.lo is not None and all(o.hi is not None and r.lo >= o.hi
                                                         for o in others):
            return rel.form(op.operands[i])
    forms = [rel.form(v) for v in op.operands]
    if all(f == forms[0] for f in forms):
        return forms[0]
    shown = ", ".join(f"{r}" + (f" ({r.reason})" if r.reason else "") for r in ranges)
    return (f"`{op.name}` at {_where(op, rel.path)}: cannot tell which operand it picks "
            f"(ranges {shown})" + _unbounded_source(rel, op))


def _affine_apply(rel: Relations, op: ir.Operation) -> Linear | str | None:
    amap = ir.AffineMapAttr(op.attributes["map"]).value
    if len(amap.results) != 1:
        return None
    operands = [rel.form(v) for v in op.operands]
    form = _affine_form(amap.results[0], operands[:amap.n_dims], operands[amap.n_dims:])
    if form is None:
        return f"`affine.apply` at {_where(op, rel.path)} is not linear"
    why = rel._no_overflow(op)
    return why if why else form


def _affine_form(expr: ir.AffineExpr, dims: list[Linear], syms: list[Linear]) -> Linear | None:
    e = expr.maybe_downcast()
    if isinstance(e, ir.AffineConstantExpr):
        return Linear.constant(e.value)
    if isinstance(e, ir.AffineDimExpr):
        return dims[e.position]
    if isinstance(e, ir.AffineSymbolExpr):
        return syms[e.position]
    if isinstance(e, (ir.AffineAddExpr, ir.AffineMulExpr)):
        lhs = _affine_form(e.lhs, dims, syms)
        rhs = _affine_form(e.rhs, dims, syms)
        if lhs is None or rhs is None:
            return None
        if isinstance(e, ir.AffineAddExpr):
            return lhs.plus(rhs)
        if not rhs.terms:
            return lhs.times(rhs.const)
        if not lhs.terms:
            return rhs.times(lhs.const)
    return None


_LOOK_THROUGH = {
    "arith.addi": _add_sub,
    "arith.subi": _add_sub,
    "arith.muli": _mul,
    "arith.index_cast": _cast,
    "arith.index_castui": _cast,
    "arith.extsi": _cast,
    "arith.extui": _cast,
    "arith.trunci": _cast,
    "arith.select": _select,
    "arith.minsi": _min_max,
    "arith.maxsi": _min_max,
    "arith.minui": _min_max,
    "arith.maxui": _min_max,
    "affine.apply": _affine_apply,
}
