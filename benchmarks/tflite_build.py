"""Build the TFLite benchmark and test models here, with random weights (nothing downloaded).

Runs in an environment with TensorFlow (memplan itself never imports it):

    python benchmarks/tflite_build.py OUT_DIR            # the benchmark models
    python benchmarks/tflite_build.py --tests tests/data # the small test models

Every model is converted by the TFLite converter; the int8 ones are fully quantized
(int8 inputs and outputs) with a random representative dataset. Seeds are fixed, so a
rebuild with the same TensorFlow gives the same files.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")


def _keras():
    import keras

    keras.utils.set_random_seed(14)
    return keras


def tiny_cnn(keras):
    """A 16x16 CNN with a reshape: small enough to live in tests/data."""
    layers = keras.layers
    x = inp = keras.Input((16, 16, 1), batch_size=1)
    x = layers.Conv2D(8, 3, padding="same", activation="relu")(x)
    x = layers.DepthwiseConv2D(3, padding="same", activation="relu")(x)
    x = layers.Conv2D(16, 1, activation="relu")(x)
    x = layers.MaxPooling2D(2)(x)
    x = layers.Reshape((8 * 8 * 16,))(x)
    x = layers.Dense(10)(x)
    x = layers.Softmax()(x)
    return keras.Model(inp, x, name="tiny_cnn")


def ds_cnn(keras):
    """Keyword spotting DS-CNN (small), after ARM-software/ML-KWS-for-MCU: 49x10 MFCC input."""
    layers = keras.layers
    x = inp = keras.Input((49, 10, 1), batch_size=1)
    x = layers.Conv2D(64, (10, 4), strides=(2, 2), padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    for _ in range(4):
        x = layers.DepthwiseConv2D(3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        x = layers.Conv2D(64, 1, use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
    x = layers.AveragePooling2D((25, 5))(x)
    x = layers.Reshape((64,))(x)
    x = layers.Dense(12)(x)
    x = layers.Softmax()(x)
    return keras.Model(inp, x, name="ds_cnn")


def person_detect(keras):
    """Visual wake words / person detection: MobileNetV1 (alpha 0.25) on 96x96 grayscale."""
    layers = keras.layers

    def dw_block(x, filters, stride):
        x = layers.DepthwiseConv2D(3, strides=stride, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU(6.0)(x)
        x = layers.Conv2D(filters, 1, use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        return layers.ReLU(6.0)(x)

    x = inp = keras.Input((96, 96, 1), batch_size=1)
    x = layers.Conv2D(8, 3, strides=2, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU(6.0)(x)
    for filters, stride in [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2),
                            (128, 1), (128, 1), (128, 1), (128, 1), (128, 1), (256, 2),
                            (256, 1)]:
        x = dw_block(x, filters, stride)
    x = layers.GlobalAveragePooling2D()(x)
    x = layers.Reshape((1, 1, 256))(x)
    x = layers.Conv2D(2, 1)(x)
    # No softmax: with random weights the logits' int8 scale is beyond what TFLM's
    # softmax accepts (QuantizeMultiplierGreaterThanOne aborts).
    x = layers.Reshape((2,))(x)
    return keras.Model(inp, x, name="person_detect")


def mobilenet_v2(keras):
    """Keras applications MobileNetV2, alpha 0.35, 96x96 RGB, random weights."""
    net = keras.applications.MobileNetV2(
        input_shape=(96, 96, 3), alpha=0.35, weights=None, classes=10,
        classifier_activation=None)  # see person_detect: no softmax on random logits
    inp = keras.Input((96, 96, 3), batch_size=1)  # a static batch: TFLM plans static shapes
    return keras.Model(inp, net(inp), name="mobilenet_v2")


def tiny_transformer(keras, tokens: int = 16, width: int = 32, name="tiny_transformer"):
    """One encoder block (2 heads) over `tokens` tokens, with a classifier head."""
    layers = keras.layers
    x = inp = keras.Input((tokens, width), batch_size=1)
    att = layers.MultiHeadAttention(num_heads=2, key_dim=width // 2)(x, x)
    x = layers.LayerNormalization()(x + att)
    ff = layers.Dense(2 * width, activation="relu")(x)
    ff = layers.Dense(width)(ff)
    x = layers.LayerNormalization()(x + ff)
    x = layers.Reshape((tokens * width,))(x)
    x = layers.Dense(4)(x)
    return keras.Model(inp, x, name=name)


def small_transformer(keras):
    """Two encoder blocks (2 heads, width 64) over 64 tokens: attention maps of 64x64 per
    head, the largest tensors, beside long-lived residual streams."""
    layers = keras.layers
    x = inp = keras.Input((64, 64), batch_size=1)
    for _ in range(2):
        att = layers.MultiHeadAttention(num_heads=2, key_dim=32)(x, x)
        x = layers.LayerNormalization()(x + att)
        ff = layers.Dense(128, activation="relu")(x)
        ff = layers.Dense(64)(ff)
        x = layers.LayerNormalization()(x + ff)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dense(4)(x)
    return keras.Model(inp, x, name="small_transformer")


def tiny_attention(keras):
    """The encoder block at 8 tokens of width 16: a test model where TFLM's greedy
    planner is above the bound."""
    return tiny_transformer(keras, tokens=8, width=16, name="tiny_attention")


def squeezenet_mini(keras):
    """SqueezeNet-style fire modules (squeeze 1x1, expand 1x1 and 3x3, concatenated) on
    64x64 RGB: branches whose outputs live together, unlike a plain chain."""
    layers = keras.layers

    def fire(x, squeeze, expand):
        s = layers.Conv2D(squeeze, 1, activation="relu")(x)
        a = layers.Conv2D(expand, 1, activation="relu")(s)
        b = layers.Conv2D(expand, 3, padding="same", activation="relu")(s)
        return layers.Concatenate()([a, b])

    x = inp = keras.Input((64, 64, 3), batch_size=1)
    x = layers.Conv2D(32, 3, strides=2, padding="same", activation="relu")(x)
    x = layers.MaxPooling2D(2)(x)
    x = fire(x, 8, 32)
    x = fire(x, 8, 32)
    x = layers.MaxPooling2D(2)(x)
    x = fire(x, 16, 64)
    x = layers.Conv2D(10, 1)(x)
    x = layers.AveragePooling2D(8)(x)
    x = layers.Reshape((10,))(x)
    return keras.Model(inp, x, name="squeezenet_mini")


def unet_mini(keras):
    """A small U-Net (three levels, skip connections concatenated on the way up) on 48x48
    grayscale: long-lived skips of many sizes, where a size-ordered greedy planner can
    leave holes."""
    layers = keras.layers

    def block(x, filters):
        x = layers.Conv2D(filters, 3, padding="same", activation="relu")(x)
        return layers.Conv2D(filters, 3, padding="same", activation="relu")(x)

    x = inp = keras.Input((48, 48, 1), batch_size=1)
    skips = []
    for filters in (8, 16, 32):
        x = block(x, filters)
        skips.append(x)
        x = layers.MaxPooling2D(2)(x)
    x = block(x, 64)
    for filters, skip in zip((32, 16, 8), reversed(skips), strict=True):
        x = layers.Conv2DTranspose(filters, 2, strides=2)(x)
        x = layers.Concatenate()([x, skip])
        x = block(x, filters)
    x = layers.Conv2D(2, 1)(x)
    return keras.Model(inp, x, name="unet_mini")


def convert(model, quantize: bool, *, float_input: bool = False) -> bytes:
    """The Keras model as a .tflite file; `quantize`: int8 throughout with int8 output,
    and an int8 input unless `float_input` (then the graph's first operator is the
    QUANTIZE of the float input, as MCUNet's released models have it)."""
    import numpy as np
    import tensorflow as tf

    shape = [int(d) for d in model.inputs[0].shape]
    rng = np.random.default_rng(14)

    def representative():
        for _ in range(16):
            yield [rng.uniform(-1.0, 1.0, size=shape).astype(np.float32)]

    converter = tf.lite.TFLiteConverter.from_keras_model(model)
    if quantize:
        converter.optimizations = [tf.lite.Optimize.DEFAULT]
        converter.representative_dataset = representative
        converter.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
        converter.inference_input_type = tf.float32 if float_input else tf.int8
        converter.inference_output_type = tf.int8
    return converter.convert()


BENCHMARK = [
    ("ds_cnn", ds_cnn, (True, False)),
    ("person_detect", person_detect, (True,)),
    ("mobilenet_v2_0.35_96", mobilenet_v2, (True, False)),
    ("squeezenet_mini", squeezenet_mini, (True, False)),
    ("unet_mini", unet_mini, (True, False)),
    ("tiny_transformer", tiny_transformer, (True, False)),
    ("small_transformer", small_transformer, (True, False)),
    ("tiny_cnn", tiny_cnn, (True, False)),
]
TESTS = [("tiny_cnn", tiny_cnn, (True,)), ("tiny_attention", tiny_attention, (False,))]


def build(out: Path, models) -> None:
    keras = _keras()
    out.mkdir(parents=True, exist_ok=True)
    for name, make, kinds in models:
        for quantize in kinds:
            path = out / f"{name}_{'int8' if quantize else 'f32'}.tflite"
            keras.utils.set_random_seed(14)  # each model's weights independent of the others
            try:
                data = convert(make(keras), quantize)
            except Exception as err:  # a model the converter refuses is reported, not hidden
                print(f"{path.name}: conversion failed: {err}", file=sys.stderr)
                continue
            path.write_bytes(data)
            print(f"{path}  {len(data)} B")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--tests", action="store_true", help="only the small test models")
    args = parser.parse_args()
    build(args.out, TESTS if args.tests else BENCHMARK)


if __name__ == "__main__":
    main()
