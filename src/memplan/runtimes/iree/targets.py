"""Which IREE backend compiles a program for one of memplan's targets.

memplan's targets (`memplan.targets`) describe memory, not code generation, so the
IREE flags of each target IREE can compile for are listed here. CPU targets compile
with IREE's llvm-cpu backend for a generic CPU of their architecture (results then do
not depend on the host's CPU features); GPU targets compile with IREE's cuda or rocm
backend, which needs no GPU to compile but one to run: their `.vmfb`s are written,
never run here. Where IREE cannot target the chip itself, the preset compiles for the
nearest chip IREE knows whose code runs there, and the plan's notes say so. Targets IREE
has no backend for (the microcontrollers) are refused.
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
    # IREE 3.13 knows no sm_90 details ("missing GPU target in #hal.executable.target",
    # for sm_90 and sm_90a alike). IREE's CUDA executables carry PTX, which the driver
    # compiles for the device it loads on, so compute_80 PTX runs on sm_90 (an H200 ran
    # memplan's sm_80 programs so, issue 33). Of the chips IREE knows, sm_80 is also the
    # one with the most workgroup memory (163 KiB; sm_86 the same, sm_89 99 KiB), the
    # nearest to Hopper's 227 KiB; the preset's workgroup limit is that 163 KiB, the one the
    # built code keeps to (presets/cuda-sm90.toml).
    "cuda-sm90": lambda: Target(
        "cuda", ("--iree-cuda-target=sm_80",), False, "cuda, sm_80 PTX for sm_90",
        stand_in="IREE 3.13 cannot target sm_90: compiled as sm_80 PTX, which the CUDA "
                 "driver compiles for sm_90 when it loads the module; IREE's kernels then "
                 "keep within sm_80's 163 KiB of workgroup memory, not sm_90's 227 KiB"),
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
