"""TFLite models on TensorFlow Lite Micro: the `.tflite` reader and writer (`model.py`),
TFLM's scratch buffers per kernel set (`scratch.py`, `cmsis_nn_*.py`), the interpreter run
in a child (`interpreter.py`) and the front end (`front_end.py`)."""
