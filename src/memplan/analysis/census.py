"""The allocation census: every allocation of a module, with what we can prove of it.

Interface first (shared by check, opt, place and the workgroup check); the
walk that fills it is `take_census`.

Counts `memref.alloc`, `memref.alloca`, `bufferization.alloc_tensor` (any
memory space, so workgroup `memref.alloc`s too) and `gpu.func` workgroup/private
attributions. Sizes of dynamic dims come from the range analysis; lifetimes
are positions in the function's pre-order op walk, half-open, from the buffer's
first use to its last (`lifetimes.use_lifetime`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from functools import cached_property

from iree.compiler import ir

from ..errors import InputError
from ..ir import MlirChunk, source_loc
from ..ir.cfg import cfg_cycle_around
from ..ir.ops import (
    ALLOCATION_OPS,
    LLVM_ALLOCATION_OPS,
)
from ..ir.source import source_argument_names
from ..ir.types import element_bytes, llvm_pointer_space, memory_space_name, shape_of
from ..ir.walk import (
    FunctionOps,
    OpOrder,
    allocation_scope,
    ancestor_in_block,
    enclosing_loops,
    function_ops,
    loops_inside_allocation_scope,
    symbol_name,
    users,
    walk,
)
from ..limits import MAX_VALUE
from .allocation import Allocation  # noqa: F401 - the record, re-exported
from .assumptions import Assumption
from .lifetimes import use_lifetime
from .ranges import RangeAnalysis

# --- the walk ---------------------------------------------------------------------------

class FunctionFacts:
    """What one function's analyses share, each computed on first use: its op order and its
    range analysis (most functions of a large file have no allocation and need neither)."""

    def __init__(self, func: ir.Operation, chunk: MlirChunk,
                 assumptions: Sequence[Assumption] = (), ops: list[ir.Operation] | None = None):
        self.func = func
        self.name = symbol_name(func)
        self._chunk = chunk
        self._assumptions = assumptions
        self._ops = ops  # the function's walk, when the caller has it

    @cached_property
    def order(self) -> OpOrder:
        if self._ops is None:
            return OpOrder.of(self.func)
        return OpOrder({op: index for index, op in enumerate(self._ops)})

    @cached_property
    def ranges(self) -> RangeAnalysis:
        return RangeAnalysis(self.func, self._assumptions,
                             lambda: source_argument_names(self.func, self._chunk.lines))


def function_facts(func: ir.Operation, chunk: MlirChunk,
                   assumptions: Sequence[Assumption] = (),
                   ops: list[ir.Operation] | None = None) -> FunctionFacts:
    return FunctionFacts(func, chunk, assumptions, ops)


def allocation_ops(func: ir.Operation) -> list[ir.Operation]:
    return [op for op in walk(func) if op.name in ALLOCATION_OPS]


def dynamic_size_operands(op: ir.Operation, shape: Sequence[int | None] | None = None
                          ) -> list[ir.Value]:
    """The size operands of an allocation, one per dynamic dim, in dim order (`shape`: its
    result's, when the caller has it)."""
    count = sum(1 for d in (shape_of(op.results[0].type) if shape is None else shape)
                if d is None)
    return list(op.operands)[:count] if count else []


def take_census(chunk: MlirChunk, assumptions: Sequence[Assumption] = (),
                funcs: Sequence[FunctionOps] | None = None) -> list[Allocation]:
    """Every allocation in the chunk's functions, in function and op order (`funcs`: the
    chunk's `function_ops`, when the caller has them)."""
    census: list[Allocation] = []
    for func in function_ops(chunk.module) if funcs is None else funcs:
        facts = function_facts(func.func, chunk, assumptions, func.ops)
        found = [describe_allocation(op, facts, chunk.path, chunk.index)
                 for op in func.named(ALLOCATION_OPS)]
        found += [dataclasses.replace(a, chunk=chunk.index)
                  for a in _workgroup_attributions(facts, chunk.path)]
        for a in found:
            _check_size_limit(a, chunk.path)
        census += found
    return census


def _check_size_limit(a: Allocation, path: str) -> None:
    """Sizes beyond `MAX_VALUE` would overflow the packers' 64-bit arithmetic; no memory
    memplan plans for holds one."""
    size = a.bytes_or_bound
    if size is not None and size > MAX_VALUE:
        place = f"{a.location.line}:{a.location.col}" if a.location else None
        raise InputError(path, f"{a.op_name} in @{a.function} needs {size} bytes, above "
                         "memplan's limit of 2**40 bytes", place)


def describe_allocation(op: ir.Operation, facts: FunctionFacts, path: str,
                        chunk: int = 0) -> Allocation:
    """The census record of one allocation op (of chunk number `chunk`)."""
    name = op.name
    result = op.results[0]
    type_ = result.type
    attributes = op.attributes
    if name in LLVM_ALLOCATION_OPS:
        shape, elem_type, sizes = _llvm_alloca_shape(op, facts.ranges)
    else:
        shaped = ir.ShapedType(type_)
        shape, elem_type = shape_of(shaped), shaped.element_type
        sizes = dynamic_size_operands(op, shape)
    elem_bytes = element_bytes(elem_type)
    dim_bounds, reason = bound_dims(shape, sizes, facts.ranges)
    exact = bound = None
    if elem_bytes is None:
        reason = f"element type {elem_type} has no known size"
    elif reason is None:
        bound = elem_bytes * math.prod(dim_bounds)  # type: ignore[arg-type]
        exact = bound if None not in shape else None
    memory_space = memory_space_name(type_) if name not in LLVM_ALLOCATION_OPS else \
        llvm_pointer_space(type_)
    if "memory_space" in attributes:  # bufferization.alloc_tensor's own attribute
        memory_space = str(attributes["memory_space"])
    loops = enclosing_loops(op)
    scope = allocation_scope(op)
    cycle = cfg_cycle_around(op, scope) if scope is not None else None
    loop_location = source_loc(loops[-1], path) if loops else None
    if cycle is not None and loop_location is None:
        loop_location = source_loc(cycle, path)
    return Allocation(
        op_name=name, function=facts.name, location=source_loc(op, path),
        element_type=str(elem_type), shape=shape, element_bytes=elem_bytes or 0,
        exact_bytes=exact, bound_bytes=bound, unbounded_reason=reason,
        memory_space=memory_space, loop_depth=len(loops) + (cycle is not None),
        lifetime=use_lifetime(result, op, facts.order),
        alignment=ir.IntegerAttr(attributes["alignment"]).value
        if "alignment" in attributes else None,
        dim_bounds=dim_bounds,
        loop_location=loop_location,
        scope_loop_depth=loops_inside_allocation_scope(op) + (cycle is not None),
        outside_entry_block=scope is not None and op.block != scope.regions[0].blocks[0],
        op=op, chunk=chunk,
    )


def _llvm_alloca_shape(op: ir.Operation, ranges: RangeAnalysis
                       ) -> tuple[tuple[int | None, ...], ir.Type, list[ir.Value]]:
    """`llvm.alloca %n x T`: one dimension of `n` elements (static when `n` is a constant)."""
    elem_type = ir.TypeAttr(op.attributes["elem_type"]).value
    count = op.operands[0]
    known = ranges.range_of(count)
    if known.is_exact:
        return (known.lo,), elem_type, []
    return (None,), elem_type, [count]


def bound_dims(shape: Sequence[int | None], sizes: Sequence[ir.Value],
               ranges: RangeAnalysis) -> tuple[tuple[int | None, ...], str | None]:
    """Per-dim upper bounds (static dims as they are) and why the first open one is open."""
    bounds: list[int | None] = []
    reason = None
    dynamic = iter(sizes)
    for dim in shape:
        if dim is not None:
            bounds.append(dim)
            continue
        r = ranges.range_of(next(dynamic))
        if r.hi is None:
            bounds.append(None)
            reason = reason or r.reason or "size has no proven upper bound"
        else:
            bounds.append(max(r.hi, 0))  # a negative size is undefined behaviour, never an alloc
    return tuple(bounds), reason


def buffer_lifetime(buffer: ir.Value, op: ir.Operation, order: OpOrder,
                    same_memory: Callable[[ir.Operation, ir.Value], list[ir.Value]]
                    ) -> tuple[int, int]:
    """Half-open `[op, last use + 1)` (a stream resource is reserved where it is allocated;
    memrefs use `lifetimes.use_lifetime`); uses through `same_memory` results count, and a
    use inside a loop nested in `op`'s block lasts until that loop ends (the loop comes back
    to it)."""
    start = order.position[op]
    end = start + 1
    pending, seen = [buffer], set()
    while pending:
        value = pending.pop()
        for user in users(value):
            if user in seen:
                continue
            seen.add(user)
            top = ancestor_in_block(user, op.block)
            if top is not None:
                end = max(end, order.end_of(top))
            pending.extend(same_memory(user, value))
    return start, end


def _workgroup_attributions(facts: FunctionFacts, path: str) -> list[Allocation]:
    """`gpu.func` workgroup(...) and private(...) buffers: declared as entry block arguments."""
    func = facts.func
    if func.name != "gpu.func":
        return []
    n_inputs = len(ir.FunctionType(ir.TypeAttr(func.attributes["function_type"]).value).inputs)
    n_workgroup = (ir.IntegerAttr(func.attributes["workgroup_attributions"]).value
                   if "workgroup_attributions" in func.attributes else 0)
    args = list(func.regions[0].blocks[0].arguments)[n_inputs:]
    records = []
    for index, arg in enumerate(args):
        shape = shape_of(arg.type)
        elem_type = ir.ShapedType(arg.type).element_type
        elem_bytes = element_bytes(elem_type)
        static = [d for d in shape if d is not None]
        size = reason = None
        if elem_bytes is None:
            reason = f"element type {elem_type} has no known size"
        elif len(static) < len(shape):
            reason = "attribution has a dynamic shape"
        else:
            size = elem_bytes * math.prod(static)
        kind = "workgroup" if index < n_workgroup else "private"
        records.append(Allocation(
            op_name=f"gpu.func {kind}", function=facts.name, location=source_loc(func, path),
            element_type=str(elem_type), shape=shape, element_bytes=elem_bytes or 0,
            exact_bytes=size, bound_bytes=size, unbounded_reason=reason,
            memory_space=memory_space_name(arg.type) or kind, loop_depth=0,
            lifetime=(0, len(facts.order.position)), dim_bounds=shape, op=func,
        ))
    return records
