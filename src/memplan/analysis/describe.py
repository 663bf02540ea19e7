"""How messages and tables name an allocation's type: one spelling for `check` and `report`."""

from __future__ import annotations

from ..ir.ops import LLVM_ALLOCATION_OPS
from .census import Allocation


def describe_type(a: Allocation) -> str:
    if a.op_name in LLVM_ALLOCATION_OPS:  # `llvm.alloca %n x T`
        count = "?" if a.shape[0] is None else a.shape[0]
        return f"{count} x {a.element_type}"
    dims = "x".join("?" if d is None else str(d) for d in a.shape)
    kind = "tensor" if a.op_name.startswith("bufferization") else "memref"
    return f"{kind}<{dims}{'x' if dims else ''}{a.element_type}>"
