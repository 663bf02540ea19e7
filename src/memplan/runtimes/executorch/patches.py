"""Patch-by-patch execution of a torch.export program's high-resolution first stage, for
ExecuTorch (the geometry is `plan/patches.py`, shared with TFLM's rewrite).

The stage is a prefix of the exported graph's operators, of convolutions, pooling and
elementwise operators on [N, C, H, W] tensors, that reads one user input and hands one
tensor (the split tensor) to the rest. Its output is cut into a P x Q grid of patches;
per patch, the rewritten graph holds, with operators the exported graph already speaks:
- `aten.slice.Tensor` of the region each operator reads (on H, then W), the receptive
  field of the patch walked back through the stage;
- `aten.constant_pad_nd` where that region passes the image border, by what the
  operator's own padding added there (zero; -inf before a max pool, which never picks
  it), and the operator itself with padding 0;
- the stage's operators on the patch, with the same weights and arguments;
then `aten.cat` of each row of patches along W and of the rows along H: the split
tensor, which the rest of the graph reads unchanged. The graph is exported again
(`torch.export.export`) and lowered by ExecuTorch as any program is.

Refused in a stage: a transposed convolution, ceil_mode pooling, an average pool that
pads (padding changes its divisor), batch norm in training mode, anything else. Each
output element is computed from the same values in the same order as before; a padded
position adds 0 x weight to the sum, where the unpadded kernel skips it, which changes no
finite float32 sum (a sum that starts at +0 is never -0). The driver keeps the rewrite
only after ExecuTorch runs it with outputs equal byte for byte (`--check-run`).

The search builds each candidate's graph without exporting it and takes its bound from
the bytes each node holds, live from its node to its last reader (`plan/order.py`'s
walk): the schedule ExecuTorch plans, before its own view aliasing, as the driver plans
it: a tensor read only through row slices (the stage input) in bands, each live until
its last slice (`parts.py`), and with `--rewrite inplace` asked, each output of
`inplace.KINDS` over the input that dies there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import torch

from ...plan.order import Graph, Step, order_peak
from ...plan.patches import (
    Grid,
    Kind,
    PatchRewrite,
    StageOp,
    Window,
    border_pads,
    clip,
    grid_shape,
    patched_macs,
    patches,
    regions,
    search_grids,
    whole_macs,
    within_budget,
)
from .inplace import KINDS as IN_PLACE_KINDS
from .parts import MAX_PARTS

MAX_GRID = 8
aten = torch.ops.aten

_CONV = {aten.conv2d.default, aten.convolution.default}
_MAX_POOL = {aten.max_pool2d.default, aten.max_pool2d_with_indices.default}
_AVG_POOL = {aten.avg_pool2d.default}
# Each output element from the element at the same position of each input (constants
# broadcast over H and W, or per channel as batch norm's).
_ELEMENTWISE = {
    aten.relu.default, aten.relu_.default, aten.hardtanh.default, aten.hardtanh_.default,
    aten.sigmoid.default, aten.silu.default, aten.silu_.default, aten.hardswish.default,
    aten.hardswish_.default, aten.tanh.default, aten.clamp.default, aten.add.Tensor,
    aten.sub.Tensor, aten.mul.Tensor, aten.batch_norm.default,
    aten._native_batch_norm_legit_no_training.default, aten.leaky_relu.default,
    aten.gelu.default, aten.relu6.default, aten.hardsigmoid.default,
    aten.hardsigmoid_.default, aten.clamp_.default, aten.elu.default,
}
# In-place forms run on a patch as their functional twins: the patch holds its own copy,
# so writing over it would only alias what the original wrote over (accepted only when
# the operator is the input's one reader, where the two compute the same).
_FUNCTIONAL = {
    aten.relu_.default: aten.relu.default, aten.hardtanh_.default: aten.hardtanh.default,
    aten.silu_.default: aten.silu.default, aten.hardswish_.default: aten.hardswish.default,
    aten.hardsigmoid_.default: aten.hardsigmoid.default, aten.clamp_.default: aten.clamp.default,
}
# The aten operators edge lowering turns into a kernel of `inplace.KINDS` (each kernel's
# argument slots whose bytes the output may take): with `--rewrite inplace` asked, the
# search weighs each candidate with those outputs over their dying inputs, as the driver
# will plan it; without, a stage whose activations would share bytes loses to one
# whose bound counts them apart.
_IN_PLACE = {
    op: IN_PLACE_KINDS[kernel] for op, kernel in (
        (aten.relu.default, "relu.out"), (aten.hardtanh.default, "hardtanh.out"),
        (aten.clamp.default, "clamp.out"), (aten.sigmoid.default, "sigmoid.out"),
        (aten.tanh.default, "tanh.out"), (aten.gelu.default, "gelu.out"),
        (aten.add.Tensor, "add.out"), (aten.sub.Tensor, "sub.out"),
        (aten.mul.Tensor, "mul.out"),
        (aten.batch_norm.default, "_native_batch_norm_legit_no_training.out"),
        (aten._native_batch_norm_legit_no_training.default,
         "_native_batch_norm_legit_no_training.out"))}


class _Program:
    """The exported graph as the stage search reads it: call nodes numbered in order."""

    def __init__(self, exported: Any):
        self.exported = exported
        self.graph = exported.graph
        self.nodes = list(self.graph.nodes)
        self.number = {n: i for i, n in enumerate(self.nodes)}
        self.calls = [n for n in self.nodes if n.op == "call_function"]
        sig = exported.graph_signature
        self.user_inputs = set(sig.user_inputs)
        self.constants: dict[str, torch.Tensor] = {}
        kinds = {s.arg.name: s for s in sig.input_specs if hasattr(s.arg, "name")}
        for n in self.nodes:
            if n.op != "placeholder" or n.name in self.user_inputs:
                continue
            spec = kinds.get(n.name)
            target = getattr(spec, "target", None)
            value = exported.state_dict.get(target) if target in exported.state_dict \
                else exported.constants.get(target)
            if value is None:
                raise ValueError(f"input {n.name} is neither a user input nor a constant")
            self.constants[n.name] = value

    def node(self, index: int) -> Any:
        return self.nodes[index]

    def constant(self, node: Any) -> bool:
        return node.op == "placeholder" and node.name in self.constants

    def shape(self, node: Any) -> tuple[int, ...] | None:
        val = node.meta.get("val")
        return tuple(int(d) for d in val.shape) if isinstance(val, torch.Tensor) else None


def _bytes_of(node: Any) -> int:
    val = node.meta.get("val")
    vals = val if isinstance(val, (tuple, list)) else (val,)
    return sum(v.numel() * v.element_size() for v in vals if isinstance(v, torch.Tensor))


def _pair(value: Any, default: int) -> tuple[int, int]:
    if value is None or value == []:
        return default, default
    if isinstance(value, int):
        return value, value
    values = [int(v) for v in value]
    return (values[0], values[0]) if len(values) == 1 else (values[0], values[1])


def _arg(node: Any, index: int, name: str, default: Any) -> Any:
    if len(node.args) > index:
        return node.args[index]
    return node.kwargs.get(name, default)


@dataclass(frozen=True)
class _Described:
    op: StageOp
    macs_per_position: int  # multiply-accumulates per output position (H x W)


def _describe(p: _Program, node: Any) -> _Described | None:
    """The node as the stage walks it, or None when it cannot run on a patch."""
    out = p.shape(node)
    if out is None or len(out) != 4 or min(out) < 1:
        return None
    index, target = p.number[node], node.target
    x = node.args[0] if node.args else None
    if not isinstance(x, torch.fx.Node) or p.constant(x):
        return None
    shape = p.shape(x)
    if shape is None or len(shape) != 4:
        return None
    if target in _CONV or target in _MAX_POOL or target in _AVG_POOL:
        if target in _CONV:
            weight = node.args[1] if len(node.args) > 1 else None
            bias = _arg(node, 2, "bias", None)
            if not (isinstance(weight, torch.fx.Node) and p.constant(weight)) or \
                    (bias is not None and not (isinstance(bias, torch.fx.Node)
                                               and p.constant(bias))):
                return None
            wshape = p.shape(weight) or tuple(p.constants[weight.name].shape)
            if len(wshape) != 4:
                return None
            kernel = wshape[2:]
            stride = _pair(_arg(node, 3, "stride", 1), 1)
            padding = _arg(node, 4, "padding", 0)
            if isinstance(padding, str):
                return None
            padding = _pair(padding, 0)
            dilation = _pair(_arg(node, 5, "dilation", 1), 1)
            if target is aten.convolution.default:
                if node.args[6] or any(_pair(node.args[7], 0)):
                    return None
            kind = Kind.CONV
            macs = out[0] * out[1] * wshape[1] * wshape[2] * wshape[3]
        else:
            kernel = _pair(node.args[1], 1)
            stride = _pair(_arg(node, 2, "stride", []), 0)
            if stride == (0, 0):
                stride = kernel
            padding = _pair(_arg(node, 3, "padding", 0), 0)
            if target in _MAX_POOL:
                dilation = _pair(_arg(node, 4, "dilation", 1), 1)
                if _arg(node, 5, "ceil_mode", False):
                    return None
                kind = Kind.MAX_POOL
            else:
                dilation = (1, 1)
                if _arg(node, 4, "ceil_mode", False) or any(padding) or \
                        _arg(node, 6, "divisor_override", None) is not None:
                    return None
                kind = Kind.AVERAGE_POOL
            macs = 0
            if target is aten.max_pool2d_with_indices.default:
                return None  # its indices count positions of the whole input
        windows = []
        for axis in (0, 1):
            k, s, d, pad = int(kernel[axis]), int(stride[axis]), int(dilation[axis]), \
                int(padding[axis])
            size = shape[2 + axis]
            if min(k, s, d) < 1 or pad < 0:
                return None
            if out[2 + axis] != (size + 2 * pad - d * (k - 1) - 1) // s + 1:
                return None  # the walk trusts the shapes: they must be torch's
            windows.append(Window(k, s, d, pad, size))
        return _Described(StageOp(index, str(target), kind, (p.number[x],), index, *windows),
                          macs)
    if target in _ELEMENTWISE:
        acts = []
        for a in node.all_input_nodes:
            if p.constant(a):
                c = p.constants[a.name]
                if c.dim() >= 2 and (c.shape[-1] != 1 or c.shape[-2] != 1) and \
                        target not in (aten.batch_norm.default,
                                       aten._native_batch_norm_legit_no_training.default):
                    return None
                if c.dim() > 1 and target in (aten.batch_norm.default,
                                              aten._native_batch_norm_legit_no_training.default):
                    return None
            elif p.shape(a) != out:
                return None
            elif a not in acts:
                acts.append(a)
        if target in _FUNCTIONAL and len(x.users) != 1:
            return None
        if target is aten.batch_norm.default and _arg(node, 5, "training", False):
            return None
        if target is aten._native_batch_norm_legit_no_training.default:
            return None  # a tuple: its getitem users are not walked
        rows, cols = Window(size=out[2]), Window(size=out[3])
        return _Described(StageOp(index, str(target), Kind.ELEMENTWISE,
                                  tuple(p.number[a] for a in acts), index, rows, cols), 0)
    return None


def candidate_stages(p: _Program) -> list[list[_Described]]:
    """Every prefix of the call nodes that can run patch by patch, shortest first."""
    outputs = {a for n in p.nodes if n.op == "output" for a in n.all_input_nodes}
    stages, stage = [], []
    source = None
    produced: set[Any] = set()
    for node in p.calls:
        described = _describe(p, node)
        if described is None:
            break
        outside = [p.node(i) for i in described.op.inputs if p.node(i) not in produced]
        for x in outside:
            if x.op != "placeholder" or x.name not in p.user_inputs:
                return stages
            if source is None:
                source = x
            elif x is not source:
                return stages
        stage.append(described)
        produced.add(node)
        live_out = [n for n in produced
                    if n in outputs or any(u not in produced for u in n.users)]
        if live_out == [node]:
            stages.append(list(stage))
    return stages


def model_macs(p: _Program) -> int:
    """Multiply-accumulates of the graph's convolutions and linear layers."""
    total = 0
    for node in p.calls:
        out = p.shape(node)
        if out is None:
            continue
        if node.target in _CONV:
            w = p.shape(node.args[1])
            if w is not None and len(w) == 4:
                total += math.prod(out) * w[1] * w[2] * w[3]
        elif node.target is aten.linear.default:
            w = p.shape(node.args[1])
            if w is not None:
                total += math.prod(out) * w[-1]
    return total


# --- the rewrite --------------------------------------------------------------------

class _Builder:
    """A new fx graph: the original's nodes, the stage replaced by its patches; and the
    schedule of the nodes it holds, as bytes per node, for the bound."""

    def __init__(self, p: _Program):
        self.p = p
        self.graph = torch.fx.Graph()
        self.env: dict[Any, Any] = {}
        self.sizes: list[int] = []
        self.steps: list[Step] = []
        self.buffer: dict[Any, int] = {}  # new node -> its buffer in the schedule
        self.shapes: dict[Any, tuple[int, ...]] = {}
        self.inputs: set[int] = set()  # buffers of the graph's inputs
        self.dims: list[tuple[int, ...] | None] = []  # per buffer, its tensor's shape
        self.slices: dict[int, tuple[int, int, int]] = {}  # step -> (dim, start, end)
        # Per step, the buffers whose bytes its output may take (`inplace.KINDS`).
        self.takes: list[tuple[int, ...]] = []

    def _track(self, node: Any, shape: tuple[int, ...] | None, nbytes: int,
               reads: list[Any], call: bool = True, target: Any = None,
               args: tuple = ()) -> None:
        self.buffer[node] = len(self.sizes)
        self.sizes.append(nbytes)
        self.dims.append(shape)
        if shape is not None:
            self.shapes[node] = shape
        if not call:
            self.inputs.add(self.buffer[node])
            return
        self.steps.append(Step(tuple(self.buffer[r] for r in reads if r in self.buffer),
                               (self.buffer[node],)))
        self.takes.append(self._takes(target, args, shape, nbytes))

    def _takes(self, target: Any, args: tuple, shape: tuple[int, ...] | None,
               nbytes: int) -> tuple[int, ...]:
        """The buffers of `args` an ExecuTorch kernel may write its output over, as
        `inplace.find` decides on the lowered graph: an operand of the output's shape
        and bytes, every operand up to the last such slot of the output's shape (a
        broadcast is indexed apart), read once, not a graph input."""
        slots = _IN_PLACE.get(_FUNCTIONAL.get(target, target), ())
        if not slots or shape is None:
            return ()
        operands = [a for a in args[:max(slots) + 1] if isinstance(a, torch.fx.Node)]
        if any(self.shapes.get(a) != shape for a in operands):
            return ()
        return tuple(self.buffer[a] for s in slots if s < len(args)
                     for a in (args[s],) if isinstance(a, torch.fx.Node)
                     and a in self.buffer and self.buffer[a] not in self.inputs
                     and self.sizes[self.buffer[a]] == nbytes
                     and sum(x is a for x in args) == 1)

    def call(self, target: Any, args: tuple, shape: tuple[int, ...], itemsize: int,
             reads: list[Any]) -> Any:
        node = self.graph.call_function(target, args)
        self._track(node, shape, math.prod(shape) * itemsize, reads, target=target,
                    args=args)
        if target is aten.slice.Tensor:
            self.slices[len(self.steps) - 1] = args[1:4]
        return node


def _patched(p: _Program, stage: list[_Described], grid: Grid) -> _Builder:
    b = _Builder(p)
    b.graph, b.env = start_graph(p)
    b.shapes.update({b.env[n]: tuple(p.constants[n.name].shape) for n in p.nodes
                     if p.constant(n)})
    ops = [d.op for d in stage]
    split = p.node(ops[-1].output)
    in_stage = {p.node(o.output) for o in ops}
    for node in p.nodes:
        if node.op == "placeholder" and not p.constant(node):
            b._track(b.env[node], p.shape(node), _bytes_of(node), [], call=False)
        if node.op != "call_function":
            continue  # the output is added when exported, once every node is built
        if node in in_stage:
            if node is split:
                b.env[node] = _emit_stage(b, ops, grid)
            continue
        new = b.graph.node_copy(node, lambda a: b.env[a])
        b.env[node] = new
        b._track(new, p.shape(node), _bytes_of(node), [b.env[a] for a in node.all_input_nodes],
                 target=node.target, args=new.args)
    return b


def _attr(name: str) -> str:
    return f"_c_{name}"


def _emit_stage(b: _Builder, stage: list[StageOp], grid: Grid) -> Any:
    p = b.p
    shapes = {i: p.shape(p.node(i))[2:] for op in stage for i in (*op.inputs, op.output)}
    split = stage[-1].output
    n, channels, height, width = p.shape(p.node(split))
    itemsize = p.node(split).meta["val"].element_size()
    strips = []
    for row in patches(height, width, grid):
        pieces = []
        for target in row:
            computed, reads = regions(stage, target, shapes)
            made: dict[int, Any] = {}  # original node number -> its patch node
            for op in stage:
                if op.output not in computed:
                    continue
                node = p.node(op.output)
                replaced: dict[Any, Any] = {}
                for i in op.inputs:
                    need = reads[op.index, i]
                    clipped = clip(need, shapes[i])
                    have = computed[i] if i in made else (0, *shapes[i][:1], 0, shapes[i][1])
                    x = made[i] if i in made else b.env[p.node(i)]
                    xs = b.shapes[x]
                    if clipped[0] != have[0] or clipped[1] != have[1]:
                        xs = (*xs[:2], clipped[1] - clipped[0], xs[3])
                        x = b.call(aten.slice.Tensor, (x, 2, clipped[0] - have[0],
                                                       clipped[1] - have[0]), xs, itemsize, [x])
                    if clipped[2] != have[2] or clipped[3] != have[3]:
                        xs = (*xs[:3], clipped[3] - clipped[2])
                        x = b.call(aten.slice.Tensor, (x, 3, clipped[2] - have[2],
                                                       clipped[3] - have[2]), xs, itemsize, [x])
                    top, bottom, left, right = border_pads(need, clipped)
                    if top or bottom or left or right:
                        value = -math.inf if op.kind is Kind.MAX_POOL else 0.0
                        xs = (xs[0], xs[1], xs[2] + top + bottom, xs[3] + left + right)
                        x = b.call(aten.constant_pad_nd.default,
                                   (x, [left, right, top, bottom], value), xs, itemsize, [x])
                    replaced[p.node(i)] = x
                o0, o1, q0, q1 = computed[op.output]
                out_shape = (n, p.shape(node)[1], o1 - o0, q1 - q0)
                args = _patch_args(b, node, op, replaced)
                made[op.output] = b.call(_FUNCTIONAL.get(node.target, node.target), args,
                                         out_shape,
                                         node.meta["val"].element_size(),
                                         list(replaced.values()))
            pieces.append(made[split])
        h = target[1] - target[0]
        strips.append(b.call(aten.cat.default, (pieces, 3), (n, channels, h, width), itemsize,
                             pieces) if len(pieces) > 1 else pieces[0])
    if len(strips) == 1:  # one row of patches: its cat along W is the split tensor
        return strips[0]
    return b.call(aten.cat.default, (strips, 2), (n, channels, height, width), itemsize, strips)


def _patch_args(b: _Builder, node: Any, op: StageOp, replaced: dict[Any, Any]) -> tuple:
    """The node's arguments on the patch: its activations replaced, its padding 0."""

    def swap(a: Any) -> Any:
        if isinstance(a, torch.fx.Node):
            return replaced[a] if a in replaced else b.env[a]
        if isinstance(a, (list, tuple)):
            return type(a)(swap(v) for v in a)
        return a

    args = [swap(a) for a in node.args]
    kwargs = {k: swap(v) for k, v in node.kwargs.items()}
    if op.kind is Kind.CONV:
        names = ("input", "weight", "bias", "stride", "padding", "dilation")
        defaults = (None, None, None, [1, 1], [0, 0], [1, 1])
        full = [args[i] if i < len(args) else kwargs.pop(names[i], defaults[i])
                for i in range(6)]
        full[4] = [0, 0]
        if node.target is aten.convolution.default:
            return (*full, *args[6:])
        return (*full, args[6] if len(args) > 6 else kwargs.pop("groups", 1))
    if op.kind is Kind.MAX_POOL:
        names = ("input", "kernel_size", "stride", "padding", "dilation", "ceil_mode")
        defaults = (None, None, [], [0, 0], [1, 1], False)
        full = [args[i] if i < len(args) else kwargs.pop(names[i], defaults[i])
                for i in range(6)]
        full[3] = [0, 0]
        return tuple(full)
    if kwargs:  # keyword arguments kept in place (positional ones cover every kernel here)
        raise ValueError(f"{node.name}: keyword arguments")
    return tuple(args)


def _bound(b: _Builder, p: _Program, in_place: bool = False) -> int:
    outputs = frozenset(b.buffer[b.env[a]] for n in p.nodes if n.op == "output"
                        for a in n.all_input_nodes if b.env.get(a) in b.buffer)
    steps = tuple(b.steps)
    if in_place:
        steps, outputs = _shared(b, outputs)
    steps, sizes = _banded(b, steps, outputs)
    graph = Graph(steps, sizes, outputs)
    return order_peak(graph, range(len(graph.steps)))


def _banded(b: _Builder, steps: tuple[Step, ...], outputs: frozenset[int]
            ) -> tuple[tuple[Step, ...], tuple[int, ...]]:
    """The schedule with each tensor read only through slices along its height split
    into row bands, each live until the last slice reading it, as the lowering plans it
    (`parts.py`: one part per channel and band; more than `MAX_PARTS`, whole): the stage
    input's bands done are free for the patches after."""
    readers: dict[int, list[int]] = {}
    for i, step in enumerate(steps):
        for r in step.reads:
            readers.setdefault(r, []).append(i)
    steps_out, sizes = list(steps), list(b.sizes)
    for buf, reading in readers.items():
        shape = b.dims[buf]
        cuts = [b.slices.get(i) for i in reading]
        if buf in outputs or shape is None or len(shape) != 4 or any(
                c is None or c[0] != 2 or steps[i].reads != (buf,)
                for i, c in zip(reading, cuts, strict=True)):
            continue
        height = shape[2]
        death = [-1] * height
        for i, (_, lo, hi) in zip(reading, cuts, strict=True):
            for row in range(max(0, lo), min(hi, height)):
                death[row] = max(death[row], i)
        bands: list[list[int]] = []  # [first row, rows, last reader]
        for row, last in enumerate(death):
            if bands and bands[-1][2] == last:
                bands[-1][1] += 1
            else:
                bands.append([row, 1, last])
        if len(bands) < 2 or len(bands) * shape[0] * shape[1] > MAX_PARTS:
            continue
        made = []
        for _, rows, _ in bands:
            made.append(len(sizes))
            sizes.append(sizes[buf] // height * rows)
        for i, (_, lo, hi) in zip(reading, cuts, strict=True):
            steps_out[i] = Step(tuple(m for m, (first, rows, _) in zip(made, bands,
                                                                       strict=True)
                                      if first < hi and first + rows > lo),
                                steps_out[i].writes, steps_out[i].scratch)
        for i, step in enumerate(steps_out):
            if buf in step.writes:
                steps_out[i] = Step(step.reads, tuple(w for w in step.writes if w != buf)
                                    + tuple(made), step.scratch)
    return tuple(steps_out), tuple(sizes)


def _shared(b: _Builder, outputs: frozenset[int]) -> tuple[tuple[Step, ...], frozenset[int]]:
    """The schedule with each output that may take a dying input's bytes (`_Builder.takes`)
    merged into that input: its step writes nothing, its readers read the input, which
    lives on to the last of them (a chain ends in its first tensor)."""
    last: dict[int, int] = {}
    for i, step in enumerate(b.steps):
        for r in step.reads:
            last[r] = i
    root: dict[int, int] = {}
    for i, (step, takes) in enumerate(zip(b.steps, b.takes, strict=True)):
        out = step.writes[0]
        # Merged earlier members of the input's chain all died before this step.
        taken = next((t for t in takes if last.get(t) == i and t not in outputs), None)
        if taken is not None and out not in outputs:
            root[out] = root.get(taken, taken)
    steps = tuple(Step(tuple(dict.fromkeys(root.get(r, r) for r in s.reads)),
                       tuple(w for w in s.writes if w not in root), s.scratch)
                  for s in b.steps)
    return steps, frozenset(root.get(o, o) for o in outputs)


def _original_bound(p: _Program, in_place: bool = False) -> int:
    b = _Builder(p)
    b.shapes.update({n: tuple(p.constants[n.name].shape) for n in p.nodes if p.constant(n)})
    for node in p.nodes:
        b.env[node] = node
        if node.op == "placeholder" and not p.constant(node):
            b._track(node, p.shape(node), _bytes_of(node), [], call=False)
        elif node.op == "call_function":
            b._track(node, p.shape(node), _bytes_of(node), list(node.all_input_nodes),
                     target=node.target, args=node.args)
    return _bound(b, p, in_place)


def start_graph(p: _Program) -> tuple[torch.fx.Graph, dict[Any, Any]]:
    """A new graph holding the program's inputs: user inputs as placeholders, constants
    as attributes (`export_graph` registers them); and the map from old node to new."""
    graph = torch.fx.Graph()
    env: dict[Any, Any] = {}
    for node in p.nodes:
        if node.op != "placeholder":
            continue
        if p.constant(node):
            env[node] = graph.get_attr(_attr(node.name))
        else:
            env[node] = graph.placeholder(node.name)
            env[node].meta = dict(node.meta)
    return graph, env


def export_graph(p: _Program, graph: torch.fx.Graph, env: dict[Any, Any]) -> Any:
    """The new graph (from `start_graph`, every call added) exported again, with the
    original's constants and outputs."""
    root = torch.nn.Module()
    for name, value in p.constants.items():
        root.register_buffer(_attr(name), value.detach().clone())
    for n in p.nodes:
        if n.op == "output":
            graph.output(torch.fx.node.map_arg(n.args[0], lambda a: env[a]))
    module = torch.fx.GraphModule(root, graph)
    inputs = tuple(torch.zeros(p.shape(n), dtype=n.meta["val"].dtype)
                   for n in p.nodes if n.op == "placeholder" and not p.constant(n))
    return torch.export.export(module, inputs)


def rewrite_patches(exported: Any, *, max_recompute: float = 0.2,
                    max_grid: int = MAX_GRID, in_place: bool = False) -> PatchRewrite:
    """The program with its first stage run patch by patch, at the split point and grid
    with the lowest bound within `max_recompute` more multiply-accumulates (a share of the
    model's); `model` None when no candidate is below the original (`reason` says why).
    `in_place`: bounds (the original's and each candidate's) count the outputs `--rewrite
    inplace` may write over their dying inputs in those inputs' bytes."""
    p = _Program(exported)
    sig = exported.graph_signature
    if sig.buffers_to_mutate or getattr(sig, "user_inputs_to_mutate", None):
        return PatchRewrite(None, "the program writes over a buffer or an input")
    macs = model_macs(p)
    before = _original_bound(p, in_place)
    unchanged = {"macs_before": macs, "macs_after": macs, "lower_bound_before": before,
                 "lower_bound_after": before}
    described = candidate_stages(p)
    if not described:
        return PatchRewrite(None, "no prefix of convolution, pooling and elementwise "
                            "operators reads one [N, C, H, W] input and hands one tensor on",
                            **unchanged)
    per_position = {d.op.index: d.macs_per_position for s in described for d in s}
    stages = [[d.op for d in s] for s in described]
    keyed = {tuple(d.op.index for d in s): s for s in described}

    def shapes(stage: list[StageOp]) -> dict[int, tuple[int, int]]:
        return {i: p.shape(p.node(i))[2:] for op in stage for i in (*op.inputs, op.output)}

    def measure(stage: list[StageOp], grid: Grid) -> tuple[int, int]:
        patched = patched_macs(stage, grid, shapes(stage), per_position)
        if not within_budget(patched - whole_macs(stage, shapes(stage), per_position), macs,
                             max_recompute):
            return 0, patched  # over the budget: the search stops here, the graph unbuilt
        built = _patched(p, keyed[tuple(o.index for o in stage)], grid)
        return _bound(built, p, in_place), patched

    candidates = search_grids(
        stages, max_recompute=max_recompute, max_grid=max_grid, model_macs=macs,
        stage_macs=lambda s: whole_macs(s, shapes(s), per_position), measure=measure,
        output_size=lambda s: p.shape(p.node(s[-1].output))[2:], rectangular=True)
    if not candidates:
        return PatchRewrite(None, f"no split point and grid within {max_recompute:.0%} more "
                            "multiply-accumulates of the model", **unchanged)
    best = candidates[0]
    if best.bound >= before:
        return PatchRewrite(None, f"the best candidate's bound ({best.bound:,} B) is not "
                            f"below the original's ({before:,} B)", **unchanged)
    return _chosen(p, keyed[tuple(o.index for o in best.stage)], best.grid, macs, before,
                   per_position, in_place)


def _chosen(p: _Program, stage: list[_Described], grid: Grid, macs: int, before: int,
            per_position: dict[int, int], in_place: bool = False) -> PatchRewrite:
    ops = [d.op for d in stage]
    shapes = {i: p.shape(p.node(i))[2:] for op in ops for i in (*op.inputs, op.output)}
    whole = whole_macs(ops, shapes, per_position)
    after = patched_macs(ops, grid, shapes, per_position)
    built = _patched(p, stage, grid)
    bound = _bound(built, p, in_place)
    split = p.node(ops[-1].output)
    rows, cols = grid_shape(grid)
    return PatchRewrite(export_graph(p, built.graph, built.env),
                        f"stage of {len(ops)} operators run as {rows} x {cols} patches",
                        split.name, p.calls.index(split),
                        (rows, cols), macs, macs - whole + after, whole, after, before, bound)


def rewrite_at(exported: Any, split_after: int, grid: Grid, in_place: bool = False
               ) -> PatchRewrite:
    """The program with call nodes 0..`split_after` run as the grid's patches (P x P, or
    (rows, columns)), whatever it costs; ValueError when that prefix is not a stage.
    `in_place` as `rewrite_patches`'s."""
    p = _Program(exported)
    for stage in candidate_stages(p):
        if p.calls.index(p.node(stage[-1].op.output)) == split_after:
            _, _, height, width = p.shape(p.node(stage[-1].op.output))
            rows, cols = grid_shape(grid)
            if not (1 <= rows <= height and 1 <= cols <= width):
                raise ValueError(f"a {rows} x {cols} grid on a {height} x {width} output")
            per_position = {d.op.index: d.macs_per_position for d in stage}
            return _chosen(p, stage, grid, model_macs(p), _original_bound(p, in_place),
                           per_position, in_place)
    raise ValueError(f"operators 0..{split_after} are not a stage that runs patch by patch")
