"""Build the int8 .tflite models of issue 34's patch benchmark from Keras definitions, with
random weights (nothing downloaded), into a folder kept out of git.

Runs in an environment with TensorFlow (memplan itself never imports it; here
/work/tfenv, TensorFlow 2.21 with Keras 3):

    /work/tfenv/bin/python benchmarks/keras_tflite.py OUT_DIR [--only NAME ...] [--list]

then `python benchmarks/tflite_patches.py OUT_DIR` measures them. The models:
- MLPerf Tiny's three CNNs as mlcommons/tiny's training code defines them
  (benchmark/training/...): visual wake words (MobileNetV1, 8 filters first = alpha 0.25,
  96x96 RGB, SAME padding, ReLU), keyword spotting (DS-CNN: a 10x4 stride-2 convolution of
  64 filters, four depthwise-separable blocks, average pool, 12 classes; 49x10 MFCC input),
  image classification (ResNet-8 on 32x32 RGB, 16/32/64 filters, the 1x1 shortcuts);
- MobileNetV2 at widths 0.35 and 1.0 and resolutions 96-224, and MobileNetV1 (1.0 at 224,
  0.25 at 128), as keras.applications lays them out (ZeroPadding2D before each stride-2
  depthwise convolution: PAD operators in the .tflite);
- `mcunet_like_vww_80`: a network of MCUNet's search space (MobileNetV2 blocks with kernels
  3-7 and expansions 3-6, SAME padding) at 80x80 with a FLOAT input quantized in the graph,
  as MCUNet's released vww models take it. It is not one of MCUNet's networks: their
  configurations are downloaded by mit-han-lab/mcunet's model_zoo, not held in the
  repository.
No model ends in a softmax: with random weights the logits' int8 scale is beyond what
TFLM's softmax accepts (see tflite_build.py). The converter is tflite_build.convert
(16 random representative inputs, int8 throughout).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from tflite_build import _keras, convert  # noqa: E402


def mlperf_vww(keras, size: int = 96):
    """mlcommons/tiny visual_wake_words: MobileNetV1 with 8 filters first (alpha 0.25)."""
    layers = keras.layers

    def bn_relu(x):
        return layers.ReLU()(layers.BatchNormalization()(x))

    x = inp = keras.Input((size, size, 3), batch_size=1)
    x = bn_relu(layers.Conv2D(8, 3, strides=2, padding="same")(x))
    for filters, stride in [(16, 1), (32, 2), (32, 1), (64, 2), (64, 1), (128, 2),
                            (128, 1), (128, 1), (128, 1), (128, 1), (128, 1), (256, 2),
                            (256, 1)]:
        x = bn_relu(layers.DepthwiseConv2D(3, strides=stride, padding="same")(x))
        x = bn_relu(layers.Conv2D(filters, 1, padding="same")(x))
    x = layers.AveragePooling2D(int(x.shape[1]))(x)
    x = layers.Flatten()(x)
    return keras.Model(inp, layers.Dense(2)(x), name="mlperf_vww")


def mlperf_kws(keras):
    """mlcommons/tiny keyword_spotting: DS-CNN on 49x10 MFCCs."""
    layers = keras.layers

    def bn_relu(x):
        return layers.ReLU()(layers.BatchNormalization()(x))

    x = inp = keras.Input((49, 10, 1), batch_size=1)
    x = bn_relu(layers.Conv2D(64, (10, 4), strides=(2, 2), padding="same")(x))
    for _ in range(4):
        x = bn_relu(layers.DepthwiseConv2D(3, padding="same")(x))
        x = bn_relu(layers.Conv2D(64, 1, padding="same")(x))
    x = layers.AveragePooling2D((25, 5))(x)
    x = layers.Flatten()(x)
    return keras.Model(inp, layers.Dense(12)(x), name="mlperf_kws")


def mlperf_resnet8(keras, filters: int = 16):
    """mlcommons/tiny image_classification: ResNet-8 (three stacks) on 32x32 RGB."""
    layers = keras.layers

    def conv(x, n, kernel=3, stride=1):
        return layers.Conv2D(n, kernel, strides=stride, padding="same")(x)

    x = inp = keras.Input((32, 32, 3), batch_size=1)
    x = layers.ReLU()(layers.BatchNormalization()(conv(x, filters)))
    for stack in range(3):
        n, stride = filters * 2 ** stack, 1 if stack == 0 else 2
        y = layers.ReLU()(layers.BatchNormalization()(conv(x, n, stride=stride)))
        y = layers.BatchNormalization()(conv(y, n))
        if stack:
            x = conv(x, n, kernel=1, stride=stride)
        x = layers.ReLU()(layers.Add()([x, y]))
    x = layers.AveragePooling2D(int(x.shape[1]))(x)
    x = layers.Flatten()(x)
    return keras.Model(inp, layers.Dense(10)(x), name="mlperf_resnet8")


def applications(net: str, alpha: float, size: int):
    def build(keras):
        make = getattr(keras.applications, net)
        model = make(input_shape=(size, size, 3), alpha=alpha, weights=None,
                     classifier_activation=None)
        inp = keras.Input((size, size, 3), batch_size=1)  # static batch: TFLM plans it
        return keras.Model(inp, model(inp), name=f"{net}_{alpha}_{size}")
    return build


# (expansion, kernel, output channels, stride) per block after the first.
MCUNET_LIKE = [(1, 3, 8, 1),
               (3, 7, 16, 2), (6, 3, 16, 1),
               (4, 7, 24, 2), (5, 3, 24, 1), (4, 5, 24, 1),
               (5, 5, 40, 2), (5, 5, 40, 1), (4, 5, 40, 1),
               (5, 5, 48, 1), (4, 3, 48, 1),
               (6, 5, 96, 2), (4, 5, 96, 1), (6, 3, 160, 1)]


def mcunet_like(keras, size: int = 80):
    """MobileNetV2 blocks of MCUNet's search space, float input quantized in the graph."""
    layers = keras.layers

    def bn(x, relu=True):
        x = layers.BatchNormalization()(x)
        return layers.ReLU(6.0)(x) if relu else x

    x = inp = keras.Input((size, size, 3), batch_size=1)
    x = bn(layers.Conv2D(16, 3, strides=2, padding="same", use_bias=False)(x))
    for expand, kernel, out, stride in MCUNET_LIKE:
        y = x
        if expand > 1:
            y = bn(layers.Conv2D(int(x.shape[-1]) * expand, 1, use_bias=False)(y))
        y = bn(layers.DepthwiseConv2D(kernel, strides=stride, padding="same",
                                      use_bias=False)(y))
        y = bn(layers.Conv2D(out, 1, use_bias=False)(y), relu=False)
        x = layers.Add()([x, y]) if stride == 1 and int(x.shape[-1]) == out else y
    x = layers.GlobalAveragePooling2D()(x)
    return keras.Model(inp, layers.Dense(2)(x), name="mcunet_like_vww")


# name -> (builder, float input); the goal models first.
MODELS = {
    "mlperf_vww_96": (mlperf_vww, False),
    "mcunet_like_vww_80": (mcunet_like, True),
    "mlperf_kws_dscnn": (mlperf_kws, False),
    "mlperf_resnet8": (mlperf_resnet8, False),
    **{f"mobilenet_v2_{a}_{s}": (applications("MobileNetV2", a, s), False)
       for a in (0.35, 1.0) for s in (96, 128, 160, 192, 224)},
    "mobilenet_v1_0.25_128": (applications("MobileNet", 0.25, 128), False),
    "mobilenet_v1_1.0_224": (applications("MobileNet", 1.0, 224), False),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--only", nargs="*", help="models to build (default all)")
    parser.add_argument("--list", action="store_true", help="print the names and stop")
    args = parser.parse_args()
    if args.list:
        print("\n".join(MODELS))
        return
    unknown = sorted(set(args.only or ()) - set(MODELS))
    if unknown:
        parser.error(f"unknown model {', '.join(unknown)} (known: {', '.join(MODELS)})")
    keras = _keras()
    args.out.mkdir(parents=True, exist_ok=True)
    for name, (make, float_input) in MODELS.items():
        if args.only and name not in args.only:
            continue
        path = args.out / f"{name}.tflite"
        started = time.perf_counter()
        keras.utils.set_random_seed(14)  # each model's weights independent of the others
        try:
            data = convert(make(keras), True, float_input=float_input)
        except Exception as err:  # a model the converter refuses is reported, not hidden
            print(f"{path.name}: conversion failed: {err}", file=sys.stderr)
            continue
        tmp = path.with_suffix(".tmp")
        tmp.write_bytes(data)
        tmp.replace(path)  # whole or not at all
        print(f"{path}  {len(data)} B  {time.perf_counter() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
