"""Import apache-tvm on demand: memplan itself must import without it."""

from __future__ import annotations

import warnings
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
    # TVM's importers warn on stderr (`UserWarning: Renaming name x.1 to x_1`): memplan says
    # what matters in its own one line.
    warnings.filterwarnings("ignore", module=r"tvm(\.|$)")
    return tvm


def tvm_available() -> bool:
    try:
        import tvm  # noqa: F401
    except ImportError:
        return False
    return True
