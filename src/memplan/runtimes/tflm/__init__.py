"""TFLite models on TensorFlow Lite Micro: the `.tflite` reader and writer (`model.py`),
TFLM's scratch buffers per kernel set (`scratch.py`, `cmsis_nn_*.py`), the interpreter run
in a child (`interpreter.py`) and the front end (`front_end.py`)."""

from ...plan.contract import Option

KERNELS = Option("--kernels", "kernels", "TFLM kernels the firmware links (.tflite): their "
                 "scratch buffers get room in the plan (default reference; cmsis-nn needs a "
                 "Cortex-M core)", "reference", ("reference", "cmsis-nn"))
CORE = Option("--core", "core", "the Cortex-M core CMSIS-NN is built for (default: the "
              "--target's name when it is one)", metavar="NAME")
OPTIONS = (KERNELS, CORE)
