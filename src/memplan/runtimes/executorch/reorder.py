"""Operator order for a .pt2: the exported graph's call nodes permuted so that fewer bytes
are live at once (`plan/order.py`), every dependency kept, and the graph exported again.

ExecuTorch runs the nodes in the graph's order and derives every lifetime from it, so a
new order is a new node list. Refused: a graph with an operator that writes over an
argument (its readers' order matters beyond the data dependencies the search sees), and
one of more than `order.MAX_STEPS` nodes.
"""

from __future__ import annotations

from typing import Any

from ...plan.order import MAX_STEPS, Graph, Step, order_peak, search_order
from .patches import _bytes_of, _Program, export_graph, start_graph


def graph_of(p: _Program) -> tuple[Graph, list[Any]]:
    """The call nodes as the order search sees them, and the nodes by step."""
    buffer: dict[Any, int] = {}
    sizes = []
    for n in p.nodes:
        if (n.op == "placeholder" and not p.constant(n)) or n.op == "call_function":
            buffer[n] = len(sizes)
            sizes.append(_bytes_of(n))
    steps = tuple(Step(tuple(buffer[a] for a in n.all_input_nodes if a in buffer),
                       (buffer[n],)) for n in p.calls)
    outputs = frozenset(buffer[a] for n in p.nodes if n.op == "output"
                        for a in n.all_input_nodes if a in buffer)
    return Graph(steps, tuple(sizes), outputs), list(p.calls)


def better_order(exported: Any) -> tuple[Any, int, int, int] | str:
    """(program reordered, bytes live at once before, after, nodes moved) when an order
    lowers the bytes live at once; else why not."""
    p = _Program(exported)
    mutating = [n.name for n in p.calls if getattr(n.target, "_schema", None) is not None
                and n.target._schema.is_mutable]
    if mutating:
        return f"{len(mutating)} node(s) write over an argument ({mutating[0]}, ...): " \
               "not reordered"
    if len(p.calls) > MAX_STEPS:
        return f"{len(p.calls):,} nodes: the order search takes at most {MAX_STEPS:,}"
    graph, calls = graph_of(p)
    before = order_peak(graph, range(len(graph.steps)))
    order, after = search_order(graph)
    if after >= before:
        return f"no order of the {len(calls)} nodes has fewer bytes live than the given " \
               f"one ({before:,} B)"
    new, env = start_graph(p)
    for i in order:
        env[calls[i]] = new.node_copy(calls[i], lambda a: env[a])
    moved = sum(1 for i, j in enumerate(order) if i != j)
    return export_graph(p, new, env), before, after, moved
