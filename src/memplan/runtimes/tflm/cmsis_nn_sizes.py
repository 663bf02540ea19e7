"""The scratch sizes CMSIS-NN's `arm_*_get_buffer_size` functions return, per core backend.

CMSIS-NN (ARM-software/CMSIS-NN at 4ab83cc, the revision tflite-micro pins in
`tools/make/ext_libs/cmsis_nn_download.sh`) picks one implementation of each operator at
compile time from the core's extensions: `ARM_MATH_MVEI` (Helium), else `ARM_MATH_DSP`,
else plain C. Its buffer-size functions follow the same `#if`s, so a size is a function
of the backend, not of the core. TFLM calls the unsuffixed functions, compiled for the
target; each function here is that function as the target's build sees it.

Two sizes also depend on the compiler: CMSIS-NN tests `__ARMCC_VERSION` (Arm Compiler 6)
for the DSP 1x1 convolution's buffer and for the MVE depthwise-to-convolution threshold.
`Compiler.GCC` stands for every other compiler (GCC, LLVM clang): the default.

Integer arithmetic is C's: `/` truncates toward zero, `%` keeps the dividend's sign
(`c_div`, `c_mod`), which matters where a total padding can be negative. Sizes are not
clamped to int32: a layer that large would overflow CMSIS-NN's int32_t first.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

INT8, INT16, INT32 = 1, 2, 4  # sizeof of CMSIS-NN's element types

# Input channels one MVE depthwise block handles (CH_IN_BLOCK_MVE in arm_nnsupportfunctions.h).
CH_IN_BLOCK_MVE = 124
# Above this many input channels a transpose convolution runs as a reversed convolution
# (REVERSE_TCOL_EFFICIENT_THRESHOLD).
REVERSE_TCOL_EFFICIENT_THRESHOLD = 16


class Backend(enum.Enum):
    """Which of CMSIS-NN's implementations the core's extensions select."""

    SCALAR = "scalar"  # no DSP extension: Cortex-M0, M0+, M3, M23
    DSP = "dsp"  # DSP extension (ARM_MATH_DSP): Cortex-M4, M7, M33, M35P
    MVE = "mve"  # Helium (ARM_MATH_MVEI, with DSP): Cortex-M52, M55, M85


class Compiler(enum.Enum):
    """The compiler as CMSIS-NN's `#if defined(__ARMCC_VERSION)` sees it."""

    GCC = "gcc"  # and every compiler that is not Arm Compiler 6 (LLVM clang too)
    ARMCLANG = "armclang"  # Arm Compiler 6 (armclang >= 6.10.50)


# The cores CMSIS-NN's own bindings resolve (Source/Bindings/arm_py_backend.cpp), and the
# Cortex-M52, which implements Helium as the M55 does.
CORE_BACKENDS: dict[str, Backend] = {
    "cortex-m0": Backend.SCALAR,
    "cortex-m0plus": Backend.SCALAR,
    "cortex-m3": Backend.SCALAR,
    "cortex-m23": Backend.SCALAR,
    "cortex-m4": Backend.DSP,
    "cortex-m7": Backend.DSP,
    "cortex-m33": Backend.DSP,
    "cortex-m35p": Backend.DSP,
    "cortex-m52": Backend.MVE,
    "cortex-m55": Backend.MVE,
    "cortex-m85": Backend.MVE,
}
# GCC's -mcpu feature suffixes that drop the extension a backend needs.
_DROPPED = {"nodsp": Backend.SCALAR, "nomve": Backend.DSP}
_RANK = {Backend.SCALAR: 0, Backend.DSP: 1, Backend.MVE: 2}


class UnknownCore(ValueError):
    """A core name that names no Cortex-M core CMSIS-NN knows."""


def backend_for(core: str) -> Backend:
    """The backend of a core named as GCC's -mcpu spells it ("cortex-m55", "cortex-m0plus",
    "cortex-m33+nodsp"); "m4" and "Cortex-M0+" are accepted too. A feature suffix that
    removes the DSP or MVE extension lowers the backend (an M33 built without DSP is
    scalar for CMSIS-NN)."""
    name, *features = core.strip().lower().split("+")
    if not name.startswith("cortex-"):
        name = "cortex-" + name
    if name.endswith("m0") and features[:1] == [""]:  # "cortex-m0+"
        name, features = name + "plus", features[1:]
    backend = CORE_BACKENDS.get(name)
    if backend is None:
        known = ", ".join(CORE_BACKENDS)
        raise UnknownCore(f"unknown core {core!r} (known: {known})")
    for feature in features:
        lowered = _DROPPED.get(feature)
        if lowered is not None and _RANK[lowered] < _RANK[backend]:
            backend = lowered
    return backend


@dataclass(frozen=True)
class Dims:
    """cmsis_nn_dims."""

    n: int
    h: int
    w: int
    c: int


@dataclass(frozen=True)
class ConvParams:
    """The parts of cmsis_nn_conv_params / cmsis_nn_dw_conv_params /
    cmsis_nn_transpose_conv_params that buffer sizes read, as (h, w) pairs."""

    padding: tuple[int, int] = (0, 0)
    stride: tuple[int, int] = (1, 1)
    dilation: tuple[int, int] = (1, 1)


def c_div(a: int, b: int) -> int:
    """C's integer division (truncates toward zero)."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def c_mod(a: int, b: int) -> int:
    """C's remainder: the sign of the dividend."""
    return a - b * c_div(a, b)


# --- convolution ---------------------------------------------------------------------------

def _is_1x1(p: ConvParams, input: Dims, filter: Dims) -> bool:
    return (p.padding == (0, 0) and filter.w == 1 and filter.h == 1
            and p.dilation == (1, 1) and input.c == filter.c)


def _is_1x1_fast(p: ConvParams) -> bool:
    return p.stride == (1, 1)


def _is_1_x_n(p: ConvParams, input: Dims, filter: Dims) -> bool:
    return (input.h == 1 and p.dilation[1] == 1 and filter.h == 1
            and c_mod(p.stride[1] * input.c, 4) == 0 and input.c == filter.c)


def convolve_s8(backend: Backend, input: Dims, filter: Dims) -> int:
    """arm_convolve_s8_get_buffer_size: the im2col buffer of the general convolution."""
    cols = input.c * filter.w * filter.h
    if backend is Backend.MVE:
        # four im2col columns, each padded to whole 16-byte Q registers
        return 4 * c_div(cols + 15, 16) * 16 * INT8
    aligned = cols + (4 - cols % 4) % 4  # two int16 columns, each rounded up to 4
    return 2 * aligned * INT16


def convolve_1x1_s8_fast(backend: Backend, input: Dims,
                         compiler: Compiler = Compiler.GCC) -> int:
    """arm_convolve_1x1_s8_fast_get_buffer_size: only the DSP build under Arm Compiler 6
    asks for a buffer (two int16 rows of input channels)."""
    if backend is Backend.DSP and compiler is Compiler.ARMCLANG:
        return 2 * input.c * INT16
    return 0


def _convolve_1_x_n_s8_mve(p: ConvParams, input: Dims, filter: Dims, output: Dims) -> int:
    # The kernel splits an output row into left-padded, unpadded and right-padded
    # windows and copies the padded ones; when the parts do not add up to the row it
    # runs as the general convolution.
    pad_x, stride_x = p.padding[1], p.stride[1]
    asym_pad = c_mod((output.w - 1) * stride_x + filter.w - input.w, 2)
    right = max(1, c_div(pad_x + asym_pad + stride_x - 1, stride_x)) \
        if pad_x + asym_pad != 0 else 0
    left = max(1, c_div(pad_x + stride_x - 1, stride_x)) if pad_x != 0 else 0
    if right + max(output.w - (right + left), 0) + left != output.w:
        return convolve_s8(Backend.MVE, input, filter)
    pad_left = pad_x * input.c
    pad_right = right * input.c if asym_pad else pad_left
    elems_left = filter.w * input.c
    return max(elems_left + pad_left, elems_left - input.c + pad_right)


def convolve_wrapper_s8(backend: Backend, p: ConvParams, input: Dims, filter: Dims,
                        output: Dims, compiler: Compiler = Compiler.GCC) -> int:
    """arm_convolve_wrapper_s8_get_buffer_size: the buffer of the kernel the wrapper picks
    (1x1, 1xN or general)."""
    if _is_1x1(p, input, filter):
        return convolve_1x1_s8_fast(backend, input, compiler) if _is_1x1_fast(p) else 0
    if _is_1_x_n(p, input, filter):
        if backend is Backend.MVE:
            return _convolve_1_x_n_s8_mve(p, input, filter, output)
        return convolve_s8(backend, input, filter)  # arm_convolve_1_x_n_s8 is im2col
    return convolve_s8(backend, input, filter)


def convolve_wrapper_s16(backend: Backend, input: Dims, filter: Dims) -> int:
    """arm_convolve_wrapper_s16_get_buffer_size: always the general kernel's im2col."""
    cols = input.c * filter.w * filter.h
    if backend is Backend.MVE:
        return 4 * c_div(cols + 7, 8) * 8 * INT16  # whole 8-lane int16 Q registers
    return 2 * cols * INT16


# --- depthwise convolution -----------------------------------------------------------------

def _dw_opt_s8(backend: Backend, input: Dims, filter: Dims) -> int:
    """arm_depthwise_conv_s8_opt_get_buffer_size."""
    if backend is Backend.MVE:
        return 4 * CH_IN_BLOCK_MVE * filter.w * filter.h * INT8
    if backend is Backend.DSP:
        return input.c * filter.w * filter.h * INT16
    return 0


def _dw_to_conv_threshold(compiler: Compiler) -> int:
    # CONVERT_DW_CONV_WITH_ONE_INPUT_CH_AND_OUTPUT_CH_ABOVE_THRESHOLD
    return 8 if compiler is Compiler.ARMCLANG else 1


def _dw_opt_applies(p: ConvParams, input: Dims, output: Dims) -> bool:
    return input.c == output.c and input.n == 1 and p.dilation == (1, 1)


def depthwise_conv_wrapper_s8(backend: Backend, p: ConvParams, input: Dims, filter: Dims,
                              output: Dims, compiler: Compiler = Compiler.GCC) -> int:
    """arm_depthwise_conv_wrapper_s8_get_buffer_size. `filter` is as TFLM passes it:
    n = 1, c = output channels."""
    if backend is Backend.MVE and input.c == 1 and output.c > _dw_to_conv_threshold(compiler):
        # One input channel, many outputs: run as a regular convolution whose filter
        # is the depthwise one turned around, plus a copy of the reordered weights.
        as_conv = Dims(filter.c, filter.h, filter.w, filter.n)
        weights = filter.c * filter.h * filter.w * filter.n
        return convolve_wrapper_s8(Backend.MVE, p, input, as_conv, output, compiler) + weights
    if not _dw_opt_applies(p, input, output):
        return 0
    if backend is not Backend.MVE and filter.w == 3 and filter.h == 3 \
            and p.padding[0] <= 1 and p.padding[1] <= 1:
        return 0  # the 3x3 kernel works without a buffer
    return _dw_opt_s8(backend, input, filter)


def depthwise_conv_wrapper_s4(backend: Backend, p: ConvParams, input: Dims, filter: Dims,
                              output: Dims) -> int:
    """arm_depthwise_conv_wrapper_s4_get_buffer_size. Without MVE the int4 kernel takes
    the DSP buffer even on a scalar core (arm_depthwise_conv_s4_opt_get_buffer_size)."""
    if not _dw_opt_applies(p, input, output):
        return 0
    if backend is Backend.MVE:
        return _dw_opt_s8(Backend.MVE, input, filter)
    return _dw_opt_s8(Backend.DSP, input, filter)


# --- fully connected, SVDF, pooling --------------------------------------------------------

def fully_connected_s8(backend: Backend, filter: Dims) -> int:
    """arm_fully_connected_s8_get_buffer_size: MVE keeps one int32 kernel sum per output
    (filter.c); the others fold them in on the fly."""
    return filter.c * INT32 if backend is Backend.MVE else 0


def fully_connected_s16(backend: Backend, filter: Dims) -> int:
    """arm_fully_connected_s16_get_buffer_size: no buffer on any backend."""
    return 0


def svdf_s8(backend: Backend, weights_feature: Dims) -> int:
    """arm_svdf_s8_get_buffer_size: MVE keeps one int32 kernel sum per filter (n)."""
    return weights_feature.n * INT32 if backend is Backend.MVE else 0


def avgpool_s8(backend: Backend, output_width: int, channels: int) -> int:
    """arm_avgpool_s8_get_buffer_size: the DSP kernel sums a row of channels in int32."""
    return channels * INT32 if backend is Backend.DSP else 0


def avgpool_s16(backend: Backend, output_width: int, channels: int) -> int:
    """arm_avgpool_s16_get_buffer_size: as int8."""
    return channels * INT32 if backend is Backend.DSP else 0


# --- transpose convolution -----------------------------------------------------------------

def _reverse_conv(p: ConvParams, input: Dims) -> bool:
    # Stride at most 2 in both directions makes the reversed convolution possible, more
    # than REVERSE_TCOL_EFFICIENT_THRESHOLD input channels make it worth it.
    return p.stride[0] <= 2 and p.stride[1] <= 2 and input.c > REVERSE_TCOL_EFFICIENT_THRESHOLD


def transpose_conv_s8(backend: Backend, p: ConvParams, input: Dims, filter: Dims,
                      output: Dims) -> int:
    """arm_transpose_conv_s8_get_buffer_size: the reversed convolution's im2col over the
    upsampled input, or int32 accumulators for a band of output rows."""
    stride_h, stride_w = p.stride
    if _reverse_conv(p, input):
        upsampled = Dims(input.n, input.h * stride_h, input.w * stride_w, input.c)
        return convolve_s8(backend, upsampled, filter)
    # CMSIS-NN widens the row by max(filter width, stride *height*): kept as written.
    row = ((input.w - 1) * stride_w + max(filter.w, stride_h)) * output.c
    return row * max(filter.h, stride_h) * INT32


def transpose_conv_reverse_s8(p: ConvParams, input: Dims, filter: Dims) -> int:
    """arm_transpose_conv_s8_get_reverse_conv_buffer_size: the reversed filter, the same
    on every backend."""
    if _reverse_conv(p, input):
        return input.c * filter.w * filter.h * filter.n * INT8
    return 0
