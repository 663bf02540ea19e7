"""Windowed operators on TFLM written over their dying input, shifted down by a proven offset.

TFLM's reference kernels for CONV_2D (`reference_integer_ops::ConvPerChannel`),
DEPTHWISE_CONV_2D (`DepthwiseConvPerChannel`) and AVERAGE_POOL_2D / MAX_POOL_2D
(`reference_integer_ops::AveragePool` / `MaxPool`, through `pooling_common.cc`) and PAD
(`reference_ops::PadImpl`, which copies or writes the pad value per element) walk the
output forward in flat NHWC order (batch, out_y, out_x, output channel) and, for each
output element, read its input window (clipped at the border) before writing that element,
once (read in the TFLM sources `pip show tflite-micro` installs: kernels/conv.cc,
depthwise_conv.cc, pooling_common.cc and pad.cc call these for int8, and their int16
instances for int16). So the output may start `d`
bytes below its input when no element's write reaches an input byte that a later element
still reads:

    d >= max over output elements o of (end byte of o's write) - (lowest input byte any
         element after o reads)

in the input's byte coordinates (a suffix minimum over the elements, `shift`). A larger `d`
is as safe; `d` is rounded up to TFLM's 16-byte alignment. The pair then needs
`d + max(input bytes, output bytes - d)` rather than both: a stride-1 3x3 depthwise about
one input row more than its input, a 1x1 expanding convolution about its output and one
input pixel.

Each kind (with its element type) is accepted only after a test ran it at this offset on
TFLM's interpreter, compared its outputs byte for byte with TFLM's own plan, and showed that
a smaller offset changes them (tests/test_tflm_window.py); a kind no test runs is not in
`KINDS`. CMSIS-NN's kernels walk their output in other orders (and cannot run here): with
`--kernels cmsis-nn` nothing is written over a window.

Which operators are written over their input is chosen by what it does to the plan: a chain
of such outputs drifts downward operator after operator, and a share group is planned with
its members at fixed offsets from each other, so one taken where the peak is not can raise
the plan (`choose`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from . import model as tfl

# Operator -> element types of its input and output a test ran it with at `shift`.
_TESTED = frozenset({"INT8", "INT16", "FLOAT32"})
KINDS: dict[str, frozenset[str]] = {
    "CONV_2D": _TESTED,
    "DEPTHWISE_CONV_2D": _TESTED,
    "AVERAGE_POOL_2D": _TESTED,
    "MAX_POOL_2D": _TESTED,
    "PAD": _TESTED,
}
_SAME = 0  # schema.Padding.SAME (VALID is 1)


@dataclass(frozen=True)
class Window:
    """How one operator's output elements read its input (NHWC, one batch dimension)."""

    input_shape: tuple[int, int, int, int]
    output_shape: tuple[int, int, int, int]
    kernel: tuple[int, int]  # height, width
    stride: tuple[int, int]
    dilation: tuple[int, int]
    padding: tuple[int, int]  # rows above, columns left, as TFLM's kernel subtracts them
    # output channel -> the first input channel it reads (CONV_2D: 0; the others: its own)
    channel_base: np.ndarray
    input_item: int  # bytes per element
    output_item: int
    dense: bool = False  # each output channel reads every input channel (CONV_2D)


def window(model: tfl.TfliteModel, op: tfl.TfliteOp) -> Window | None:
    """The op's window, or None when it is no kind in `KINDS` with types a test ran."""
    if op.name not in KINDS or len(op.outputs) != 1 or not op.slots or op.slots[0] < 0:
        return None
    src, out = model.tensors[op.slots[0]], model.tensors[op.outputs[0]]
    if (src.dtype not in KINDS[op.name] or out.dtype != src.dtype or len(src.shape) != 4
            or len(out.shape) != 4 or src.shape[0] != out.shape[0]
            or min(src.shape) < 1 or min(out.shape) < 1):
        return None
    n, h, w, c = src.shape
    _, oh, ow, oc = out.shape
    if op.name == "PAD":
        return _pad(model, op, src, out)
    o = op.options
    if o is None:
        return None
    stride = (int(o.strideH), int(o.strideW))
    if op.name in ("CONV_2D", "DEPTHWISE_CONV_2D"):
        if len(op.slots) < 2 or op.slots[1] < 0:
            return None
        f = model.tensors[op.slots[1]].shape
        if len(f) != 4:
            return None
        kernel = (int(f[1]), int(f[2]))
        dilation = (int(o.dilationHFactor or 1), int(o.dilationWFactor or 1))
        # Grouped convolutions read a group's channels: the rule would cover them
        # (`channel_base`), but no test ran one, so they are left. A depthwise output
        # channel ic * m + k reads input channel ic (the kernels' `ic`, `m` loops).
        if (op.name == "CONV_2D" and int(f[3]) != c) or (
                op.name == "DEPTHWISE_CONV_2D" and (oc % c or int(f[3]) != oc)):
            return None
        base = np.zeros(oc, dtype=np.int64) if op.name == "CONV_2D" else \
            np.arange(oc) // (oc // c)
    else:
        kernel = (int(o.filterHeight), int(o.filterWidth))
        dilation = (1, 1)
        if oc != c:
            return None
        base = np.arange(oc)
    if min(*stride, *dilation, *kernel) < 1:
        return None
    padding = []
    for size, k, s, d, got in ((h, kernel[0], stride[0], dilation[0], oh),
                               (w, kernel[1], stride[1], dilation[1], ow)):
        span = (k - 1) * d + 1
        want = (size + s - 1) // s if o.padding == _SAME else (size + s - span) // s
        if want != got:  # the kernel would compute a shape the model does not have
            return None
        padding.append(max(0, (got - 1) * s + span - size) // 2)
    return Window(src.shape, out.shape, kernel, stride, dilation, tuple(padding), base,
                  src.nbytes // (n * h * w * c), out.nbytes // (n * oh * ow * oc),
                  op.name == "CONV_2D")


def _pad(model: tfl.TfliteModel, op: tfl.TfliteOp, src: tfl.TfliteTensor,
         out: tfl.TfliteTensor) -> Window | None:
    """PAD of the height and width: TFLM's `reference_ops::PadImpl` walks the output
    forward, copying input element k (read, then written) or writing the pad value, so an
    output pixel reads the input pixel `top` rows and `left` columns before it: a 1x1
    window at stride 1 padded by (top, left)."""
    pads = model.small_ints.get(op.slots[1]) if len(op.slots) > 1 else None
    if pads is None or len(pads) != 8:
        return None
    (b0, b1), (top, bottom), (left, right), (c0, c1) = zip(pads[::2], pads[1::2], strict=True)
    n, h, w, c = src.shape
    if (b0, b1, c0, c1) != (0, 0, 0, 0) or min(top, bottom, left, right) < 0 \
            or out.shape != (n, h + top + bottom, w + left + right, c):
        return None
    item = src.nbytes // (n * h * w * c)
    return Window(src.shape, out.shape, (1, 1), (1, 1), (1, 1), (top, left), np.arange(c),
                  item, item)


def _first_read(out: int, size: int, kernel: int, stride: int, dilation: int, pad: int
                ) -> np.ndarray:
    """Per output index along one axis, the lowest input index its window reads (-1: none
    inside the input)."""
    origin = np.arange(out) * stride - pad
    tap = np.where(origin < 0, -(origin // dilation), 0)  # ceil(-origin / dilation)
    at = origin + tap * dilation
    return np.where((tap < kernel) & (at < size), at, -1)


def shift(win: Window) -> int:
    """The smallest `d` (bytes, not yet aligned) such that the output written `d` bytes
    below the input never overwrites an input byte a later output element reads. It may
    be negative: the output then starts above the input (a stride-2 window's first
    writes trail its reads by more than they take)."""
    n, h, w, c = win.input_shape
    _, oh, ow, oc = win.output_shape
    ys = _first_read(oh, h, win.kernel[0], win.stride[0], win.dilation[0], win.padding[0])
    xs = _first_read(ow, w, win.kernel[1], win.stride[1], win.dilation[1], win.padding[1])
    b = np.arange(n)[:, None, None, None]
    y, x = ys[None, :, None, None], xs[None, None, :, None]
    first = (((b * h + y) * w + x) * c + win.channel_base[None, None, None, :]) * win.input_item
    none = np.iinfo(np.int64).max
    reads = np.where((y >= 0) & (x >= 0), first, none).astype(np.int64).reshape(-1)
    # Lowest byte read by any element after element i, for i = 0 .. N-2.
    later = np.minimum.accumulate(reads[::-1])[::-1][1:]
    ends = (np.arange(1, len(reads), dtype=np.int64)) * win.output_item
    hit = later != none
    return max(0, int((ends[hit] - later[hit]).max(initial=0)))


def _last_read(out: int, size: int, kernel: int, stride: int, dilation: int, pad: int
               ) -> np.ndarray:
    """Per input index along one axis, the highest output index whose window reads it (-1:
    none)."""
    o, f = np.meshgrid(np.arange(out), np.arange(kernel), indexing="ij")
    at = (o * stride - pad + f * dilation).reshape(-1)
    inside = (at >= 0) & (at < size)
    last = np.full(size, -1, dtype=np.int64)
    np.maximum.at(last, at[inside], o.reshape(-1)[inside])
    return last


def above(win: Window) -> int | None:
    """The least `a` (a multiple of TFLM's alignment, below the input's size) such that the
    output written `a` bytes above the input's start never overwrites an input byte a
    later output element reads, or None. Output element j then writes input bytes from
    a + j * (output bytes per element): input element p, last read by element L(p), is
    safe when it is never written (below `a`) or written by an element after L(p), so `a`
    is safe when min over p with p * item >= a of (p * item - L(p) * output item) >= a, a
    suffix minimum over the input's elements (the suffix starting where the output does).
    A strided window reads its first input rows long before it writes its last output
    rows, so its output may sit above its input."""
    n, h, w, c = win.input_shape
    _, oh, ow, oc = win.output_shape
    ly = _last_read(oh, h, win.kernel[0], win.stride[0], win.dilation[0], win.padding[0])
    lx = _last_read(ow, w, win.kernel[1], win.stride[1], win.dilation[1], win.padding[1])
    if win.dense:
        lc = np.full(c, oc - 1, dtype=np.int64)
    else:
        lc = np.full(c, -1, dtype=np.int64)
        np.maximum.at(lc, win.channel_base.astype(np.int64), np.arange(oc))
    b = np.arange(n)[:, None, None, None]
    y, x, ch = ly[None, :, None, None], lx[None, None, :, None], lc[None, None, None, :]
    last = ((b * oh + y) * ow + x) * oc + ch
    slack = np.arange(n * h * w * c, dtype=np.int64).reshape(n, h, w, c) * win.input_item \
        - last * win.output_item
    none = np.iinfo(np.int64).max
    slack = np.where((y >= 0) & (x >= 0) & (ch >= 0), slack, none).reshape(-1)
    suffix = np.minimum.accumulate(slack[::-1])[::-1]
    size = n * h * w * c * win.input_item
    for a in range(tfl.ALIGNMENT, size, tfl.ALIGNMENT):
        if a % win.input_item == 0 and suffix[a // win.input_item] >= a:
            return a
    return None


def aligned_shift(win: Window) -> int:
    return -(-shift(win) // tfl.ALIGNMENT) * tfl.ALIGNMENT


def candidate(model: tfl.TfliteModel, op: tfl.TfliteOp) -> tuple[int, int, int] | None:
    """(output key, input key, d) when `op`'s output may be written `d` bytes below its
    input (`eligible`; a negative `d`: above its start)."""
    win = eligible(model, op)
    if win is None:
        return None
    return op.outputs[0], op.slots[0], aligned_shift(win)


def eligible(model: tfl.TfliteModel, op: tfl.TfliteOp) -> Window | None:
    """The window of `op` when its output may be written below its input: a kind in
    `KINDS`, its input planned, dying here, read once by it, no model output and not
    already written over or a view; its output planned, no model input, sharing nothing
    yet."""
    shared = model.shares
    if op.subgraph:
        return None  # a subgraph's own inputs and outputs are not in `model.inputs`
    win = window(model, op)
    if win is None:
        return None
    src, out = model.tensors[op.slots[0]], model.tensors[op.outputs[0]]
    viewed = {s for s, _ in model.views.values()}
    if (src.role is not tfl.Role.PLANNED or out.role is not tfl.Role.PLANNED
            or src.last != op.scope or src.key in model.outputs or out.key in model.inputs
            or op.slots.count(src.key) != 1 or out.key in op.slots
            or out.key in shared or src.key in shared.values()
            or src.key in model.views or src.key in viewed
            or src.key in model.joins or out.key in model.joins):
        return None
    return win


Measure = Callable[[tfl.TfliteModel], tuple[int, ...]]


def choose(model: tfl.TfliteModel, measure: Measure) -> tuple[tfl.TfliteModel, list[str]]:
    """`model` with the windowed operators written over their input that lower
    `measure` (a key to minimise: the planned head first), tried the operator holding the
    most bytes first, each kept only when the key drops; one line per one kept."""
    found = []
    for op in model.ops:
        pair = candidate(model, op)
        if pair is not None:
            held = sum(model.tensors[k].size for k in pair[:2])
            found.append((held, op, pair))
    found.sort(key=lambda f: (-f[0], f[1].index))
    best = measure(model)
    done = []
    for _, op, (out, src, least) in found:
        if eligible(model, op) is None:
            continue  # its input is now written over by an earlier choice
        # Above the input (a negative shift) the pair spans more than below it when the
        # output is the larger, but a chain drifting down may need it back up: both are
        # weighed.
        up = above(window(model, op))
        tries = [(measure(t), d, t) for d in [least, *([-up] if up is not None else [])]
                 for t in [with_share(model, out, src, d)]]
        key, d, tried = min(tries, key=lambda k: (k[0], -k[1]))  # tied: the tighter pair
        if key < best:
            model, best = tried, key
            a, b = model.tensors[src], model.tensors[out]
            span = max(a.size, b.size - d) - min(0, -d)
            done.append(f"{op.name} #{op.index} writes over {a.name} at {-d:+,} B "
                        f"({a.size:,} B in, {b.size:,} B out: {span:,} B together)")
    return model, done


def with_share(model: tfl.TfliteModel, out: int, src: int, d: int) -> tfl.TfliteModel:
    releases = dict(model.releases)
    # A staggered group is planned as its members' pieces: parts of its own would be
    # planned from the output's start, past the input below it.
    releases.pop(out, None)
    return dataclasses.replace(model, shares={**model.shares, out: src},
                               share_offsets={**model.share_offsets, out: -d},
                               releases=releases)
