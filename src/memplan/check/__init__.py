"""Checks: small functions from facts (census, target) to diagnostics (`registry.py`).

The MLIR checks load the MLIR bindings; `offline_plan` (a model's plan read back)
needs none. So the package's names load on first use (PEP 562): checking a
.tflite plan never loads IREE.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .registry import DEFAULT_CHECKS, Check, CheckContext, run_checks

def __getattr__(name: str) -> object:
    if name not in __all__:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from . import registry

    return getattr(registry, name)


__all__ = ["DEFAULT_CHECKS", "Check", "CheckContext", "run_checks"]
