"""The TVM target a memplan target builds for (`tvm_target` in its TOML)."""

from __future__ import annotations

import json
from typing import Any

from ...errors import InputError
from ...targets import Target


def tvm_target_of(target: Target) -> Any:
    """What `tvm.target.Target(...)` takes for `target`. TVM 0.27 takes a JSON object
    (`{"kind": "llvm", "mtriple": ..., "mcpu": ...}`) or a bare kind name ("llvm", "c"):
    its older "llvm -mcpu=..." strings are refused, so a TOML gives the object as text."""
    text = target.tvm_target
    if not text:
        raise InputError(target.source or target.name, "this target names no TVM target: "
                         "add `tvm_target` (a JSON object as TVM 0.27 takes it)")
    if text.lstrip().startswith("{"):
        try:
            return json.loads(text)
        except json.JSONDecodeError as err:
            raise InputError(target.source or target.name,
                             f"tvm_target is not a JSON object: {err}") from None
    return text
