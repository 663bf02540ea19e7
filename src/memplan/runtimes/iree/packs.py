"""The `stream.resource.pack` ops of an IREE program before its layout, read and rewritten.

Read: each pack's slices (inclusive lifetime, byte size or, for a runtime size, its
proven upper bound or why there is none), its resource config, and every transient
`stream.resource.alloca` of the invocation with the pack that sizes it.
Written: a plan becomes the pack's results (`arith.constant` offsets and total), the
pack erased, which is what IREE's own layout pass does with its plan. A pack with a
slice memplan cannot bound is left to IREE.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from iree.compiler import ir
from iree.compiler.dialects import arith, util

from ...analysis.index_eval import eval_index
from ...analysis.ranges import RangeAnalysis
from ...errors import InputError
from ...ir.walk import OpOrder, defining_op, functions, int_constant, symbol_name, users, walk
from .layout import PackSlice, ResourceConfig

PACK_OP = "stream.resource.pack"
_MARK = "memplan.pack_result"
_CONFIG_KEYS = {"min_buffer_offset_alignment": "offset_alignment",
                "min_buffer_range_alignment": "range_alignment"}


@dataclass(frozen=True)
class Pack:
    function: str
    index: int  # among the function's packs, in op order
    location: str
    slices: tuple[PackSlice, ...]
    config: ResourceConfig

    @property
    def name(self) -> str:
        return f"@{self.function}#{self.index}"


@dataclass(frozen=True)
class TransientAlloca:
    """A transient allocation of the invocation: a pack's arena or a buffer of its own."""

    function: str
    start: int  # op positions in the function, half-open
    end: int
    pack: int | None  # index of the pack giving its size
    size: int | None  # bytes when not a pack's (None: a runtime size)


def assemble(dumps: Sequence[tuple[str, str]], context: ir.Context, name: str) -> ir.Module:
    """The module as IREE's layout pass would find it if it ran on every function at once.

    The pass runs function by function: in the last dump the functions before its own
    are laid out already. Each function with a pack is taken from its own last dump."""
    last = {function: text for function, text in dumps}
    base_function, base_text = dumps[-1]
    module = _parse(base_text, context, name)
    for function, text in last.items():
        if function == base_function or PACK_OP not in text:
            continue
        donor = _parse(text, context, name)
        fresh = next(f for f in functions(donor) if symbol_name(f) == function)
        stale = next(f for f in functions(module) if symbol_name(f) == function)
        fresh.move_before(stale)
        stale.erase()
    return module


def _parse(text: str, context: ir.Context, name: str) -> ir.Module:
    try:
        return ir.Module.parse(text, context)
    except ir.MLIRError as err:
        raise InputError(name, f"cannot parse the module IREE printed: {err}") from None


def pack_ops(module: ir.Module) -> list[tuple[str, ir.Operation]]:
    """(function, pack op) in module and op order, outside executables' device code."""
    found = []
    for func in functions(module):
        if func.name == "func.func":  # device code inside stream.executable
            continue
        found += [(symbol_name(func), op) for op in walk(func) if op.name == PACK_OP]
    return found


def read_packs(module: ir.Module) -> list[Pack]:
    packs, ranges, counts = [], {}, {}
    for function, op in pack_ops(module):
        func = _function_of(op)
        if func not in ranges:
            ranges[func] = RangeAnalysis(func)
        index = counts.get(function, 0)
        counts[function] = index + 1
        packs.append(Pack(function, index, str(op.location), _slices(op, ranges[func]),
                          resource_config(op)))
    return packs


def _function_of(op: ir.Operation) -> ir.Operation:
    current = op.parent
    while current.name not in ("util.func", "util.initializer", "func.func"):
        current = current.parent
    return current


def _sizes(op: ir.Operation) -> list[ir.Value]:
    segments = list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))
    return list(op.operands)[segments[0]:]


def _slices(op: ir.Operation, ranges: RangeAnalysis) -> tuple[PackSlice, ...]:
    bounds = [ir.IntegerAttr(a).value for a in ir.ArrayAttr(op.attributes["lifetime_intervals"])]
    slices = []
    for i, size in enumerate(_sizes(op)):
        start, end = bounds[2 * i], bounds[2 * i + 1]
        static = int_constant(size)
        if static is not None:
            slices.append(PackSlice(start, end, static))
            continue
        r = ranges.range_of(size)
        if r.hi is not None:
            slices.append(PackSlice(start, end, None, bound=r.hi))
        else:
            why = r.reason or "no upper bound is proven"
            slices.append(PackSlice(start, end, None,
                                    why_unbounded=f"{size.get_name()}: {why}"))
    return tuple(slices)


def runtime_sizes_at(module: ir.Module, at: Mapping[str, Mapping[str, int]]
                     ) -> list[list[int | None]]:
    """Per pack (module order), per runtime-sized slice (slice order): its bytes when the
    inputs of the pack's function have the sizes `at` gives for it (keys as
    `analysis.index_eval`'s, `arg0.dim0`; a `$async` twin reads its public function's),
    None where they do not decide it."""
    found = []
    for function, op in pack_ops(module):
        given = at.get(function.removesuffix("$async"), {})
        found.append([eval_index(size, given) for size in _sizes(op)
                      if int_constant(size) is None])
    return found


def resource_config(op: ir.Operation) -> ResourceConfig:
    """The nearest `stream.resources` config above the pack, else IREE's defaults."""
    current: ir.Operation | None = op
    while current is not None:
        if "stream.resources" in current.attributes:
            text = str(current.attributes["stream.resources"])
            found = {_CONFIG_KEYS[k]: int(v) for k, v in
                     re.findall(r"(min_buffer_\w+_alignment) = (\d+)", text)}
            return ResourceConfig(**found)
        parent = current.parent
        current = parent.operation if parent is not None and hasattr(parent, "attributes") \
            else None
    return ResourceConfig()


def transient_allocas(module: ir.Module) -> list[TransientAlloca]:
    """Every transient `stream.resource.alloca` with its life: to its `dealloca`, else to
    the function's end."""
    found = []
    for func in functions(module):
        if func.name == "func.func":
            continue
        order = OpOrder.of(func)
        packs = [op for op in walk(func) if op.name == PACK_OP]
        end_of_function = len(order.position)
        for op in walk(func):
            if op.name != "stream.resource.alloca" or "transient" not in str(op.results[0].type):
                continue
            size = next((v for v in op.operands if isinstance(v.type, ir.IndexType)), None)
            pack, static = None, None
            if size is not None:
                owner = defining_op(size)
                if owner is not None and owner.name == PACK_OP:
                    pack = next(i for i, p in enumerate(packs) if p == owner)
                else:
                    static = int_constant(size)
            freed = [order.position[u] for u in users(op.results[0])
                     if u.name == "stream.resource.dealloca"]
            found.append(TransientAlloca(symbol_name(func), order.position[op],
                                         max(freed, default=end_of_function) + 1, pack, static))
    return found


def write_plan(op: ir.Operation, offsets: Sequence[int], total: int) -> None:
    """Replace the pack by its results as constants: the layout IREE would otherwise make."""
    with ir.InsertionPoint(op), op.location:
        index = ir.IndexType.get()
        values = [total, *offsets]
        for result, value in zip(op.results, values, strict=True):
            result.replace_all_uses_with(arith.ConstantOp(index, value).result)
    op.erase()


def mark_results(op: ir.Operation) -> None:
    """Keep the pack's results visible after IREE lays it out: each flows through an
    optimization barrier, which no fold removes, so the offsets IREE chose can be read."""
    with ir.InsertionPoint.after(op), op.location:
        for result in op.results:
            barrier = util.OptimizationBarrierOp([result.type], [result])
            barrier.operation.attributes[_MARK] = ir.UnitAttr.get()


def marked_values(module: ir.Module, name: str) -> list[int]:
    """After `mark_results` and IREE's layout: each pack's (total, *offsets), packs in
    module order, as one list."""
    values: list[int] = []
    for func in functions(module):
        for op in walk(func):
            if op.name == "util.optimization_barrier" and _MARK in op.attributes:
                value = int_constant(op.operands[0])
                if value is None:
                    raise InputError(name, "IREE left a pack result that is not a constant "
                                     "(a runtime-sized slice)")
                values.append(value)
    return values
