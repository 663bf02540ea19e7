"""In-place operators under ExecuTorch: an operator's output placed over an input that
dies at that operator, found in the graph ExecuTorch plans (out variants, after its
`ToOutVarPass`) and handed to the driver as `BufferRequest.shares_with`, as TFLM's
(`runtimes/tflm/inplace.py`).

The kernels `executorch.runtime` registers (the wheel's `libexecutorch_kernels_optimized`:
the optimized kernels where they exist, the portable ones otherwise) compute the kinds in
`KINDS` element by element, reading element i of each input before writing element i of
the output, when input and output have the same shape, dtype and dim order:
`apply_unary_map_fn` (portable relu, hardtanh), `apply_unitensor_elementwise_fn`
(portable sigmoid, clamp with scalar bounds), the `DEFINE_UNARY_UFUNC` loop (portable
tanh), the optimized gelu's loop (`Vec::loadu(in + i)` stored at `out + i`, then the
scalar tail), `at::vec::map2` on the `kTreatAs1d` path of the optimized add, sub and mul (the
path taken when neither input is broadcast), and the portable
`_native_batch_norm_legit_no_training`, whose loop writes `out[(i*C + c)*inner + j]`
from the input at the same index. A vector load of elements i..i+k before their store
is still safe: the output starts at the input's first byte, never elsewhere in it.
Each kind was accepted only after a test lowered a program with it placed in place and
ran it under `executorch.runtime` with the same output bytes as ExecuTorch's own plan
(tests/test_executorch_inplace.py); a kind no test runs in place is not in `KINDS`.

Refused: a broadcast or a dtype change (an input's shape or dtype differs from the
output's), an input read again later (its lifetime goes past the operator, views
included: ExecuTorch extends a base's lifetime over its views'), a constant, a tensor
inside another's storage, a tensor the operator reads twice or through a view, one
pinned to another arena. A graph input is not taken either: no test has shown what the
runtime does with an input's bytes overwritten during `execute`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# ExecuTorch's out-variant kernel -> the argument positions whose bytes the output may take.
KINDS: dict[str, tuple[int, ...]] = {
    "relu.out": (0,),
    "hardtanh.out": (0,),
    "clamp.out": (0,),
    "sigmoid.out": (0,),
    "tanh.out": (0,),
    "gelu.out": (0,),
    "add.out": (0, 1),
    "sub.out": (0, 1),
    "mul.out": (0, 1),
    "_native_batch_norm_legit_no_training.out": (0,),
}


@dataclass(frozen=True)
class InPlace:
    """One operator whose output takes an input's bytes."""

    kernel: str  # as in KINDS
    node: str  # the operator's node in the lowered graph
    source: str  # the node whose output it writes over
    output: Any  # TensorSpec
    input: Any  # TensorSpec
    bytes: int


def find(graph_module: Any, planned: set[int]) -> list[InPlace]:
    """Every operator of the graph whose output may be written over a dying input.

    `planned`: ids of the specs planned in this call (roots: no `storage_base`)."""
    from executorch.exir.memory_planning import get_node_tensor_specs

    found: list[InPlace] = []
    given: set[int] = set()  # inputs whose bytes an output took (a chain may go on)
    for index, node in enumerate(graph_module.graph.nodes):
        kernel = _kernel(node)
        if node.op != "call_function" or kernel not in KINDS:
            continue
        specs = get_node_tensor_specs(node)
        out = specs[0] if specs else None
        if out is None or id(out) not in planned:
            continue
        readers = [a for a in node.all_input_nodes if a.op != "get_attr"]
        for slot in KINDS[kernel]:
            arg = node.args[slot] if slot < len(node.args) else None
            if not hasattr(arg, "op") or arg.op == "placeholder":
                continue
            got = get_node_tensor_specs(arg)
            if len(got) != 1 or got[0] is None:
                continue
            spec = got[0]
            if (id(spec) not in planned or id(spec) in given or spec.const
                    or spec.lifetime[1] != index or spec.mem_id != out.mem_id
                    or tuple(spec.shape) != tuple(out.shape) or spec.dtype != out.dtype
                    or tuple(spec.dim_order) != tuple(out.dim_order)
                    or spec.allocated_memory != out.allocated_memory):
                continue
            if any(_reads(a, spec) for a in readers if a is not arg) or \
                    sum(a is arg for a in node.args) != 1:
                continue
            if any(tuple(getattr(s, "shape", ())) != tuple(out.shape)
                   for a in node.args[:max(KINDS[kernel]) + 1] if hasattr(a, "op")
                   for s in get_node_tensor_specs(a) if s is not None):
                continue  # the other operand broadcast: the kernel indexes it apart
            given.add(id(spec))
            found.append(InPlace(kernel, node.name, arg.name, out, spec,
                                 spec.allocated_memory))
            break
    return found


def _kernel(node: Any) -> str:
    target = node.target
    return getattr(target, "__name__", None) or str(target)


def _reads(node: Any, spec: Any) -> bool:
    """Whether a node's value is `spec` or lives inside its storage (a view of it)."""
    from executorch.exir.memory_planning import get_node_tensor_specs

    for s in get_node_tensor_specs(node):
        while s is not None:
            if s is spec:
                return True
            s = getattr(s, "storage_base", None)
    return False
