"""Tensors released in parts under ExecuTorch: a planned tensor read through slices (the
input image of a stage run patch by patch, `patches.py`) has bytes nobody reads again
long before its last slice; `buffers.parts_from_reads` turns the byte ranges each node
reads into the parts the driver plans (`BufferRequest.parts`).

A `slice_copy` of a contiguous tensor along dimension d reads, for each index of the
dimensions before d, one run of bytes; along the height of an NCHW image that is one row
band per channel (a slice along the width reads a run of every row: as many parts as
rows, beyond `MAX_PARTS`). Any other reader reads every byte. A tensor with a view
(another spec inside its storage) is left whole: the view's readers are not traced.
"""

from __future__ import annotations

import math
from typing import Any

from ...buffers import Part, parts_from_reads

# Beyond this many parts a tensor is planned whole: each part is one more rectangle for
# the packer (a slice along W of every row would make thousands).
MAX_PARTS = 64

_SLICE = "slice_copy.Tensor_out"


def released_parts(graph_module: Any, specs: list[Any], alignment: int
                   ) -> dict[int, tuple[Part, ...]]:
    """The parts of each spec (by id) among `specs` that some node slices."""
    from executorch.exir.memory_planning import get_node_tensor_specs

    wanted = {id(s): s for s in specs}
    reads: dict[int, list[tuple[int, int, int]]] = {}
    sliced: set[int] = set()
    viewed: set[int] = set()
    for index, node in enumerate(graph_module.graph.nodes):
        for spec in get_node_tensor_specs(node):
            base = getattr(spec, "storage_base", None)
            if base is not None:
                viewed.add(id(base))
        if node.op not in ("call_function", "output"):
            continue
        own = {id(s) for s in get_node_tensor_specs(node)} if node.op == "call_function" \
            else set()
        for arg in node.all_input_nodes:
            for spec in get_node_tensor_specs(arg):
                if spec is None or id(spec) not in wanted or id(spec) in own:
                    continue
                size = spec.allocated_memory
                run = _slice_run(node, arg, spec) if _name(node) == _SLICE else None
                if run is None:
                    reads.setdefault(id(spec), []).append((index, 0, size))
                else:
                    sliced.add(id(spec))
                    reads.setdefault(id(spec), []).extend((index, lo, hi) for lo, hi in run)
    found = {}
    for key in sliced - viewed:
        spec = wanted[key]
        parts = parts_from_reads(spec.allocated_memory, spec.lifetime[0], reads[key],
                                 alignment)
        if 1 < len(parts) <= MAX_PARTS and max(p.end for p in parts) == spec.lifetime[1] + 1:
            found[key] = parts
    return found


def _slice_run(node: Any, arg: Any, spec: Any) -> list[tuple[int, int]] | None:
    """The byte runs a slice reads of its input, or None when it is not one this reads."""
    args = list(node.args) + [None] * 5
    if node.args[0] is not arg or tuple(spec.dim_order) != tuple(range(len(spec.shape))):
        return None
    shape = [int(d) for d in spec.shape]
    dim, start, end, step = args[1], args[2], args[3], args[4]
    if not shape or not all(isinstance(v, int) for v in (dim, start, end)) or \
            step not in (None, 1):
        return None
    dim %= len(shape)
    start, end = max(0, min(start, shape[dim])), max(0, min(end, shape[dim]))
    itemsize = spec.dtype.itemsize
    inner = math.prod(shape[dim + 1:]) * itemsize
    block = shape[dim] * inner
    if end <= start:
        return []
    return [(o * block + start * inner, o * block + end * inner)
            for o in range(math.prod(shape[:dim]))]


def _name(node: Any) -> str:
    return getattr(node.target, "__name__", None) or str(node.target)
