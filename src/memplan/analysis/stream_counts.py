"""IREE's own figures, counted in its `stream` dialect (`iree-compile --compile-to=stream`).

Transients are `stream.resource.alloca` / `stream.async.alloca` of `transient`
lifetime; copies are `stream.cmd.copy`, `stream.async.copy`, `stream.async.update`,
`stream.async.slice`; strided copies IREE turns into dispatches (`..._slow_memcpy`) are
sized by what the dispatch stores (its `dispatch.tensor.store` sizes, evaluated from the
dispatch's operands). A function that only calls others (the `main` wrapper IREE adds
around `main$async`) is charged what its callees do, so the figures follow the code.
Sizes are evaluated at `at` (`index_eval.py`); None where a size cannot be.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from iree.compiler import ir

from ..ir import ops
from ..ir.types import DYNAMIC, shaped_element_bytes
from ..ir.walk import functions, is_device_code, symbol_name, walk
from .index_eval import eval_index


@dataclass
class StreamCounts:
    """What IREE's stream dialect does for one function (None: size not evaluable)."""

    function: str
    transient_bytes: int | None = 0
    copied_bytes: int | None = 0
    constant_copied_bytes: int | None = 0  # copies whose source is a constant resource
    memcpy_dispatches: int = 0  # copies IREE does in a dispatch (`*_slow_memcpy`)
    memcpy_bytes: int | None = 0  # what those dispatches store (part of copied_bytes)



# Copy-like ops: the copied length is the last operand; the source is this operand.
_COPIES = {"stream.cmd.copy": 0, "stream.async.copy": 4, "stream.async.update": 4,
           "stream.async.slice": 0}

def stream_counts(stream_module: ir.Module, at: Mapping[str, int] | None = None
                  ) -> list[StreamCounts]:
    """Per function of IREE's stream output, transient and copied bytes at `at`; a function
    is charged what the functions it calls do as well."""
    entries = _dispatch_entries(stream_module)
    own: dict[str, StreamCounts] = {}
    calls: dict[str, list[str]] = {}
    for fn in functions(stream_module):
        if is_device_code(fn):
            continue  # dispatches: their copies are counted where the host launches them
        name = symbol_name(fn)
        counts = own[name] = StreamCounts(name)
        calls[name] = []
        for op in walk(fn):
            if op.name in ops.CALL_OPS:
                calls[name].append(ir.FlatSymbolRefAttr(op.attributes["callee"]).value)
            _count(op, counts, at or {}, entries)
    return [_with_callees(name, own, calls, set()) for name in own]


def _with_callees(name: str, own: dict[str, StreamCounts], calls: dict[str, list[str]],
                  active: set[str]) -> StreamCounts:
    total = StreamCounts(name)
    if name in active:  # recursion: each function counted once per call chain
        return total
    active = active | {name}
    parts = [own[name]] + [_with_callees(c, own, calls, active) for c in calls[name] if c in own]
    for part in parts:
        total.transient_bytes = _plus(total.transient_bytes, part.transient_bytes)
        total.copied_bytes = _plus(total.copied_bytes, part.copied_bytes)
        total.constant_copied_bytes = _plus(total.constant_copied_bytes,
                                            part.constant_copied_bytes)
        total.memcpy_dispatches += part.memcpy_dispatches
        total.memcpy_bytes = _plus(total.memcpy_bytes, part.memcpy_bytes)
    return total


def _dispatch_entries(module: ir.Module) -> dict[str, ir.Operation]:
    """`exe::entry` -> the entry's function inside the `stream.executable`."""
    found: dict[str, ir.Operation] = {}
    for op in module.body.operations:
        if op.operation.name != "stream.executable":
            continue
        exe = symbol_name(op)
        for inner in walk(op):
            if inner.name == "func.func":
                found[f"{exe}::{symbol_name(inner)}"] = inner
    return found


def _memcpy_bytes(dispatch: ir.Operation, at: Mapping[str, int],
                  entries: Mapping[str, ir.Operation]) -> int | None:
    """Bytes a `*_slow_memcpy` dispatch stores: its stores' sizes, with the dispatch's
    uniform operands (evaluated at `at` in the caller) bound to the entry's arguments."""
    entry_text = str(dispatch.attributes["entry_points"]).strip("[]")
    refs = [part.strip().lstrip("@") for part in entry_text.split("::@")]
    fn = entries.get("::".join(refs))
    if fn is None:
        return None
    segments = list(ir.DenseI32ArrayAttr(dispatch.attributes["operandSegmentSizes"]))
    start = segments[0]
    uniforms = list(dispatch.operands)[start:start + segments[1]]
    args = list(fn.regions[0].blocks[0].arguments)
    bindings = sum(1 for a in args if "stream.binding" in str(a.type))
    inner_at: dict[str, int] = {}
    for i, value in enumerate(uniforms):
        evaluated = eval_index(value, at)
        if evaluated is not None:
            inner_at[f"arg{bindings + i}"] = evaluated
    total: int | None = 0
    for op in walk(fn):
        if op.name.endswith("dispatch.tensor.store"):
            total = _plus(total, _stored_bytes(op, inner_at))
    return total


def _stored_bytes(store: ir.Operation, at: Mapping[str, int]) -> int | None:
    static = list(ir.DenseI64ArrayAttr(store.attributes["static_sizes"]))
    segments = list(ir.DenseI32ArrayAttr(store.attributes["operandSegmentSizes"]))
    # value, target, target dims, offsets, sizes, strides
    first_size = sum(segments[:4])
    dynamic = iter(list(store.operands)[first_size:first_size + segments[4]])
    count = 1
    for size in static:
        if size == DYNAMIC:
            size = eval_index(next(dynamic), at)
            if size is None:
                return None
        count *= size
    element = shaped_element_bytes(store.operands[0].type)
    return None if element is None else count * element


def _count(op: ir.Operation, counts: StreamCounts, at: Mapping[str, int],
           entries: Mapping[str, ir.Operation]) -> None:
    if op.name == "stream.cmd.dispatch" and "memcpy" in str(op.attributes["entry_points"]):
        counts.memcpy_dispatches += 1
        size = _memcpy_bytes(op, at, entries)
        counts.memcpy_bytes = _plus(counts.memcpy_bytes, size)
        counts.copied_bytes = _plus(counts.copied_bytes, size)
    elif op.name in ops.STREAM_ALLOCATION_OPS and "<transient>" in str(op.results[0].type):
        size = eval_index(_index_operands(op)[-1], at)
        counts.transient_bytes = _plus(counts.transient_bytes, size)
    elif op.name in _COPIES:
        size = eval_index(op.operands[len(op.operands) - 1], at)
        counts.copied_bytes = _plus(counts.copied_bytes, size)
        if "<constant>" in str(op.operands[_COPIES[op.name]].type):
            counts.constant_copied_bytes = _plus(counts.constant_copied_bytes, size)


def _index_operands(op: ir.Operation) -> list[ir.Value]:
    return [v for v in op.operands if isinstance(v.type, ir.IndexType)]


def _plus(total: int | None, size: int | None) -> int | None:
    return None if total is None or size is None else total + size
