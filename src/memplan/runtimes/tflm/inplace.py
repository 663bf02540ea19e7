"""In-place operators on TFLM: an output written over an input that dies at its operator.

TFLM's reference kernels below compute their output element by element from the element
at the same index of each input, over the flat size, when no input is broadcast
(`reference_integer_ops::Add`/`Mul`/`Sub` through `ElementWise`, `ReluQuantized`/`Relu6`,
`reference_integer_ops::Logistic`/`Tanh`, `Requantize` in QUANTIZE,
`reference_ops::QuantizeLeakyRelu`/`LeakyRelu`, `reference_ops::HardSwish` (a pointer walk
for float, index i for int8), `MaximumMinimumBroadcastSlow`, whose output subscript is its
inputs' when the shapes match, ABS's `EvalImpl`/`EvalImplQuantized`, `Negate`, ELU's
table lookup): element i of the output is written after element i of
every input is read and never before, so the output may start at the input's address
when both have the same bytes per element and the same shape. TFLM's own planner never
does it (an input and an output of one operator are live at the same scope); an offline
plan can, as it does for RESHAPE (`model.py`). Each kind, with each element type, was
accepted only after a test ran it in place on TFLM's interpreter and compared the
outputs byte for byte with TFLM's own plan (tests/test_tflm_rewrites.py, parametrised by
`KINDS`); a kind or type no test runs in place is not in `KINDS` (an int16 kernel is
often another function than the int8 one).

QUANTIZE may also narrow (float32 or int32 in, int16 or int8 out; int16 in, int8 out):
TFLM's `AffineQuantize` (and `PerChannelQuantize`, `Requantize`) walks i forward, reads
input element i and then writes output element i, whose bytes lie inside input elements
0..i, all read already.

Refused: a broadcast (an input shape differs from the output's), an element that widens
(DEQUANTIZE: element i of the output would overwrite input elements not yet read), an
input that is read again later, a model output as the input written over (the caller
reads it after `Invoke`) or a model input as the output, a tensor read twice by the
operator. A model input may be written over once its last reader ran: TFLM's own planner
reuses its bytes then (its lifetime ends at its last use). An output so placed is held
whole, not released in parts (`TfliteModel.releases`): its group's parts would be its own,
not the larger input's it sits in.
"""

from __future__ import annotations

import dataclasses

from . import model as tfl


@dataclasses.dataclass(frozen=True)
class Kind:
    """An operator that may write its output over an input."""

    slots: tuple[int, ...]  # the input slots whose bytes the output may take
    types: frozenset[str]  # the output's element types a test ran in place


_ALL = frozenset({"FLOAT32", "INT8", "INT16"})
_BINARY, _UNARY = (0, 1), (0,)
KINDS: dict[str, Kind] = {
    "ADD": Kind(_BINARY, _ALL),
    "SUB": Kind(_BINARY, _ALL),
    "MUL": Kind(_BINARY, _ALL),
    "MAXIMUM": Kind(_BINARY, _ALL),
    "MINIMUM": Kind(_BINARY, _ALL),
    "RELU": Kind(_UNARY, _ALL),
    "RELU6": Kind(_UNARY, _ALL),
    "LEAKY_RELU": Kind(_UNARY, _ALL),
    "HARD_SWISH": Kind(_UNARY, frozenset({"FLOAT32", "INT8"})),
    "LOGISTIC": Kind(_UNARY, _ALL),
    "TANH": Kind(_UNARY, _ALL),
    "QUANTIZE": Kind(_UNARY, frozenset({"INT8", "INT16"})),
    "ABS": Kind(_UNARY, _ALL),
    "NEG": Kind(_UNARY, frozenset({"FLOAT32"})),
    "ELU": Kind(_UNARY, frozenset({"FLOAT32", "INT8"})),
}
# Kind -> the (input, output) types it may narrow between (see the module's note;
# `AffineQuantize` from float32, `Requantize` from int32 and int16): only those a test ran
# in place.
NARROWING: dict[str, frozenset[tuple[str, str]]] = {
    "QUANTIZE": frozenset({("FLOAT32", "INT8"), ("FLOAT32", "INT16"), ("INT32", "INT8"),
                           ("INT32", "INT16"), ("INT16", "INT8")})}


def candidate(model: tfl.TfliteModel, op: tfl.TfliteOp, shared: dict[int, int] | None = None
              ) -> tuple[int, int] | None:
    """The (output, input) keys of `op` that may share bytes, or None."""
    shared = model.shares if shared is None else shared
    kind = KINDS.get(op.name)
    if kind is None or len(op.outputs) != 1:
        return None
    out = model.tensors[op.outputs[0]]
    if out.dtype not in kind.types:
        return None
    if out.role is not tfl.Role.PLANNED or out.key in shared or out.key in model.inputs:
        return None
    if op.subgraph:
        return None  # a subgraph's own inputs and outputs are not in `model.inputs`
    if any(model.tensors[k].shape != out.shape for k in op.slots if k >= 0):
        return None  # a broadcast: the kernel indexes the inputs apart from the output
    ends = set(model.outputs)
    # A slice that is a view of its input (`TfliteModel.views`) shares bytes the output
    # would overwrite while the other still reads them.
    viewed = {src for src, _ in model.views.values()}
    for slot in kind.slots:
        if slot >= len(op.slots) or op.slots[slot] < 0:
            continue
        t = model.tensors[op.slots[slot]]
        fits = (t.dtype == out.dtype
                or (t.dtype, out.dtype) in NARROWING.get(op.name, frozenset()))
        if (t.role is tfl.Role.PLANNED and t.shape == out.shape and fits
                and t.last == op.scope and t.key not in ends and op.slots.count(t.key) == 1
                and t.key not in shared.values() and t.key not in model.views
                and t.key not in viewed):
            return out.key, t.key
    return None


def lowered_in_place(model: tfl.TfliteModel, op: tfl.TfliteOp) -> bool:
    return candidate(model, op) is not None


def in_place(model: tfl.TfliteModel) -> tuple[tfl.TfliteModel, list[str]]:
    """The model with every output that may be written over a dying input sharing its
    bytes (`TfliteModel.shares`), and one line per operator so rewritten."""
    shares = dict(model.shares)
    releases = dict(model.releases)
    done = []
    for op in model.ops:
        pair = candidate(model, op, shares)
        if pair is not None:
            shares[pair[0]] = pair[1]
            releases.pop(pair[0], None)
            src = model.tensors[pair[1]]
            done.append(f"{op.name} #{op.index} writes over {src.name} ({src.size:,} B)")
    return dataclasses.replace(model, shares=shares, releases=releases), done
