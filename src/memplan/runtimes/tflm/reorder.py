"""Operator order for a .tflite: the operator list of the main subgraph permuted so that
fewer bytes are live at once (`plan/order.py`), every dependency kept.

TFLM runs a subgraph's operators in the order of its list and derives every lifetime from
that order (`model.py`), so a new order is a new list and nothing else: the tensors,
buffers and operators themselves are the file's. Refused: a model with several subgraphs
(control flow: a called subgraph's scopes sit inside its caller's, which this search does
not model), and one of more than `order.MAX_STEPS` operators.
"""

from __future__ import annotations

from ...plan.order import MAX_STEPS, Graph, Step, order_peak, search_order
from . import model as tfl


def graph_of(model: tfl.TfliteModel) -> Graph:
    """The main subgraph as the order search sees it: planned tensors by key, each
    operator's scratch (rounded as TFLM rounds it)."""
    planned = {t.key: t.size for t in model.planned()}
    index = {k: i for i, k in enumerate(planned)}
    scratch: dict[int, int] = {}
    for op, nbytes in model.scratch:
        scratch[op.index] = scratch.get(op.index, 0) + -(-nbytes // tfl.ALIGNMENT) * tfl.ALIGNMENT
    steps = tuple(Step(tuple(index[k] for k in op.inputs if k in index),
                       tuple(index[k] for k in op.outputs if k in index),
                       scratch.get(op.index, 0)) for op in model.ops)
    return Graph(steps, tuple(planned.values()),
                 frozenset(index[k] for k in model.outputs if k in index))


def better_order(model: tfl.TfliteModel) -> tuple[tuple[int, ...], int, int] | str:
    """(order, peak before, peak after) when an order lowers the bytes live at once; else
    why not."""
    if model.subgraphs > 1:
        return f"{model.subgraphs} subgraphs (control flow): not reordered"
    if len(model.ops) > MAX_STEPS:
        return f"{len(model.ops):,} operators: the order search takes at most {MAX_STEPS:,}"
    graph = graph_of(model)
    before = order_peak(graph, range(len(graph.steps)))
    order, after = search_order(graph)
    if after >= before:
        return f"no order of the {len(graph.steps)} operators has fewer bytes live " \
               f"than the given one ({before:,} B)"
    return order, before, after


def with_order(data: bytes, order: tuple[int, ...], path: str) -> bytes:
    """The model with the main subgraph's operators in `order` (positions in its list)."""
    model = tfl._unpack(data, path)
    ops = model.subgraphs[0].operators or []
    if sorted(order) != list(range(len(ops))):
        raise ValueError("not a permutation of the operators")
    model.subgraphs[0].operators = [ops[i] for i in order]
    model.buffers = [tfl._AlignedBuffer.of(b) for b in model.buffers or []]
    return tfl._pack(model, len(data))
