"""Which IREE backend compiles a program for one of memplan's targets.

memplan's targets (`memplan.targets`) describe memory, not code generation, so the
IREE flags of each target IREE can compile for are listed here. CPU targets compile
with IREE's llvm-cpu backend for a generic CPU of their architecture (results then do
not depend on the host's CPU features); GPU targets compile with IREE's cuda or rocm
backend, which needs no GPU to compile but one to run: their `.vmfb`s are written,
never run here. Targets IREE has no backend for (the microcontrollers) are refused.
"""

from __future__ import annotations

import platform

from ...errors import InputError
from .stages import Target

_HOST_ARCH = {"x86_64": "x86_64", "amd64": "x86_64", "aarch64": "aarch64", "arm64": "aarch64"}


def _cpu(arch: str) -> Target:
    return Target("llvm-cpu", (f"--iree-llvmcpu-target-triple={arch}-unknown-linux-gnu",
                               "--iree-llvmcpu-target-cpu=generic"),
                  runs_here=_HOST_ARCH.get(platform.machine().lower()) == arch,
                  device=f"llvm-cpu, {arch}")


PRESETS = {
    "x86_64": lambda: _cpu("x86_64"),
    "aarch64": lambda: _cpu("aarch64"),
    "cuda-sm80": lambda: Target("cuda", ("--iree-cuda-target=sm_80",), False, "cuda, sm_80"),
    "cuda-sm90": lambda: Target("cuda", ("--iree-cuda-target=sm_90",), False, "cuda, sm_90"),
    "rocm-gfx942": lambda: Target("rocm", ("--iree-rocm-target=gfx942",), False,
                                  "rocm, gfx942"),
}


def iree_target(name: str, source: str) -> Target:
    """IREE's compile for memplan's target `name` (`source`: where it was named, for the
    message when IREE has no backend for it)."""
    make = PRESETS.get(name)
    if make is None:
        raise InputError(source, f"IREE has no backend memplan knows for target {name!r} "
                         f"(IREE targets: {', '.join(PRESETS)})")
    return make()


__all__ = ["PRESETS", "iree_target"]
