"""Import apache-tvm on demand: memplan itself must import without it."""

from __future__ import annotations

from types import ModuleType

from ...errors import InputError

TVM_PIN = "apache-tvm==0.27.0.post1"


def require_tvm(path: str) -> ModuleType:
    """The `tvm` module, or one line naming what needs it and how to install it."""
    try:
        import tvm
    except ImportError as err:
        raise InputError(path, f"reading this file needs TVM ({err}); "
                         f"install it with `pip install memplan[tvm]` ({TVM_PIN})") from None
    return tvm


def tvm_available() -> bool:
    try:
        import tvm  # noqa: F401
    except ImportError:
        return False
    return True
