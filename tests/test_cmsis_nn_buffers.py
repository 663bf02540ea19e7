"""Scratch requests of TFLM's CMSIS-NN kernels, per backend, derived by hand from the C.

Each expected number is worked out in its comment from tflite-micro's
`kernels/cmsis_nn/*.cc` Prepare and CMSIS-NN's `arm_*_get_buffer_size` sources. (The
formulas were also compared with CMSIS-NN's own Python bindings over random shapes,
outside the repository: docs/targets.md.)
"""

from __future__ import annotations

import pytest
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

from memplan.runtimes.tflm.cmsis_nn_buffers import (
    CMSIS_NN_OPERATORS,
    CmsisNnBuild,
    Optimization,
    cmsis_nn_requests,
)
from memplan.runtimes.tflm.cmsis_nn_sizes import Backend, Compiler, UnknownCore, backend_for
from memplan.runtimes.tflm.scratch import (
    KernelSet,
    OpView,
    ScratchModelError,
    TensorInfo,
    scratch_requests,
)

M0, M4, M55 = "cortex-m0", "cortex-m4", "cortex-m55"  # scalar, DSP, MVE
SCALAR, DSP, MVE = (CmsisNnBuild(b) for b in (Backend.SCALAR, Backend.DSP, Backend.MVE))


def T(dtype: str, *shape: int, constant: bool = False, scales: int = 0) -> TensorInfo:
    return TensorInfo(dtype, shape, constant, scales)


def conv_options(padding=schema.Padding.SAME, stride=(1, 1), dilation=(1, 1), depthwise=False):
    o = schema.DepthwiseConv2DOptionsT() if depthwise else schema.Conv2DOptionsT()
    o.padding = padding
    o.strideH, o.strideW = stride
    o.dilationHFactor, o.dilationWFactor = dilation
    return o


def per_backend(op: OpView, **builds) -> dict[str, list[int] | None]:
    return {core: cmsis_nn_requests(op, core) for core in (M0, M4, M55)} | {
        name: cmsis_nn_requests(op, build) for name, build in builds.items()}


# --- CONV_2D --------------------------------------------------------------------------------

def conv(dtype, x, w, y, options, bias=None, weights="INT8"):
    return OpView("CONV_2D", (T(dtype, *x), T(weights, *w), bias), (T(dtype, *y),), options)


def test_conv_general_im2col():
    op = conv("INT8", (1, 8, 8, 10), (8, 3, 3, 10), (1, 8, 8, 8), conv_options())
    # cols = 10 * 3 * 3 = 90. Scalar and DSP: 2 int16 columns rounded up to 4:
    # 2 * 92 * 2 = 368. MVE: 4 columns of whole 16-byte registers: 4 * ceil(90/16) * 16
    # = 4 * 6 * 16 = 384.
    assert per_backend(op) == {M0: [368], M4: [368], M55: [384]}


def test_conv_int4_weights_ask_the_int8_wrapper():
    # conv.cc asks arm_convolve_wrapper_s8 for any int8 input: the same 368 / 384 as int8
    # weights, and no unpacking buffer (the reference kernel would ask 8*3*3*10 = 720).
    op = conv("INT8", (1, 8, 8, 10), (8, 3, 3, 10), (1, 8, 8, 8), conv_options(),
              weights="INT4")
    assert per_backend(op) == {M0: [368], M4: [368], M55: [384]}
    assert scratch_requests(op) == [720]


def test_conv_int16():
    # cols = 90. Scalar, DSP: 2 * 90 * 2 = 360 (no rounding). MVE: 4 * ceil(90/8) * 8 * 2
    # = 4 * 12 * 16 = 768. The kernel fetches the bias with AllocateTempOutputTensor, which
    # finds none, so an int32 bias still takes the CMSIS-NN path.
    bias = T("INT32", 8)
    op = conv("INT16", (1, 8, 8, 10), (8, 3, 3, 10), (1, 8, 8, 8), conv_options(), bias)
    assert per_backend(op) == {M0: [360], M4: [360], M55: [768]}


def test_conv_1x1_fast_buffer_only_under_armclang_dsp():
    op = conv("INT8", (1, 4, 4, 12), (8, 1, 1, 12), (1, 4, 4, 8),
              conv_options(schema.Padding.VALID))
    armclang = {f"{b.name}-armclang": CmsisNnBuild(b, Compiler.ARMCLANG) for b in Backend}
    # GCC: arm_convolve_1x1_s8_fast_get_buffer_size_dsp returns 0, so no request; Arm
    # Compiler 6 on DSP keeps 2 * 12 channels of int16 = 48.
    assert per_backend(op, **armclang) == {
        M0: [], M4: [], M55: [], "SCALAR-armclang": [], "DSP-armclang": [48],
        "MVE-armclang": []}
    strided = conv("INT8", (1, 4, 4, 12), (8, 1, 1, 12), (1, 2, 2, 8),
                   conv_options(schema.Padding.VALID, stride=(2, 2)))
    assert cmsis_nn_requests(strided, CmsisNnBuild(Backend.DSP, Compiler.ARMCLANG)) == []


def test_conv_1xn():
    # One row, 1x3 filter, 8 channels: stride 1 * 8 % 4 == 0, so the 1xN kernel.
    # SAME: out width 10, total padding 9 + 3 - 10 = 2, pad 1. Scalar, DSP: im2col of
    # 3 * 8 = 24 columns: 2 * 24 * 2 = 96. MVE: asym 0, right 1, left 1, unpadded 8 (sum
    # 10 = width): max(3*8 + 1*8, 2*8 + 1*8) = 32.
    op = conv("INT8", (1, 1, 10, 8), (4, 1, 3, 8), (1, 1, 10, 4), conv_options())
    assert per_backend(op) == {M0: [96], M4: [96], M55: [32]}
    # VALID: width 8, no padding: max(24 + 0, 16 + 0) = 24 on MVE.
    valid = conv("INT8", (1, 1, 10, 8), (4, 1, 3, 8), (1, 1, 8, 4),
                 conv_options(schema.Padding.VALID))
    assert per_backend(valid) == {M0: [96], M4: [96], M55: [24]}


def test_conv_float_requests_nothing():
    op = conv("FLOAT32", (1, 8, 8, 10), (8, 3, 3, 10), (1, 8, 8, 8), conv_options())
    assert per_backend(op) == {M0: [], M4: [], M55: []}


# --- DEPTHWISE_CONV_2D ----------------------------------------------------------------------

def depthwise(x, w, y, options, weights="INT8"):
    return OpView("DEPTHWISE_CONV_2D", (T("INT8", *x), T(weights, *w)), (T("INT8", *y),),
                  options)


def test_depthwise_3x3():
    op = depthwise((1, 8, 8, 16), (1, 3, 3, 16), (1, 8, 8, 16), conv_options(depthwise=True))
    # SAME 3x3: padding 1. Scalar: no buffer; DSP: the 3x3 kernel (padding <= 1) needs
    # none; MVE: 4 * CH_IN_BLOCK_MVE (124) * 3 * 3 = 4464.
    assert per_backend(op) == {M0: [], M4: [], M55: [4464]}


def test_depthwise_5x5():
    op = depthwise((1, 8, 8, 16), (1, 5, 5, 16), (1, 8, 8, 16), conv_options(depthwise=True))
    # DSP: 16 channels * 5 * 5 int16 = 800; MVE: 4 * 124 * 25 = 12400.
    assert per_backend(op) == {M0: [], M4: [800], M55: [12400]}


def test_depthwise_int4_takes_the_dsp_buffer_even_on_a_scalar_core():
    op = depthwise((1, 8, 8, 16), (1, 3, 3, 16), (1, 8, 8, 16), conv_options(depthwise=True),
                   weights="INT4")
    # arm_depthwise_conv_s4_opt_get_buffer_size: without MVE the DSP size, 16 * 3 * 3 * 2
    # = 288, and no 3x3 exception; MVE 4464 as int8.
    assert per_backend(op) == {M0: [288], M4: [288], M55: [4464]}


def test_depthwise_with_multiplier_or_batch_needs_no_buffer():
    multiplier = depthwise((1, 8, 8, 8), (1, 5, 5, 16), (1, 8, 8, 16),
                           conv_options(depthwise=True))
    batch = depthwise((2, 8, 8, 16), (1, 5, 5, 16), (2, 8, 8, 16),
                      conv_options(depthwise=True))
    dilated = depthwise((1, 8, 8, 16), (1, 5, 5, 16), (1, 8, 8, 16),
                        conv_options(dilation=(2, 2), depthwise=True))
    for op in (multiplier, batch, dilated):
        assert per_backend(op) == {M0: [], M4: [], M55: []}


def test_depthwise_one_input_channel_runs_as_a_convolution_on_mve():
    op = depthwise((1, 10, 10, 1), (1, 3, 3, 8), (1, 10, 10, 8), conv_options(depthwise=True))
    # MVE, GCC: 8 outputs > threshold 1: the convolution's im2col, 4 * ceil(1*3*3/16) * 16
    # = 64, plus the reordered weights 8 * 3 * 3 = 72: 136. Arm Compiler 6's threshold is
    # 8, not exceeded, and 1 input != 8 output channels: no buffer.
    armclang = CmsisNnBuild(Backend.MVE, Compiler.ARMCLANG)
    assert per_backend(op, armclang=armclang) == {M0: [], M4: [], M55: [136], "armclang": []}


def test_depthwise_int16_and_float_request_nothing():
    for dtype in ("INT16", "FLOAT32"):
        op = OpView("DEPTHWISE_CONV_2D", (T(dtype, 1, 8, 8, 16), T("INT8", 1, 5, 5, 16)),
                    (T(dtype, 1, 8, 8, 16),), conv_options(depthwise=True))
        assert per_backend(op) == {M0: [], M4: [], M55: []}


# --- FULLY_CONNECTED ------------------------------------------------------------------------

def fc(x, w, y, *, constant=True, scales=1, dtype="INT8", weights="INT8", bias=True):
    b = T("INT32", w[0], constant=constant) if bias else None
    return OpView("FULLY_CONNECTED",
                  (T(dtype, *x), T(weights, *w, constant=constant, scales=scales), b),
                  (T(dtype, *y),), schema.FullyConnectedOptionsT())


def test_fully_connected_kernel_sums_on_mve():
    size = CmsisNnBuild(Backend.MVE, optimization=Optimization.SIZE)
    # MVE: 10 outputs * int32 = 40. Built for speed with constant weights and bias the
    # sums are persistent; for size, or with weights computed at run time, scratch.
    assert per_backend(fc((1, 32), (10, 32), (1, 10)), size=size) == {
        M0: [], M4: [], M55: [], "size": [40]}
    assert per_backend(fc((1, 32), (10, 32), (1, 10), constant=False)) == {
        M0: [], M4: [], M55: [40]}


def test_fully_connected_as_1x1_convolution():
    # Output of rank 3 and accumulation depth 32 % 4 == 0: the 1x1 path. Per-tensor
    # weights: a table of 10 outputs x 2 int32 = 80, then the 1x1 buffer (GCC: 0; Arm
    # Compiler 6 on DSP: 2 * 32 * 2 = 128). Per-channel weights: no table.
    armclang = CmsisNnBuild(Backend.DSP, Compiler.ARMCLANG)
    per_tensor = fc((1, 5, 32), (10, 32), (1, 5, 10))
    per_channel = fc((1, 5, 32), (10, 32), (1, 5, 10), scales=10)
    assert per_backend(per_tensor, armclang=armclang) == {
        M0: [80], M4: [80], M55: [80], "armclang": [80, 128]}
    assert per_backend(per_channel, armclang=armclang) == {
        M0: [], M4: [], M55: [], "armclang": [128]}
    # Depth 30 is no multiple of 4: the plain kernel, MVE sums of 10 int32 (non-constant).
    odd = fc((1, 5, 30), (10, 30), (1, 5, 10), constant=False)
    assert per_backend(odd) == {M0: [], M4: [], M55: [40]}


def test_fully_connected_int16_int4_and_float_request_nothing():
    cases = [fc((1, 32), (10, 32), (1, 10), dtype="INT16", constant=False),
             fc((1, 32), (10, 32), (1, 10), weights="INT4", constant=False),
             fc((1, 32), (10, 32), (1, 10), dtype="FLOAT32", weights="FLOAT32")]
    for op in cases:
        assert per_backend(op) == {M0: [], M4: [], M55: []}


# --- pooling --------------------------------------------------------------------------------

def test_average_pool_on_dsp():
    for dtype in ("INT8", "INT16"):
        op = OpView("AVERAGE_POOL_2D", (T(dtype, 1, 8, 8, 24),), (T(dtype, 1, 4, 4, 24),),
                    schema.Pool2DOptionsT())
        # DSP: one int32 sum per channel, 24 * 4 = 96; scalar and MVE: none.
        assert per_backend(op) == {M0: [], M4: [96], M55: []}
    floats = OpView("AVERAGE_POOL_2D", (T("FLOAT32", 1, 8, 8, 24),),
                    (T("FLOAT32", 1, 4, 4, 24),), schema.Pool2DOptionsT())
    max_pool = OpView("MAX_POOL_2D", (T("INT8", 1, 8, 8, 24),), (T("INT8", 1, 4, 4, 24),),
                      schema.Pool2DOptionsT())
    assert cmsis_nn_requests(floats, M4) == [] and cmsis_nn_requests(max_pool, M4) == []


# --- SVDF -----------------------------------------------------------------------------------

def svdf(dtype="INT8", constant=True):
    options = schema.SVDFOptionsT()
    options.rank = 2
    return OpView("SVDF", (T(dtype, 2, 8), T(dtype, 8, 8, constant=constant)),
                  (T(dtype, 2, 4),), options)


def test_svdf():
    size = CmsisNnBuild(Backend.MVE, optimization=Optimization.SIZE)
    # int8, batch 2, 8 filters, rank 2 (4 units): 2 * 8 * 4 = 64 and 2 * 4 * 4 = 32 as the
    # reference kernel; MVE's kernel sums, 8 filters * int32 = 32, are persistent when
    # built for speed and a third request when built for size.
    assert per_backend(svdf(), size=size) == {
        M0: [64, 32], M4: [64, 32], M55: [64, 32], "size": [64, 32, 32]}
    # float: 2 * 8 floats = 64, every backend.
    assert per_backend(svdf("FLOAT32")) == {M0: [64], M4: [64], M55: [64]}


def test_svdf_for_speed_needs_constant_weights():
    with pytest.raises(ScratchModelError, match="constant"):
        cmsis_nn_requests(svdf(constant=False), M55)
    assert cmsis_nn_requests(svdf(constant=False), M4) == [64, 32]  # no sums without MVE


# --- TRANSPOSE_CONV -------------------------------------------------------------------------

def transpose_conv(dtype, w, x, y, stride, bias=None):
    o = schema.TransposeConvOptionsT()
    o.padding, (o.strideH, o.strideW) = schema.Padding.SAME, stride
    return OpView("TRANSPOSE_CONV", (T("INT32", 4), T("INT8", *w), T(dtype, *x), bias),
                  (T(dtype, *y),), o)


def test_transpose_conv_reversed_convolution():
    # 20 input channels > 16 and stride 2: the reversed convolution over the upsampled
    # input. cols = 20 * 3 * 3 = 180: scalar, DSP 2 * 180 * 2 = 720, MVE 4 * ceil(180/16)
    # * 16 = 768. Reversed filter: 20 * 3 * 3 * 8 = 1440 on every backend.
    op = transpose_conv("INT8", (8, 3, 3, 20), (1, 4, 4, 20), (1, 8, 8, 8), (2, 2))
    assert per_backend(op) == {M0: [720, 1440], M4: [720, 1440], M55: [768, 1440]}


def test_transpose_conv_row_accumulators():
    # 8 input channels: int32 accumulators for max(3, stride_h) rows of
    # ((4 - 1) * stride_w + max(3, stride_h)) * 8 outputs: (6 + 3) * 8 * 3 * 4 = 864; the
    # reversed filter is still requested, with 0 bytes.
    op = transpose_conv("INT8", (8, 3, 3, 8), (1, 4, 4, 8), (1, 8, 8, 8), (2, 2))
    assert per_backend(op) == {M0: [864, 0], M4: [864, 0], M55: [864, 0]}
    # CMSIS-NN widens the row by the *height* stride: stride (4, 1) gives
    # ((4 - 1) * 1 + max(3, 4)) * 8 = 56 per row, 4 rows: 56 * 4 * 4 = 896.
    tall = transpose_conv("INT8", (8, 3, 3, 8), (1, 4, 4, 8), (1, 16, 4, 8), (4, 1))
    assert cmsis_nn_requests(tall, M4) == [896, 0]


def test_transpose_conv_int16_requests_accumulator_then_bias():
    op = transpose_conv("INT16", (8, 3, 3, 8), (1, 4, 4, 8), (1, 8, 8, 8), (2, 2),
                        bias=T("INT16", 8))
    # int64 accumulators, 8 * 8 * 8 * 8 = 4096, then the int64 bias, 8 * 8 = 64 (the
    # reference kernel asks in the other order).
    assert per_backend(op) == {M0: [4096, 64], M4: [4096, 64], M55: [4096, 64]}
    assert scratch_requests(op) == [64, 4096]


# --- BATCH_MATMUL, LSTM ---------------------------------------------------------------------

def test_batch_matmul_kernel_sums_on_mve():
    o = schema.BatchMatMulOptionsT()
    op = OpView("BATCH_MATMUL", (T("INT8", 2, 4, 16), T("INT8", 2, 16, 12)),
                (T("INT8", 2, 4, 12),), o)
    # 12 output columns * int32 = 48 on MVE.
    assert per_backend(op) == {M0: [], M4: [], M55: [48]}
    o.adjY = True  # the columns are then the rhs's second-to-last dimension
    adjoint = OpView("BATCH_MATMUL", (T("INT8", 2, 4, 16), T("INT8", 2, 12, 16)),
                     (T("INT8", 2, 4, 12),), o)
    assert cmsis_nn_requests(adjoint, M55) == [48]
    floats = OpView("BATCH_MATMUL", (T("FLOAT32", 2, 4, 16), T("FLOAT32", 2, 16, 12)),
                    (T("FLOAT32", 2, 4, 12),), schema.BatchMatMulOptionsT())
    assert cmsis_nn_requests(floats, M55) == []


def lstm(dtype, cell):
    state = T(cell, 2, 8)
    inputs = (T(dtype, 2, 3, 4), *([None] * 17), T(dtype, 2, 8), state)
    return OpView("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, (T(dtype, 2, 3, 8),),
                  schema.UnidirectionalSequenceLSTMOptionsT())


def test_lstm_integer_kernel_needs_three_buffers():
    # batch 2 x state 8 cells: int16 cells 2 * 8 * 2 = 32, three of them for CMSIS-NN's
    # integer kernel; float cells 2 * 8 * 4 = 64, four as the reference kernel.
    assert per_backend(lstm("INT8", "INT16")) == {M0: [32] * 3, M4: [32] * 3, M55: [32] * 3}
    assert cmsis_nn_requests(lstm("INT16", "INT16"), M4) == [32] * 3
    assert cmsis_nn_requests(lstm("FLOAT32", "FLOAT32"), M4) == [64] * 4


# --- the entry point ------------------------------------------------------------------------

def test_scratch_requests_dispatches_to_cmsis_nn():
    op = depthwise((1, 8, 8, 16), (1, 5, 5, 16), (1, 8, 8, 16), conv_options(depthwise=True))
    assert scratch_requests(op) == []  # the reference kernel: int8 weights, nothing
    assert scratch_requests(op, KernelSet.CMSIS_NN, core="cortex-m4") == [800]
    assert scratch_requests(op, KernelSet.CMSIS_NN, core=MVE) == [12400]
    # An operator CMSIS-NN has no kernel for runs the reference one: MEAN's int32
    # accumulator (1 * 1 * 1 * 16 outputs) and the shape and axis copies.
    mean = OpView("MEAN", (T("INT8", 1, 8, 8, 16), T("INT32", 2)), (T("INT8", 1, 1, 1, 16),))
    assert cmsis_nn_requests(mean, M4) is None
    assert scratch_requests(mean, KernelSet.CMSIS_NN, core=M4) == scratch_requests(mean) \
        == [64, 16, 8]


def test_cmsis_nn_needs_a_known_core():
    op = depthwise((1, 8, 8, 16), (1, 5, 5, 16), (1, 8, 8, 16), conv_options(depthwise=True))
    with pytest.raises(ValueError, match="core"):
        scratch_requests(op, KernelSet.CMSIS_NN)
    with pytest.raises(UnknownCore, match="cortex-a53"):
        scratch_requests(op, KernelSet.CMSIS_NN, core="cortex-a53")


def test_every_cmsis_nn_kernel_is_covered():
    covered = {"CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED", "AVERAGE_POOL_2D",
               "MAX_POOL_2D", "SVDF", "TRANSPOSE_CONV", "BATCH_MATMUL",
               "UNIDIRECTIONAL_SEQUENCE_LSTM"}
    assert set(CMSIS_NN_OPERATORS) == covered


@pytest.mark.parametrize(("core", "backend"), [
    ("cortex-m0", Backend.SCALAR), ("Cortex-M0+", Backend.SCALAR), ("m3", Backend.SCALAR),
    ("cortex-m23", Backend.SCALAR), ("cortex-m4", Backend.DSP), ("cortex-m7", Backend.DSP),
    ("cortex-m33", Backend.DSP), ("cortex-m33+nodsp", Backend.SCALAR),
    ("cortex-m35p", Backend.DSP), ("cortex-m55", Backend.MVE),
    ("cortex-m55+nomve", Backend.DSP), ("cortex-m85", Backend.MVE),
])
def test_core_backends(core, backend):
    assert backend_for(core) is backend


def test_parsed_model_carries_constness_and_per_channel_scales():
    """The TFLite front end tells the kernels what TFLM's Prepare sees: constant weights
    and the number of quantization scales."""
    import tflite_ops

    from memplan.runtimes.tflm import model as tfl

    g = tflite_ops.Graph()
    x = g.tensor("x", (1, 5, 32), "int8", scale=0.1)
    w = g.weights("w", (10, 32), "int8", scale=0.1)
    g.tensors[w].quantization.scale = [0.1] * 10
    g.tensors[w].quantization.zeroPoint = [0] * 10
    y = g.tensor("y", (1, 5, 10), "int8", scale=0.1)
    options = schema.FullyConnectedOptionsT()
    options.keepNumDims = True
    g.op("FULLY_CONNECTED", [x, w, -1], [y], options=options,
         options_type=schema.BuiltinOptions.FullyConnectedOptions)
    g.inputs, g.outputs = [x], [y]
    model = tfl.parse_tflite(g.finish(), "fc.tflite")
    weights = model.tensors[w]
    assert weights.role is tfl.Role.CONSTANT and weights.scales == 10
    (op,) = model.ops
    # Per-channel weights on the 1x1 path: no quantization table (it would be 80 B).
    assert tfl._scratch_requests(op, list(model.tensors), "fc.tflite", KernelSet.CMSIS_NN,
                                 core=M4) == []
