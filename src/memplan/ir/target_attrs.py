"""Target limits the IR carries itself, found for one function.

IREE writes the target into the IR it compiles:
- `#hal.executable.target<"llvm-cpu", ..., {max_stack_allocation_size = 32768 : i64,
  cpu_features = "+sve,...", ...}>` on the enclosing `hal.executable.variant`
  (`target(...)`), or as a `hal.executable.target` attribute of the function or
  module (codegen tests);
- `#iree_gpu.target<arch = "gfx942", wgp = <..., max_workgroup_memory_bytes = 65536, ...>>`
  inside that executable target (`iree_codegen.target_info`, or `iree.gpu.target`);
- `vscale_range = #llvm.vscale_range<minRange = 1, maxRange = 16>` on the function.

The innermost carrier wins: the function's own attribute, then each enclosing
op outwards. Attributes are read from their printed form, which is what IREE's
own parsers and its lit tests fix; the bindings have no typed access to them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from iree.compiler import ir

EXECUTABLE_TARGET_ATTRS = ("hal.executable.target", "target")
_STACK = re.compile(r"\bmax_stack_allocation_size = (\d+)")
_WORKGROUP = re.compile(r"\bmax_workgroup_memory_bytes = (\d+)")
_VSCALE = re.compile(r"#llvm\.vscale_range<minRange = (\d+)(?: : i\d+)?, maxRange = (\d+)")
_CPU_FEATURES = re.compile(r'\bcpu_features = "([^"]*)"')
# SVE vectors are 128 to 2048 bits (Arm ARM, ZCR_ELx.LEN): vscale is 1 to 16.
SVE_VSCALE = (1, 16)


@dataclass(frozen=True)
class Found:
    value: int
    where: str  # e.g. "max_stack_allocation_size on hal.executable.variant @embedded_elf_x86_64"


@dataclass(frozen=True)
class IrLimits:
    """The limits the IR states for one function (None where it states none)."""

    stack_bytes: Found | None = None
    workgroup_bytes: Found | None = None
    vscale: tuple[Found, Found] | None = None  # (min, max)


def ir_limits(func: ir.Operation) -> IrLimits:
    """What the function's own attributes and its enclosing ops say, innermost first."""
    stack = workgroup = None
    vscale = None
    op: ir.Operation | None = func
    while op is not None:
        texts = _target_texts(op)
        # The op's name says where a limit came from: built only where there is one to read
        # (most ops, the module above every function among them, have none).
        where = _describe(op) if texts or "vscale_range" in op.attributes else ""
        for text in texts:
            stack = stack or _first(_STACK, text, f"max_stack_allocation_size on {where}")
            workgroup = workgroup or _first(_WORKGROUP, text,
                                            f"max_workgroup_memory_bytes on {where}")
            vscale = vscale or _sve_vscale(text, where)
        if vscale is None and "vscale_range" in op.attributes:
            match = _VSCALE.search(str(op.attributes["vscale_range"]))
            if match:
                found = f"vscale_range on {where}"
                vscale = (Found(int(match.group(1)), found), Found(int(match.group(2)), found))
        parent = op.parent
        op = parent.operation if parent is not None else None
    return IrLimits(stack, workgroup, vscale)


def _target_texts(op: ir.Operation) -> list[str]:
    return [str(op.attributes[name]) for name in EXECUTABLE_TARGET_ATTRS
            if name in op.attributes]


def _first(pattern: re.Pattern[str], text: str, where: str) -> Found | None:
    match = pattern.search(text)
    return Found(int(match.group(1)), where) if match else None


def _sve_vscale(text: str, where: str) -> tuple[Found, Found] | None:
    """IREE bounds vscale for an AArch64 target whose features include SVE or SME."""
    match = _CPU_FEATURES.search(text)
    features = match.group(1).split(",") if match else []
    if not {"+sve", "+sve2", "+sme"} & set(features):
        return None
    where = f"{where} (+sve: vscale {SVE_VSCALE[0]}..{SVE_VSCALE[1]})"
    return Found(SVE_VSCALE[0], where), Found(SVE_VSCALE[1], where)


def _describe(op: ir.Operation) -> str:
    if "sym_name" in op.attributes:
        return f"{op.name} @{ir.StringAttr(op.attributes['sym_name']).value}"
    return op.name
