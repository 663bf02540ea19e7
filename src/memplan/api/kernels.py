"""`check_kernels`: a TVMScript module's TIR stack frames against a target."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..errors import InputError
from ..targets import Target, target_of

if TYPE_CHECKING:
    from ..runtimes.tvm.frame_check import TirCheck


def check_kernels(path: str, target: Target | str) -> TirCheck:
    """Each PrimFunc's stack frame under TVM's rule and under memplan's, against the
    target's frame budget (`memplan check KERNELS.py`); `.format()` and `.to_json()` are
    what the command prints."""
    from ..runtimes.tvm.frame_check import check_tir

    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(path, f"cannot read: {err}") from None
    return check_tir(path, text, target_of(target))
