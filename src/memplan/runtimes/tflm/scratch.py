"""Scratch buffers TFLM's kernels request in the arena's head, per operator.

A kernel's Prepare may call `RequestScratchBufferInArena(bytes)`; TFLM then plans one
buffer of that size, live for the operator's allocation scope only, among the tensors
(`AllocationInfoBuilder`). An offline plan that leaves those buffers no room pushes them
above the plan's peak, so the planner has to know them. The sizes here are read from the
kernels' Prepare functions in tflite-micro's sources:

- `KernelSet.REFERENCE`: `tensorflow/lite/micro/kernels/*.cc` and
  `signal/micro/kernels/*.cc`, the kernels the tflite-micro Python interpreter runs
  (so `--check-run` measures exactly these);
- `KernelSet.CMSIS_NN`: `tensorflow/lite/micro/kernels/cmsis_nn/*.cc`, which ask for
  what CMSIS-NN's `arm_*_get_buffer_size` functions return. Those depend on the core's
  extension (scalar, DSP, MVE); see `memplan.runtimes.tflm.cmsis_nn_buffers`.

Every function returns the request sizes in the order the kernel makes them (TFLM adds
scratch buffers to its planner in request order, which decides ties in its greedy
order). A zero-byte request is kept: TFLM plans it too (it costs nothing).

Pointer-sized requests (ADD_N) are measured on the host: 8 bytes on the 64-bit host
interpreter, 4 on a Cortex-M; `pointer_bytes` selects.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import prod
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .cmsis_nn_buffers import CmsisNnBuild

# Bytes of a TfLiteType as TfLiteTypeSizeOf gives them (micro/memory_helpers.cc).
TYPE_BYTES = {
    "FLOAT16": 2, "BFLOAT16": 2, "FLOAT32": 4, "FLOAT64": 8, "INT16": 2, "INT32": 4,
    "UINT32": 4, "UINT8": 1, "UINT16": 2, "INT8": 1, "INT64": 8, "UINT64": 8, "BOOL": 1,
    "RESOURCE": 4, "COMPLEX64": 8, "COMPLEX128": 16, "INT4": 1,
}
INT = 4  # sizeof(int) and sizeof(int32_t) on every target TFLM supports


class KernelSet(enum.Enum):
    """Which of TFLM's kernel implementations the firmware links."""

    REFERENCE = "reference"
    CMSIS_NN = "cmsis-nn"


@dataclass(frozen=True)
class TensorInfo:
    """What a scratch size depends on: a tensor's type and shape; for CMSIS-NN's kernels
    also whether its data is in the model (TFLM's IsConstantTensor) and how many
    quantization scales it has (more than one: per-channel). The defaults are the
    cautious answers: a kernel asks for at least as much scratch as with the true ones."""

    dtype: str
    shape: tuple[int, ...]
    constant: bool = False
    scales: int = 0

    @property
    def elements(self) -> int:
        return prod(self.shape)


@dataclass(frozen=True)
class OpView:
    """An operator as its Prepare sees it: its tensors (None for an omitted optional
    input), its builtin options (the schema's object API, or None) and its custom options
    (a flexbuffer, for custom operators)."""

    name: str
    inputs: tuple[TensorInfo | None, ...]
    outputs: tuple[TensorInfo | None, ...]
    options: Any = None
    custom: bytes | None = None

    def input(self, i: int) -> TensorInfo | None:
        return self.inputs[i] if i < len(self.inputs) else None

    def output(self, i: int) -> TensorInfo | None:
        return self.outputs[i] if i < len(self.outputs) else None

    def custom_options(self) -> dict[str, Any]:
        """The custom options as a dictionary (empty when absent or not a map)."""
        if not self.custom:
            return {}
        from flatbuffers import flexbuffers

        try:
            value = flexbuffers.Loads(bytes(self.custom))
        except Exception:  # noqa: BLE001 - a corrupt flexbuffer: the kernel would refuse it
            return {}
        return value if isinstance(value, dict) else {}


class ScratchModelError(ValueError):
    """An operator whose scratch the kernel sources do not let us size (bad input)."""


def scratch_requests(op: OpView, kernels: KernelSet = KernelSet.REFERENCE, *,
                     pointer_bytes: int = 8, core: str | CmsisNnBuild | None = None
                     ) -> list[int]:
    """Bytes of each scratch buffer the chosen kernel for `op` requests, in order.

    With `KernelSet.CMSIS_NN`, `core` is required: a core name ("cortex-m55"; GCC and
    TFLM's default KERNELS_OPTIMIZED_FOR_SPEED build assumed) or a `CmsisNnBuild` that
    says the compiler and the kernels' optimization too."""
    if kernels is KernelSet.CMSIS_NN:
        from .cmsis_nn_buffers import cmsis_nn_requests

        found = cmsis_nn_requests(op, core=core)
        if found is not None:
            return found  # else CMSIS-NN uses the reference kernel for this operator
    rule = _REFERENCE.get(op.name)
    return [] if rule is None else rule(op, pointer_bytes)


def _filter_int4(op: OpView, _: int) -> list[int]:
    # CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED unpack int4 weights into a scratch buffer.
    weights = op.input(1)
    return [weights.elements] if weights is not None and weights.dtype == "INT4" else []


def _transpose_conv(op: OpView, _: int) -> list[int]:
    # Inputs: output shape, filter, input, bias. int16 activations with int16 bias widen the
    # bias to int64 first; the int8 and int16 paths accumulate the whole output in
    # int32 / int64 scratch.
    data, bias, out = op.input(2), op.input(3), op.output(0)
    if data is None or out is None:
        return []
    requests = []
    if data.dtype == "INT16" and bias is not None and bias.dtype == "INT16":
        requests.append(8 * bias.elements)
    wide = {"INT8": 4, "INT16": 8}.get(data.dtype)
    if wide is not None:
        requests.append(wide * out.elements)
    return requests


def _mean_or_sum(op: OpView, _: int) -> list[int]:
    data, axis, out = op.input(0), op.input(1), op.output(0)
    if data is None or axis is None or out is None:
        return []
    accumulator = [INT * out.elements] if data.dtype in ("INT8", "INT16") else []
    return [*accumulator, INT * len(data.shape), INT * axis.elements]


def _min_max_all(op: OpView, _: int) -> list[int]:
    data, axis = op.input(0), op.input(1)
    if data is None or axis is None:
        return []
    return [INT * len(data.shape), INT * axis.elements]


def _add_n(op: OpView, pointer_bytes: int) -> list[int]:
    out = op.output(0)
    if out is None or out.dtype not in ("FLOAT32", "INT8"):
        return []
    return [pointer_bytes * len(op.inputs)]  # one data pointer per input


def _mirror_pad(op: OpView, _: int) -> list[int]:
    data = op.input(0)
    return [] if data is None else [INT * len(data.shape)] * 2


def _svdf(op: OpView, _: int) -> list[int]:
    # svdf_common.cc PrepareSvdf: input [batch, input_size], weights_feature
    # [num_filters, input_size]; num_units = num_filters / rank.
    data, feature = op.input(0), op.input(1)
    if data is None or feature is None or len(data.shape) != 2 or not feature.shape:
        return []
    batch, filters = data.shape[0], feature.shape[0]
    rank = getattr(op.options, "rank", 0) or 0
    if data.dtype == "INT8":
        if rank <= 0 or filters % rank:
            raise ScratchModelError(f"SVDF rank {rank} does not divide its {filters} filters")
        return [INT * batch * filters, INT * batch * (filters // rank)]
    return [4 * batch * filters]  # float: sizeof(float) per filter and batch


def _lstm(op: OpView, _: int) -> list[int]:
    # unidirectional_sequence_lstm.cc: four buffers of batch x state_dimension cell-state
    # elements; batch from the input's shape (time-major or not), state_dimension from
    # the hidden (output) state, input 18; the cell state is input 19.
    data, hidden, cell = op.input(0), op.input(18), op.input(19)
    if data is None or hidden is None or cell is None or len(data.shape) < 3 \
            or len(hidden.shape) < 2:
        return []
    time_major = bool(getattr(op.options, "timeMajor", False))
    batch = data.shape[1] if time_major else data.shape[0]
    size = batch * hidden.shape[1] * TYPE_BYTES.get(cell.dtype, 0)
    return [size] * 4


def _detection_postprocess(op: OpView, _: int) -> list[int]:
    # detection_postprocess.cc Prepare: inputs box encodings [1, boxes, 4], class
    # predictions [1, boxes, classes + background], anchors; options in a flexbuffer.
    boxes_in, scores_in = op.input(0), op.input(1)
    if boxes_in is None or scores_in is None or len(boxes_in.shape) < 2 \
            or len(scores_in.shape) < 3:
        return []
    options = op.custom_options()
    max_detections = int(options.get("max_detections", 0))
    num_classes = int(options.get("num_classes", 0))
    boxes = boxes_in.shape[1]
    f, i = 4, INT  # sizeof(float), sizeof(int)
    return [
        boxes,  # active_candidate_idx: one byte per box
        boxes * 4 * f,  # decoded boxes: kNumCoordBox floats each
        scores_in.shape[1] * scores_in.shape[2] * f,  # scores
        boxes * f,  # score_buffer
        boxes * f,  # keep_scores
        max_detections * boxes * f,  # scores after regular NMS
        max_detections * boxes * f,  # sorted values
        boxes * i,  # keep_indices
        max_detections * boxes * i,  # sorted_indices
        max(num_classes, max_detections) * boxes * i,  # buffer
        min(boxes, max_detections) * boxes * i,  # selected
    ]


def _signal_rfft(op: OpView, _: int) -> list[int]:
    # signal/micro/kernels/rfft.cc: fft_length elements of the input's type (int16, int32
    # or float), fft_length from the flexbuffer options.
    data = op.input(0)
    if data is None:
        return []
    fft_length = int(op.custom_options().get("fft_length", 0))
    return [fft_length * TYPE_BYTES.get(data.dtype, 4)]


Rule = Callable[[OpView, int], list[int]]

_REFERENCE: dict[str, Rule] = {
    "CONV_2D": _filter_int4,
    "DEPTHWISE_CONV_2D": _filter_int4,
    "FULLY_CONNECTED": _filter_int4,
    "TRANSPOSE_CONV": _transpose_conv,
    "MEAN": _mean_or_sum,
    "SUM": _mean_or_sum,
    "REDUCE_MAX": _min_max_all,
    "REDUCE_MIN": _min_max_all,
    "REDUCE_ALL": _min_max_all,
    "ADD_N": _add_n,
    "MIRROR_PAD": _mirror_pad,
    "SVDF": _svdf,
    "UNIDIRECTIONAL_SEQUENCE_LSTM": _lstm,
    "CUSTOM:TFLite_Detection_PostProcess": _detection_postprocess,
    "CUSTOM:SignalRfft": _signal_rfft,
}

# Operators whose reference kernel requests scratch: the tests hold one case per name.
REFERENCE_OPERATORS: Sequence[str] = tuple(sorted(_REFERENCE))
