"""ONNX graphs: the reader with shape inference (`model.py`) and the report-only front end
(`front_end.py`)."""
