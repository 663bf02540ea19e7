"""Scratch buffers TFLM's CMSIS-NN kernels request, per operator and core.

A firmware built with `OPTIMIZED_KERNEL_DIR=cmsis_nn` runs the kernels of
`tensorflow/lite/micro/kernels/cmsis_nn/*.cc`: their Prepare asks CMSIS-NN how big a
buffer its function needs (`memplan.runtimes.tflm.cmsis_nn_sizes`) and requests that much
scratch, where the reference kernel would ask for something else or nothing. What each
kernel requests, in order (a request of 0 bytes is made only where the kernel makes it
regardless of size):

- CONV_2D, int8 (int8 or int4 weights): `arm_convolve_wrapper_s8`'s buffer; int16: the
  s16 wrapper's (the kernel fetches the bias with AllocateTempOutputTensor, which finds
  nothing, so an int32 bias does not turn the request off). Float: none.
- DEPTHWISE_CONV_2D, int8 activations: the s8 or s4 wrapper's buffer, by weight type.
  TFLM leaves the parameters' stride uninitialized in Prepare; only the MVE
  one-input-channel case reads it (as a 1xN convolution), and this model uses the
  operator's stride there, which is what the kernel needs at Eval. int16, float: none.
- FULLY_CONNECTED, int8 with int8 weights: when the output has more than two dimensions
  and the accumulation depth is a multiple of 4 it runs as a 1x1 convolution: a
  per-channel quantization table (output depth x 2 int32) unless the weights are
  per-channel, then the 1x1 kernel's buffer. Otherwise `arm_fully_connected_s8`'s kernel
  sums, which a KERNELS_OPTIMIZED_FOR_SPEED build computes once into persistent memory
  when the weights (and bias) are constant. int16, int4 weights, float: none.
- AVERAGE_POOL_2D, int8 / int16: `arm_avgpool_*`'s buffer. MAX_POOL_2D: none.
- SVDF: the reference kernel's buffers, then for int8 `arm_svdf_s8`'s kernel sums:
  persistent when built for speed (the weights must be constant), scratch when built for
  size.
- TRANSPOSE_CONV, int8: `arm_transpose_conv_s8`'s buffer and the reversed filter (both
  requested even when 0); int16: the int64 output accumulator, then the int64 copy of an
  int16 bias. Float: none.
- BATCH_MATMUL, int8: `arm_fully_connected_s8`'s buffer for the output's columns.
- UNIDIRECTIONAL_SEQUENCE_LSTM: the reference kernel's cell-sized buffers, three of them
  when CMSIS-NN runs it (int8 or int16 activations, int16 cell state), else four.

Every other operator runs the reference kernel (`cmsis_nn_requests` returns None).
Persistent allocations (per-channel multipliers and shifts, effective LSTM biases,
transposed BATCH_MATMUL operands) are in the arena's tail, not planned here.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import cmsis_nn_sizes as nn
from .cmsis_nn_sizes import Backend, Compiler, ConvParams, Dims, backend_for
from .scratch import INT, OpView, ScratchModelError, TensorInfo, scratch_requests


class Optimization(enum.Enum):
    """TFLM's OPTIMIZE_KERNELS_FOR: which implementation a kernel with two compiles in."""

    SPEED = "speed"  # KERNELS_OPTIMIZED_FOR_SPEED, the Makefile's default
    SIZE = "size"  # KERNELS_OPTIMIZED_FOR_SIZE


@dataclass(frozen=True)
class CmsisNnBuild:
    """What a CMSIS-NN firmware's scratch requests depend on besides the model."""

    backend: Backend
    compiler: Compiler = Compiler.GCC
    optimization: Optimization = Optimization.SPEED

    @classmethod
    def for_core(cls, core: str, compiler: Compiler = Compiler.GCC,
                 optimization: Optimization = Optimization.SPEED) -> CmsisNnBuild:
        """The build for a core named as GCC's -mcpu spells it (raises UnknownCore)."""
        return cls(backend_for(core), compiler, optimization)


def cmsis_nn_requests(op: OpView, core: str | CmsisNnBuild | None) -> list[int] | None:
    """Bytes of each scratch buffer TFLM's CMSIS-NN kernel for `op` requests, in order;
    None when the firmware runs the reference kernel for it."""
    if core is None:
        raise ValueError("CMSIS-NN's scratch sizes depend on the core: name one "
                         "(e.g. cortex-m55)")
    build = core if isinstance(core, CmsisNnBuild) else CmsisNnBuild.for_core(core)
    rule = _KERNELS.get(op.name)
    return None if rule is None else rule(op, build)


def _shape4(*tensors: TensorInfo | None) -> bool:
    return all(t is not None and len(t.shape) == 4 for t in tensors)


def _padding(options: Any, size: tuple[int, int], filter: tuple[int, int],
             stride: tuple[int, int], dilation: tuple[int, int]) -> tuple[int, int]:
    """The (height, width) padding TFLM's ComputePaddingHeightWidth gives: the output size
    from the padding scheme, then half the total padding, rounded down. Arguments it
    rejects in either dimension give no padding in both, as there."""
    same = getattr(options, "padding", 0) == 0  # schema Padding: SAME 0, VALID 1
    pads = []
    for image, kernel, s, d in zip(size, filter, stride, dilation, strict=True):
        if image < 0 or kernel <= 0 or s <= 0 or d <= 0:
            return (0, 0)
        effective = (kernel - 1) * d + 1
        out = nn.c_div(image + s - 1, s) if same else nn.c_div(image + s - effective, s)
        if out < 0:
            return (0, 0)
        pads.append(max((out - 1) * s + effective - image, 0) // 2)
    return pads[0], pads[1]


def _conv_params(op: OpView, size: tuple[int, int], filter: tuple[int, int]) -> ConvParams:
    o = op.options
    stride = (getattr(o, "strideH", 1), getattr(o, "strideW", 1))
    dilation = (getattr(o, "dilationHFactor", 1), getattr(o, "dilationWFactor", 1))
    return ConvParams(_padding(o, size, filter, stride, dilation), stride, dilation)


def _if_positive(size: int) -> list[int]:
    return [size] if size > 0 else []


def _conv(op: OpView, build: CmsisNnBuild) -> list[int]:
    data, weights, out = op.input(0), op.input(1), op.output(0)
    if not _shape4(data, weights, out) or data.dtype not in ("INT8", "INT16"):
        return []
    n, h, w, c = data.shape
    _, fh, fw, fc = weights.shape
    params = _conv_params(op, (h, w), (fh, fw))
    input, filter, output = Dims(n, h, w, c), Dims(1, fh, fw, fc), Dims(*out.shape)
    if data.dtype == "INT8":  # int4 weights too: TFLM asks the s8 wrapper
        size = nn.convolve_wrapper_s8(build.backend, params, input, filter, output,
                                      build.compiler)
    else:
        size = nn.convolve_wrapper_s16(build.backend, input, filter)
    return _if_positive(size)


def _depthwise(op: OpView, build: CmsisNnBuild) -> list[int]:
    data, weights, out = op.input(0), op.input(1), op.output(0)
    if not _shape4(data, weights, out) or data.dtype != "INT8":
        return []
    n, h, w, c = data.shape
    _, fh, fw, _ = weights.shape
    depth = out.shape[3]
    params = _conv_params(op, (h, w), (fh, fw))
    input, filter = Dims(n, h, w, c), Dims(1, fh, fw, depth)
    output = Dims(n, out.shape[1], out.shape[2], depth)
    if weights.dtype == "INT4":
        size = nn.depthwise_conv_wrapper_s4(build.backend, params, input, filter, output)
    else:
        size = nn.depthwise_conv_wrapper_s8(build.backend, params, input, filter, output,
                                            build.compiler)
    return _if_positive(size)


def _fully_connected(op: OpView, build: CmsisNnBuild) -> list[int]:
    data, weights, bias, out = op.input(0), op.input(1), op.input(2), op.output(0)
    if data is None or weights is None or out is None or not weights.shape \
            or not out.shape:
        return []
    accum, depth = weights.shape[-1], out.shape[-1]
    if data.dtype == "INT16":
        return _if_positive(nn.fully_connected_s16(build.backend, Dims(accum, 1, 1, depth)))
    if data.dtype != "INT8" or weights.dtype == "INT4":
        return []
    if len(out.shape) > 2 and accum % 4 == 0:  # runs as a 1x1 convolution
        table = [] if weights.scales > 1 else [depth * 2 * INT]
        batches = out.elements // depth if depth else 0
        one_by_one = nn.convolve_1x1_s8_fast(build.backend, Dims(batches, 1, 1, accum),
                                             build.compiler)
        return table + _if_positive(one_by_one)
    size = nn.fully_connected_s8(build.backend, Dims(accum, 1, 1, depth))
    if size > 0 and build.optimization is Optimization.SPEED and weights.constant \
            and (bias is None or bias.constant):
        return []  # the kernel sums go to persistent memory, computed once in Prepare
    return _if_positive(size)


def _average_pool(op: OpView, build: CmsisNnBuild) -> list[int]:
    data, out = op.input(0), op.output(0)
    if not _shape4(data, out) or data.dtype not in ("INT8", "INT16"):
        return []
    width, depth = out.shape[2], out.shape[3]
    size = nn.avgpool_s16 if data.dtype == "INT16" else nn.avgpool_s8
    return _if_positive(size(build.backend, width, depth))


def _max_pool(op: OpView, build: CmsisNnBuild) -> list[int]:
    return []


def _svdf(op: OpView, build: CmsisNnBuild) -> list[int]:
    # The same validation and first requests as the reference kernel (svdf_common.cc).
    requests = scratch_requests(op)
    data, feature = op.input(0), op.input(1)
    if data is None or feature is None or data.dtype != "INT8" or len(feature.shape) != 2:
        return requests
    filters, size = feature.shape
    sums = nn.svdf_s8(build.backend, Dims(filters, size, 0, 0))
    if sums <= 0:
        return requests
    if build.optimization is Optimization.SIZE:
        return [*requests, sums]
    if not feature.constant:
        raise ScratchModelError("CMSIS-NN's SVDF built for speed needs constant "
                                "weights_feature (its kernel sums are computed in Prepare)")
    return requests  # the kernel sums are persistent


def _transpose_conv(op: OpView, build: CmsisNnBuild) -> list[int]:
    # Inputs: output shape, filter [out_depth, h, w, in_depth], input, bias.
    weights, data, bias, out = op.input(1), op.input(2), op.input(3), op.output(0)
    if data is None or out is None:
        return []
    if data.dtype == "INT16":
        wide = [8 * out.elements]  # int64 accumulators
        if bias is not None and bias.dtype == "INT16":
            wide.append(8 * bias.elements)  # requested later, in CalculateOpData
        return wide
    if data.dtype != "INT8" or not _shape4(weights, data, out):
        return []
    n, h, w, c = data.shape
    depth, fh, fw, _ = weights.shape
    o = op.options
    params = ConvParams(stride=(getattr(o, "strideH", 1), getattr(o, "strideW", 1)))
    input, filter = Dims(n, h, w, c), Dims(depth, fh, fw, c)
    output = Dims(n, out.shape[1], out.shape[2], depth)
    return [nn.transpose_conv_s8(build.backend, params, input, filter, output),
            nn.transpose_conv_reverse_s8(params, input, filter)]


def _batch_matmul(op: OpView, build: CmsisNnBuild) -> list[int]:
    lhs, rhs = op.input(0), op.input(1)
    if lhs is None or rhs is None or lhs.dtype != "INT8" or len(rhs.shape) < 2:
        return []
    columns = rhs.shape[-2] if getattr(op.options, "adjY", False) else rhs.shape[-1]
    return _if_positive(nn.fully_connected_s8(build.backend, Dims(1, 1, 1, columns)))


def _lstm(op: OpView, build: CmsisNnBuild) -> list[int]:
    buffers = scratch_requests(op)  # the reference kernel's four, all the same size
    data, cell = op.input(0), op.input(19)
    if data is not None and cell is not None and cell.dtype == "INT16" \
            and data.dtype in ("INT8", "INT16"):
        return buffers[:3]  # CMSIS-NN's integer LSTM needs one buffer fewer
    return buffers


_KERNELS: dict[str, Callable[[OpView, CmsisNnBuild], list[int]]] = {
    "CONV_2D": _conv,
    "DEPTHWISE_CONV_2D": _depthwise,
    "FULLY_CONNECTED": _fully_connected,
    "AVERAGE_POOL_2D": _average_pool,
    "MAX_POOL_2D": _max_pool,
    "SVDF": _svdf,
    "TRANSPOSE_CONV": _transpose_conv,
    "BATCH_MATMUL": _batch_matmul,
    "UNIDIRECTIONAL_SEQUENCE_LSTM": _lstm,
}

# Operators whose CMSIS-NN kernel sizes its scratch itself: the tests hold cases per name.
CMSIS_NN_OPERATORS = tuple(sorted(_KERNELS))
