"""Import apache-tvm on demand: memplan itself must import without it."""

from __future__ import annotations

from types import ModuleType

from ...errors import InputError
from ...extras import Extra, MissingExtra, missing_extra_of

TVM_PIN = "apache-tvm==0.27.0.post1"


def require_tvm(path: str) -> ModuleType:
    """The `tvm` module, or one line naming what needs it and how to install it."""
    try:
        import tvm
    except ModuleNotFoundError as err:
        if missing_extra_of(err) is not Extra.TVM:
            raise
        raise MissingExtra(Extra.TVM, f"reading {path}") from None
    except ImportError as err:  # installed, but its native library does not load
        raise InputError(path, f"reading this file needs {TVM_PIN}, which does not load "
                         f"({err}): pip install 'memplan[tvm]'") from None
    return tvm


def tvm_available() -> bool:
    try:
        import tvm  # noqa: F401
    except ImportError:
        return False
    return True
