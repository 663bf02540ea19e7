"""What a `stream`-level program allocates and copies, op by op.

IREE's stream dialect (`iree-compile --compile-to=stream`, or the inputs of its
stream passes) says in the IR what the runtime will do: every
`stream.async.alloca` / `stream.resource.alloca` is a resource the scheduler
must find memory for, and every `stream.async.clone/copy/update/slice` or
`stream.cmd.copy` moves bytes. This lists them with their sizes and, for
allocations, their lifetimes, so a stream file can be read without compiling.

- Sizes are the op's own size operands, evaluated at `at` (an index global or
  a function argument `argN` bound to a value); a size that stays symbolic is
  reported as None with the SSA value that carries it.
- An allocation's lifetime is half-open positions in the function's op order,
  from the allocation to the last use of the resource or of a result tied to
  it (`stream.async.update/copy/fill` write their target in place, a dispatch
  its `tied_operands`, `stream.timepoint.await` passes its resources on); a
  use inside a nested region lasts until that region's op ends;
  `stream.resource.dealloca` is the last use of a transient.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from iree.compiler import ir

from ..ir import MlirChunk, SourceLoc, source_loc
from ..ir.ops import STREAM_ALLOCATION_OPS, STREAM_COPY_OPS
from ..ir.source import source_argument_names
from ..ir.walk import (
    OpOrder,
    block_argument_owner,
    functions,
    symbol_name,
    walk,
)
from .census import buffer_lifetime
from .index_eval import eval_index

# Ops whose result is their target operand, written in place: (target operand index).
_IN_PLACE_TARGET = {"stream.async.update": 0, "stream.async.copy": 0, "stream.async.fill": 0}
# Where the bytes come from: `stream.async.update/copy` list their target first.
_SOURCE_OPERAND = {"stream.async.update": 4, "stream.async.copy": 4}


class StreamLifetime(enum.Enum):
    """The lifetime a resource type declares (`!stream.resource<transient>`)."""

    TRANSIENT = "transient"
    EXTERNAL = "external"
    CONSTANT = "constant"
    VARIABLE = "variable"
    STAGING = "staging"
    UNRESOLVED = "*"  # before IREE's refine-usage pass assigns one


@dataclass(frozen=True)
class StreamAllocation:
    function: str
    op: str
    location: SourceLoc | None
    lifetime_kind: StreamLifetime
    bytes: int | None  # None: the size is symbolic (see `size_value`)
    size_value: str  # the SSA value giving the size, as printed
    live: tuple[int, int]  # half-open positions in the function's op order


@dataclass(frozen=True)
class StreamCopy:
    function: str
    op: str
    location: SourceLoc | None
    bytes: int | None
    size_value: str
    from_constant: bool  # the source is a `!stream.resource<constant>`


@dataclass(frozen=True)
class StreamFunction:
    function: str
    chunk: int
    allocations: tuple[StreamAllocation, ...]
    copies: tuple[StreamCopy, ...]

    @property
    def transient_bytes(self) -> int | None:
        sizes = [a.bytes for a in self.allocations if a.lifetime_kind is StreamLifetime.TRANSIENT]
        return None if None in sizes else sum(sizes)  # type: ignore[arg-type]

    @property
    def copied_bytes(self) -> int | None:
        sizes = [c.bytes for c in self.copies]
        return None if None in sizes else sum(sizes)  # type: ignore[arg-type]


def is_stream_level(chunk: MlirChunk) -> bool:
    """Whether the chunk's functions use stream resources (async or cmd level)."""
    return any(op.name.startswith("stream.async.") or op.name.startswith("stream.cmd.")
               or op.name.startswith("stream.resource.")
               for func in functions(chunk.module) for op in walk(func))


def stream_listing(chunk: MlirChunk, at: Mapping[str, int] | None = None
                   ) -> list[StreamFunction]:
    """Every function of the chunk with its stream allocations and copies, in op order."""
    at = at or {}
    listing = []
    for func in functions(chunk.module):
        order = OpOrder.of(func)
        name = symbol_name(func)
        names = _Names(func, chunk.lines)
        allocations, copies = [], []
        for op in walk(func):
            if op.name in STREAM_ALLOCATION_OPS:
                allocations.append(_allocation(op, name, chunk.path, order, at, names))
            elif op.name in STREAM_COPY_OPS:
                copies.append(_copy(op, name, chunk.path, at, names))
        listing.append(StreamFunction(name, chunk.index, tuple(allocations), tuple(copies)))
    return listing


class _Names:
    """How the source spells a value: a function argument by its own name, else as printed."""

    def __init__(self, func: ir.Operation, lines: Sequence[str]):
        self.entry = func.regions[0].blocks[0]
        self.arguments = source_argument_names(func, lines)

    def __call__(self, value: ir.Value) -> str:
        owner = block_argument_owner(value)
        if owner is not None and value.owner == self.entry:
            name = self.arguments[owner[1]]
            if name is not None:
                return f"%{name}"
        return value.get_name()


def _allocation(op: ir.Operation, function: str, path: str, order: OpOrder,
                at: Mapping[str, int], names: _Names) -> StreamAllocation:
    resource = op.results[0]
    size = _index_operands(op)[-1]
    live = buffer_lifetime(resource, op, order, _same_resource_results)
    return StreamAllocation(function, op.name, source_loc(op, path), resource_lifetime(resource),
                            eval_index(size, at), names(size), live)


def _copy(op: ir.Operation, function: str, path: str, at: Mapping[str, int],
          names: _Names) -> StreamCopy:
    length = op.operands[len(op.operands) - 1]
    source = op.operands[_SOURCE_OPERAND.get(op.name, 0)]
    constant = _is_resource(source) and resource_lifetime(source) is StreamLifetime.CONSTANT
    return StreamCopy(function, op.name, source_loc(op, path), eval_index(length, at),
                      names(length), constant)


def resource_lifetime(value: ir.Value) -> StreamLifetime:
    text = str(value.type)
    inner = text[text.find("<") + 1:text.rfind(">")] if "<" in text else "*"
    try:
        return StreamLifetime(inner)
    except ValueError:
        return StreamLifetime.UNRESOLVED


def _is_resource(value: ir.Value) -> bool:
    return str(value.type).startswith("!stream.resource")


def _index_operands(op: ir.Operation) -> list[ir.Value]:
    return [v for v in op.operands if isinstance(v.type, ir.IndexType)]


def _same_resource_results(user: ir.Operation, value: ir.Value) -> list[ir.Value]:
    """Results of `user` that are `value`'s memory written in place."""
    target = _IN_PLACE_TARGET.get(user.name)
    if user.name == "stream.timepoint.await":  # its results are its resources, now ready
        return [r for r, v in zip(user.results, user.operands, strict=False) if v == value]
    if target is not None:
        return [user.results[0]] if user.operands[target] == value else []
    if "tied_operands" not in user.attributes:
        return []
    operand_index = next(i for i, v in enumerate(user.operands) if v == value)
    ties = [ir.IntegerAttr(t).value for t in ir.ArrayAttr(user.attributes["tied_operands"])]
    offset = _tied_offset(user)
    return [user.results[i] for i, tied in enumerate(ties)
            if tied >= 0 and tied + offset == operand_index]


def _tied_offset(op: ir.Operation) -> int:
    """Where the operands the tie indices count start (a dispatch's come after its workload)."""
    if op.name == "stream.async.dispatch" and "operandSegmentSizes" in op.attributes:
        return list(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"]))[0]
    return 0
