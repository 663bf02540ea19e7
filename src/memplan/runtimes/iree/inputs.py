"""Random inputs for runs before and after a rewrite: one dtype table, one generator."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from iree.compiler import ir

NUMPY_DTYPES: dict[str, type] = {
    "f16": np.float16, "f32": np.float32, "f64": np.float64, "i8": np.int8,
    "i16": np.int16, "i32": np.int32, "i64": np.int64, "i1": np.bool_,
}


def numpy_dtype(element_type: ir.Type) -> type | None:
    """The NumPy dtype the IREE runtime uses for an element type; None if it has none here."""
    return NUMPY_DTYPES.get(str(element_type))


def random_array(rng: np.random.Generator, shape: Sequence[int], dtype: type) -> np.ndarray:
    """Small integers or standard normals: values every rewrite must carry exactly."""
    if dtype is np.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(-100, 100, shape).astype(dtype)
