"""Build small .tflite models operator by operator, through TFLM's own schema module.

The TFLite converter needs TensorFlow; these models need only the flatbuffer schema, so the
tests can make a model around any one kernel (its scratch requests, its options) with
random weights and run it under TFLM's interpreter.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import flatbuffers
import numpy as np
from flatbuffers import flexbuffers
from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

_TYPES = {"float32": schema.TensorType.FLOAT32, "int8": schema.TensorType.INT8,
          "int16": schema.TensorType.INT16, "int32": schema.TensorType.INT32,
          "int64": schema.TensorType.INT64,
          "resource": schema.TensorType.RESOURCE}


@dataclass
class Graph:
    """One subgraph under construction; `finish` packs the model."""

    rng: np.random.Generator = field(default_factory=lambda: np.random.default_rng(0))
    tensors: list = field(default_factory=list)
    buffers: list = field(default_factory=lambda: [schema.BufferT()])  # buffer 0: empty
    ops: list = field(default_factory=list)
    codes: list = field(default_factory=list)
    inputs: list[int] = field(default_factory=list)
    outputs: list[int] = field(default_factory=list)

    def tensor(self, name: str, shape, dtype: str = "float32", *, data=None,
               variable: bool = False, scale: float | None = None, zero_point: int = 0) -> int:
        t = schema.TensorT()
        t.name, t.shape, t.type, t.isVariable = name, list(shape), _TYPES[dtype], variable
        t.buffer = 0
        if data is not None:
            buffer = schema.BufferT()
            buffer.data = np.frombuffer(np.ascontiguousarray(data, dtype=dtype).tobytes(),
                                        dtype=np.uint8)
            self.buffers.append(buffer)
            t.buffer = len(self.buffers) - 1
        if scale is not None:
            q = schema.QuantizationParametersT()
            q.scale, q.zeroPoint = [scale], [zero_point]
            t.quantization = q
        self.tensors.append(t)
        return len(self.tensors) - 1

    def weights(self, name: str, shape, dtype: str = "float32", **quant) -> int:
        if dtype == "float32":
            data = self.rng.uniform(-0.5, 0.5, size=shape).astype(np.float32)
        else:
            info = np.iinfo(dtype)
            data = self.rng.integers(info.min // 4, info.max // 4, size=shape, dtype=dtype)
        return self.tensor(name, shape, dtype, data=data, **quant)

    def op(self, name: str, inputs, outputs, *, options=None, options_type: int = 0,
           custom: dict | None = None) -> None:
        code = schema.OperatorCodeT()
        if custom is not None or name not in vars(schema.BuiltinOperator):
            code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.CUSTOM
            code.customCode = name
        else:
            builtin = getattr(schema.BuiltinOperator, name)
            code.builtinCode, code.deprecatedBuiltinCode = builtin, min(builtin, 127)
        code.version = 1
        self.codes.append(code)
        op = schema.OperatorT()
        op.opcodeIndex = len(self.codes) - 1
        op.inputs, op.outputs = list(inputs), list(outputs)
        if options is not None:
            op.builtinOptionsType, op.builtinOptions = options_type, options
        if custom is not None:
            op.customOptions = list(flexbuffers.Dumps(custom))
            op.customOptionsFormat = schema.CustomOptionsFormat.FLEXBUFFERS
        self.ops.append(op)

    def finish(self) -> bytes:
        sg = schema.SubGraphT()
        sg.tensors, sg.operators = self.tensors, self.ops
        sg.inputs, sg.outputs = self.inputs, self.outputs
        model = schema.ModelT()
        model.version, model.subgraphs = 3, [sg]
        model.operatorCodes, model.buffers = self.codes, self.buffers
        builder = flatbuffers.Builder(1024)
        builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
        return bytes(builder.Output())


# --- one model per kernel that requests scratch -------------------------------------

def svdf(dtype: str = "float32", *, batch: int = 2, size: int = 8, filters: int = 8,
         rank: int = 2, memory: int = 4) -> bytes:
    g = Graph()
    units = filters // rank
    if dtype == "float32":
        x = g.tensor("x", [batch, size])
        wf = g.weights("weights_feature", [filters, size])
        wt = g.weights("weights_time", [filters, memory])
        bias = g.weights("bias", [units])
        state = g.tensor("state", [batch, memory * filters], variable=True)
        y = g.tensor("y", [batch, units])
    else:
        x = g.tensor("x", [batch, size], "int8", scale=0.05)
        wf = g.weights("weights_feature", [filters, size], "int8", scale=0.01)
        wt = g.weights("weights_time", [filters, memory], "int16", scale=0.001)
        bias = g.weights("bias", [units], "int32", scale=0.02 * 0.001)
        state = g.tensor("state", [batch, memory * filters], "int16", variable=True,
                         scale=0.02)
        y = g.tensor("y", [batch, units], "int8", scale=0.1)
    options = schema.SVDFOptionsT()
    options.rank = rank
    g.op("SVDF", [x, wf, wt, bias, state], [y], options=options,
         options_type=schema.BuiltinOptions.SVDFOptions)
    g.inputs, g.outputs = [x], [y]
    return g.finish()


def lstm(*, batch: int = 2, steps: int = 3, size: int = 4, units: int = 8) -> bytes:
    """A float UNIDIRECTIONAL_SEQUENCE_LSTM with all four gates, no peepholes or projection."""
    g = Graph()
    x = g.tensor("x", [batch, steps, size])
    gates = "input forget cell output".split()
    to_input = [g.weights(f"{k}_input_weights", [units, size]) for k in gates]
    to_recurrent = [g.weights(f"{k}_recurrent_weights", [units, units]) for k in gates]
    biases = [g.weights(f"{k}_bias", [units]) for k in gates]
    hidden = g.tensor("hidden_state", [batch, units], variable=True)
    cell = g.tensor("cell_state", [batch, units], variable=True)
    y = g.tensor("y", [batch, steps, units])
    inputs = [x, *to_input, *to_recurrent, -1, -1, -1, *biases, -1, -1, hidden, cell,
              -1, -1, -1, -1]
    options = schema.UnidirectionalSequenceLSTMOptionsT()
    options.fusedActivationFunction = schema.ActivationFunctionType.TANH
    g.op("UNIDIRECTIONAL_SEQUENCE_LSTM", inputs, [y], options=options,
         options_type=schema.BuiltinOptions.UnidirectionalSequenceLSTMOptions)
    g.inputs, g.outputs = [x], [y]
    return g.finish()


def detection_postprocess(*, boxes: int = 16, classes: int = 3,
                          max_detections: int = 4) -> bytes:
    g = Graph()
    encodings = g.tensor("box_encodings", [1, boxes, 4])
    scores = g.tensor("class_predictions", [1, boxes, classes + 1])
    anchors = g.tensor("anchors", [boxes, 4],
                       data=g.rng.uniform(0.2, 0.8, size=(boxes, 4)).astype(np.float32))
    out = [g.tensor("detection_boxes", [1, max_detections, 4]),
           g.tensor("detection_classes", [1, max_detections]),
           g.tensor("detection_scores", [1, max_detections]),
           g.tensor("num_detections", [1])]
    g.op("TFLite_Detection_PostProcess", [encodings, scores, anchors], out, custom={
        "max_detections": max_detections, "max_classes_per_detection": 1,
        "detections_per_class": 100, "use_regular_nms": False,
        "nms_score_threshold": 0.0, "nms_iou_threshold": 0.5, "num_classes": classes,
        "y_scale": 10.0, "x_scale": 10.0, "h_scale": 5.0, "w_scale": 5.0})
    g.inputs, g.outputs = [encodings, scores], out
    return g.finish()


def rfft(*, fft_length: int = 256, frames: int = 2) -> bytes:
    """SignalRfft (the signal library's custom op) on int16 frames."""
    g = Graph()
    x = g.tensor("x", [frames, fft_length], "int16")
    y = g.tensor("y", [frames, fft_length + 2], "int16")
    g.op("SignalRfft", [x], [y], custom={"T": 7, "fft_length": fft_length})
    g.inputs, g.outputs = [x], [y]
    return g.finish()


def mirror_pad() -> bytes:
    g = Graph()
    x = g.tensor("x", [1, 4, 4, 2])
    pads = g.tensor("paddings", [4, 2], "int32",
                    data=np.array([[0, 0], [1, 1], [1, 1], [0, 0]], dtype=np.int32))
    y = g.tensor("y", [1, 6, 6, 2])
    options = schema.MirrorPadOptionsT()
    options.mode = schema.MirrorPadMode.REFLECT
    g.op("MIRROR_PAD", [x, pads], [y], options=options,
         options_type=schema.BuiltinOptions.MirrorPadOptions)
    g.inputs, g.outputs = [x], [y]
    return g.finish()


def add_n(count: int = 3) -> bytes:
    g = Graph()
    xs = [g.tensor(f"x{i}", [2, 8]) for i in range(count)]
    y = g.tensor("y", [2, 8])
    g.op("ADD_N", xs, [y], options=schema.AddNOptionsT(),
         options_type=schema.BuiltinOptions.AddNOptions)
    g.inputs, g.outputs = xs, [y]
    return g.finish()


def reduce(name: str, dtype: str = "float32") -> bytes:
    """MEAN / SUM / REDUCE_MAX / REDUCE_MIN over axes 1 and 2 of a rank-4 tensor."""
    g = Graph()
    quant = {"scale": 0.05} if dtype != "float32" else {}
    x = g.tensor("x", [2, 4, 4, 8], dtype, **quant)
    axis = g.tensor("axis", [2], "int32", data=np.array([1, 2], dtype=np.int32))
    y = g.tensor("y", [2, 1, 1, 8], dtype, **quant)
    options = schema.ReducerOptionsT()
    options.keepDims = True
    g.op(name, [x, axis], [y], options=options,
         options_type=schema.BuiltinOptions.ReducerOptions)
    g.inputs, g.outputs = [x], [y]
    return g.finish()


def transpose_conv(*, size: int = 4, channels: int = 4) -> bytes:
    """int8 TRANSPOSE_CONV: the whole output accumulates in int32 scratch."""
    g = Graph()
    x = g.tensor("x", [1, size, size, channels], "int8", scale=0.05)
    shape = g.tensor("output_shape", [4], "int32",
                     data=np.array([1, 2 * size, 2 * size, channels], dtype=np.int32))
    w = g.weights("filter", [channels, 3, 3, channels], "int8", scale=0.01)
    y = g.tensor("y", [1, 2 * size, 2 * size, channels], "int8", scale=0.1)
    options = schema.TransposeConvOptionsT()
    options.padding, options.strideW, options.strideH = schema.Padding.SAME, 2, 2
    g.op("TRANSPOSE_CONV", [shape, w, x], [y], options=options,
         options_type=schema.BuiltinOptions.TransposeConvOptions)
    g.inputs, g.outputs = [x], [y]
    return g.finish()


def resource_variable() -> bytes:
    """A resource variable whose handle (VAR_HANDLE's 4-byte output) is live at the peak."""
    g = Graph()
    x = g.tensor("x", [4, 16])
    handle = g.tensor("handle", [], "resource")
    w, y, z = (g.tensor(n, [4, 16]) for n in "wyz")
    var = schema.VarHandleOptionsT()
    var.sharedName = "v"
    g.op("VAR_HANDLE", [], [handle], options=var,
         options_type=schema.BuiltinOptions.VarHandleOptions)
    g.op("ASSIGN_VARIABLE", [handle, x], [], options=schema.AssignVariableOptionsT(),
         options_type=schema.BuiltinOptions.AssignVariableOptions)
    g.op("ADD", [x, x], [w], options=schema.AddOptionsT(),
         options_type=schema.BuiltinOptions.AddOptions)
    g.op("READ_VARIABLE", [handle], [y], options=schema.ReadVariableOptionsT(),
         options_type=schema.BuiltinOptions.ReadVariableOptions)
    g.op("ADD", [w, y], [z], options=schema.AddOptionsT(),
         options_type=schema.BuiltinOptions.AddOptions)
    g.inputs, g.outputs = [x], [z]
    return g.finish()


def two_adds() -> bytes:
    """w = x + x; z = w + x: x must survive the first add, so a plan that puts w on x's
    bytes changes z."""
    g = Graph()
    x, w, z = (g.tensor(n, [4, 16]) for n in "xwz")
    for ins, out in (([x, x], w), ([w, x], z)):
        g.op("ADD", ins, [out], options=schema.AddOptionsT(),
             options_type=schema.BuiltinOptions.AddOptions)
    g.inputs, g.outputs = [x], [z]
    return g.finish()


# --- models for the rewrites of issue 34 (tests/test_tflm_rewrites.py, benchmarks) ---

BINARY_OPTIONS = {
    "ADD": (schema.AddOptionsT, schema.BuiltinOptions.AddOptions),
    "SUB": (schema.SubOptionsT, schema.BuiltinOptions.SubOptions),
    "MUL": (schema.MulOptionsT, schema.BuiltinOptions.MulOptions),
    "MAXIMUM": (schema.MaximumMinimumOptionsT, schema.BuiltinOptions.MaximumMinimumOptions),
    "MINIMUM": (schema.MaximumMinimumOptionsT, schema.BuiltinOptions.MaximumMinimumOptions),
}
BINARY = tuple(BINARY_OPTIONS)


def _leaky_relu_options():
    options = schema.LeakyReluOptionsT()
    options.alpha = 0.2
    return options


UNARY_OPTIONS = {
    "LEAKY_RELU": (_leaky_relu_options, schema.BuiltinOptions.LeakyReluOptions),
    "HARD_SWISH": (schema.HardSwishOptionsT, schema.BuiltinOptions.HardSwishOptions),
}
# Quantization TFLM's integer kernels require of an output (LOGISTIC: 1/256 at -128, TANH
# 1/128; int16: 1/32768 at 0 for both).
INT8_OUT = {"LOGISTIC": (1 / 256, -128), "TANH": (1 / 128, 0)}
INT16_OUT = {"LOGISTIC": (1 / 32768, 0), "TANH": (1 / 32768, 0)}


def _grow(g: Graph, x: int, width: int, times: int, dtype: str, quant: dict) -> int:
    """The input repeated `times` times (CONCATENATION): a large tensor of its values."""
    t = g.tensor(f"t{len(g.tensors)}", [1, width * times], dtype, **quant)
    options = schema.ConcatenationOptionsT()
    options.axis = 1
    g.op("CONCATENATION", [x] * times, [t], options=options,
         options_type=schema.BuiltinOptions.ConcatenationOptions)
    return t


def kernel_model(kind: str, dtype: str, *, constant_first: bool = False,
                 out_dtype: str | None = None) -> bytes:
    """A small input repeated into a large tensor, then `kind` on it (for a binary kind, on two
    such tensors, or a constant and one): the kind's step holds the bound, so an output
    written over its input lowers it. `out_dtype` (QUANTIZE) narrows the output."""
    g = Graph()
    # TFLM's int16 kernels take symmetric quantization only (zero point 0).
    # int32 at a scale that maps its range (random inputs spread over it) to +-10.
    quant = {"int8": {"scale": 0.05, "zero_point": 3},
             "int16": {"scale": 0.0005, "zero_point": 0},
             "int32": {"scale": 5e-9, "zero_point": 0}}.get(dtype, {})
    width, times = 128, 8  # CONCATENATION takes at most 10 inputs
    x = g.tensor("x", [1, width], dtype, **quant)
    t = _grow(g, x, width, times, dtype, quant)
    out_quant = dict(quant)
    fixed = {"int8": INT8_OUT, "int16": INT16_OUT}.get(dtype, {})
    if kind in fixed:
        out_quant = dict(zip(("scale", "zero_point"), fixed[kind], strict=True))
    elif kind == "QUANTIZE":
        out_quant = {"int8": {"scale": 0.03, "zero_point": -5},
                     "int16": {"scale": 0.0003, "zero_point": 0}}[out_dtype or dtype]
    elif kind == "HARD_SWISH" and dtype == "int8":
        out_quant = {"scale": 0.03, "zero_point": -10}  # another scale: the int8 kernel rescales
    y = g.tensor("y", [1, width * times], out_dtype or dtype, **out_quant)
    if kind in BINARY:
        if constant_first:
            other = g.weights("c", [1, width * times], dtype, **quant)
            inputs = [other, t]
        else:
            inputs = [t, _grow(g, x, width, times, dtype, quant)]
        make, code = BINARY_OPTIONS[kind]
        g.op(kind, inputs, [y], options=make(), options_type=code)
    elif kind in UNARY_OPTIONS:
        make, code = UNARY_OPTIONS[kind]
        g.op(kind, [t], [y], options=make(), options_type=code)
    else:
        g.op(kind, [t], [y])
    g.inputs, g.outputs = [x], [y]
    return g.finish()


def branches_model() -> bytes:
    """Two branches from one input, the large one first in the operator list: running the
    other first leaves only its small result live while the large one runs."""
    g = Graph()
    x = g.tensor("x", [1, 64])

    def dense(src: int, n_in: int, n_out: int) -> int:
        w = g.weights(f"w{len(g.tensors)}", [n_out, n_in])
        y = g.tensor(f"d{len(g.tensors)}", [1, n_out])
        g.op("FULLY_CONNECTED", [src, w, -1], [y], options=schema.FullyConnectedOptionsT(),
             options_type=schema.BuiltinOptions.FullyConnectedOptions)
        return y

    a = dense(x, 64, 256)
    b1 = dense(x, 64, 256)
    b = dense(b1, 256, 16)
    c = dense(a, 256, 16)
    y = g.tensor("y", [1, 16])
    g.op("ADD", [b, c], [y], options=schema.AddOptionsT(),
         options_type=schema.BuiltinOptions.AddOptions)
    g.inputs, g.outputs = [x], [y]
    return g.finish()

# --- int8 CNNs with random weights (patch-by-patch rewrite, benchmarks) ---------------

_RELU6 = schema.ActivationFunctionType.RELU6


@dataclass
class Int8Net:
    """An int8 CNN under construction on a `Graph`: each layer's output scale is set from
    its accumulator's expected spread, so random weights give outputs spread over the
    int8 range rather than saturated (a comparison of saturated outputs proves little)."""

    g: Graph
    x: int  # the current activation
    shape: list[int]  # its [1, H, W, C]
    scale: float = 0.02
    count: int = 0
    # "int16": TFLM's int16x8 (int16 activations at zero point 0, int8 weights, int64
    # biases), at 1/256 of the int8 scale so the real values spread as far.
    dtype: str = "int8"

    @classmethod
    def start(cls, size: int, channels: int, seed: int = 0, dtype: str = "int8") -> Int8Net:
        g = Graph(rng=np.random.default_rng(seed))
        shape = [1, size, size, channels]
        scale = 0.02 if dtype == "int8" else 0.02 / 256
        x = g.tensor("input", shape, dtype, scale=scale)
        g.inputs = [x]
        return cls(g, x, shape, scale=scale, dtype=dtype)

    @classmethod
    def start_after(cls, lead: str, size: int, channels: int, seed: int = 0) -> Int8Net:
        """An image that reaches [1, H, W, C] through a leading layout operator, as converted
        models do: "RESHAPE" of a flat feature vector (micro_speech), "TRANSPOSE" from
        NCHW (a model converted from PyTorch), "QUANTIZE" of a float image (MCUNet)."""
        g = Graph(rng=np.random.default_rng(seed))
        shape = [1, size, size, channels]
        if lead == "RESHAPE":
            x = g.tensor("input", [1, size * size * channels], "int8", scale=0.02)
            new_shape = g.tensor("new_shape", [4], "int32", data=np.array(shape, np.int32))
            options = schema.ReshapeOptionsT()
            options.newShape = shape
            inputs, code = [x, new_shape], schema.BuiltinOptions.ReshapeOptions
        elif lead == "TRANSPOSE":
            x = g.tensor("input", [1, channels, size, size], "int8", scale=0.02)
            perm = g.tensor("perm", [4], "int32", data=np.array([0, 2, 3, 1], np.int32))
            options = schema.TransposeOptionsT()
            inputs, code = [x, perm], schema.BuiltinOptions.TransposeOptions
        else:
            x = g.tensor("input", shape, "float32")
            options, inputs, code = None, [x], 0
        y = g.tensor("image", shape, "int8", scale=0.02)
        g.op(lead, inputs, [y], options=options, options_type=code)
        g.inputs = [x]
        return cls(g, y, shape)

    def _out(self, shape, what: str) -> tuple[int, float]:
        self.count += 1
        return self.g.tensor(f"{what}_{self.count}", shape, self.dtype,
                             scale=self.scale), self.scale

    def _weights(self, shape, out_c: int, accumulated: int) -> tuple[int, int]:
        # int8 inputs spread ~50 and weights ~18 (uniform in +-32): the accumulator spreads
        # ~900 sqrt(K) units of input scale x weight scale; this weight scale gives an
        # output spread of ~40 at the input's scale, layer after layer.
        w_scale = float(40 / (900 * np.sqrt(accumulated)))
        w = self.g.tensor(f"w_{self.count}", shape, "int8", scale=w_scale,
                          data=self.g.rng.integers(-32, 33, size=shape, dtype=np.int8))
        bias = "int32" if self.dtype == "int8" else "int64"
        b = self.g.tensor(f"b_{self.count}", [out_c], bias,
                          scale=float(np.float32(self.scale)) * float(np.float32(w_scale)),
                          data=self.g.rng.integers(-500, 500, size=[out_c], dtype=bias))
        return w, b

    def conv(self, filters: int, kernel: int = 1, stride: int = 1, *, depthwise: bool = False,
             padding: str = "SAME", activation: int = _RELU6, dilation: int = 1,
             multiplier: int = 1) -> Int8Net:
        _, h, w, c = self.shape
        span = (kernel - 1) * dilation + 1
        if padding == "SAME":
            oh, ow = -(-h // stride), -(-w // stride)
        else:
            oh, ow = (h - span) // stride + 1, (w - span) // stride + 1
        if depthwise:
            filters = c * multiplier
            wt, bias = self._weights([1, kernel, kernel, filters], filters, kernel * kernel)
            options = schema.DepthwiseConv2DOptionsT()
            options.depthMultiplier = multiplier
            name, kind = "DEPTHWISE_CONV_2D", schema.BuiltinOptions.DepthwiseConv2DOptions
        else:
            wt, bias = self._weights([filters, kernel, kernel, c], filters, kernel * kernel * c)
            options = schema.Conv2DOptionsT()
            name, kind = "CONV_2D", schema.BuiltinOptions.Conv2DOptions
        options.padding = getattr(schema.Padding, padding)
        options.strideH = options.strideW = stride
        options.dilationHFactor = options.dilationWFactor = dilation
        options.fusedActivationFunction = activation
        shape = [1, oh, ow, filters]
        y, _ = self._out(shape, name.lower())
        self.g.op(name, [self.x, wt, bias], [y], options=options, options_type=kind)
        self.x, self.shape = y, shape
        return self

    def max_pool(self, size: int = 2, stride: int = 2, padding: str = "SAME") -> Int8Net:
        _, h, w, c = self.shape
        options = schema.Pool2DOptionsT()
        options.padding = getattr(schema.Padding, padding)
        options.strideH = options.strideW = stride
        options.filterHeight = options.filterWidth = size
        oh, ow = (-(-h // stride), -(-w // stride)) if padding == "SAME" else \
            ((h - size) // stride + 1, (w - size) // stride + 1)
        shape = [1, oh, ow, c]
        y = self.g.tensor(f"max_pool_{self.count}", shape, self.dtype, scale=self.scale)
        self.count += 1
        self.g.op("MAX_POOL_2D", [self.x], [y], options=options,
                  options_type=schema.BuiltinOptions.Pool2DOptions)
        self.x, self.shape = y, shape
        return self

    def pad(self, top: int, bottom: int, left: int, right: int) -> Int8Net:
        """An explicit PAD of the height and width (keras.applications' ZeroPadding2D)."""
        _, h, w, c = self.shape
        shape = [1, h + top + bottom, w + left + right, c]
        paddings = self.g.tensor(f"paddings_{self.count}", [4, 2], "int32", data=np.array(
            [[0, 0], [top, bottom], [left, right], [0, 0]], np.int32))
        y = self.g.tensor(f"pad_{self.count}", shape, self.dtype, scale=self.scale)
        self.count += 1
        self.g.op("PAD", [self.x, paddings], [y], options=schema.PadOptionsT(),
                  options_type=schema.BuiltinOptions.PadOptions)
        self.x, self.shape = y, shape
        return self

    def add(self, other: int, other_scale: float) -> Int8Net:
        scale = max(self.scale, other_scale) * 1.5
        self.count += 1
        y = self.g.tensor(f"add_{self.count}", self.shape, self.dtype, scale=scale)
        self.g.op("ADD", [self.x, other], [y], options=schema.AddOptionsT(),
                  options_type=schema.BuiltinOptions.AddOptions)
        self.x, self.scale = y, scale
        return self

    def head(self, classes: int) -> bytes:
        """Average over the image, then a fully connected layer to `classes` logits."""
        _, h, w, c = self.shape
        pool = schema.Pool2DOptionsT()
        pool.padding, pool.strideH, pool.strideW = schema.Padding.VALID, 1, 1
        pool.filterHeight, pool.filterWidth = h, w
        pooled = self.g.tensor("pooled", [1, 1, 1, c], "int8", scale=self.scale)
        self.g.op("AVERAGE_POOL_2D", [self.x], [pooled], options=pool,
                  options_type=schema.BuiltinOptions.Pool2DOptions)
        flat = self.g.tensor("flat", [1, c], "int8", scale=self.scale)
        shape = self.g.tensor("flat_shape", [2], "int32", data=np.array([1, c], np.int32))
        reshape = schema.ReshapeOptionsT()
        reshape.newShape = [1, c]
        self.g.op("RESHAPE", [pooled, shape], [flat], options=reshape,
                  options_type=schema.BuiltinOptions.ReshapeOptions)
        self.x, self.shape = flat, [1, 1, 1, c]
        wt, bias = self._weights([classes, c], classes, c)
        y, _ = self._out([1, classes], "logits")
        self.g.op("FULLY_CONNECTED", [flat, wt, bias], [y],
                  options=schema.FullyConnectedOptionsT(),
                  options_type=schema.BuiltinOptions.FullyConnectedOptions)
        self.g.outputs = [y]
        return self.g.finish()


def cnn5(size: int = 64, seed: int = 0, *, classify: bool = True) -> bytes:
    """Five convolutions on a size x size RGB image (two at full resolution), then a
    global average and a classifier (`classify`; else the last feature map is the
    output): the first layers hold most of the bytes."""
    net = Int8Net.start(size, 3, seed)
    net.conv(16, 3).conv(16, 3, depthwise=True).conv(24, 3, 2).max_pool()
    net.conv(32, 3, 2)
    if classify:
        return net.head(10)
    net.g.outputs = [net.x]
    return net.g.finish()


def _divisible(value: float, by: int = 8) -> int:
    rounded = max(by, int(value + by / 2) // by * by)
    return rounded + by if rounded < 0.9 * value else rounded


def mobilenet_v2(alpha: float = 0.35, size: int = 96, classes: int = 10, seed: int = 0) -> bytes:
    """MobileNetV2 (Sandler et al. 2018, as keras.applications builds it: inverted
    residual blocks, channel counts rounded to multiples of 8) in int8 with random weights;
    SAME padding throughout, where the converter would emit PAD before the strided convs."""
    net = Int8Net.start(size, 3, seed)
    net.conv(_divisible(32 * alpha), 3, 2)
    blocks = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1),
              (6, 160, 3, 2), (6, 320, 1, 1)]
    for expand, channels, repeats, stride in blocks:
        out = _divisible(channels * alpha)
        for i in range(repeats):
            inp, inp_scale, inp_c = net.x, net.scale, net.shape[3]
            if expand != 1:
                net.conv(inp_c * expand, 1)
            net.conv(0, 3, stride if i == 0 else 1, depthwise=True)
            net.conv(out, 1, activation=schema.ActivationFunctionType.NONE)
            if i > 0 and inp_c == out:
                net.add(inp, inp_scale)
    net.conv(1280 if alpha <= 1.0 else _divisible(1280 * alpha), 1)
    return net.head(classes)


def mobilenet_v1(alpha: float = 0.25, size: int = 96, channels: int = 1, classes: int = 2,
                 seed: int = 0) -> bytes:
    """MobileNetV1 (the person-detection / visual-wake-words shape) in int8, random weights."""
    net = Int8Net.start(size, channels, seed)
    net.conv(int(32 * alpha), 3, 2)
    for filters, stride in [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2),
                            (512, 1), (512, 1), (512, 1), (512, 1), (512, 1), (1024, 2),
                            (1024, 1)]:
        net.conv(0, 3, stride, depthwise=True).conv(int(filters * alpha), 1)
    return net.head(classes)
