"""The target from the IR: preset < IR < command line, per function, saying which applied."""

from __future__ import annotations

from pathlib import Path

from memplan.ir import load_mlir
from memplan.ir.target_attrs import IrLimits, ir_limits
from memplan.ir.walk import functions, symbol_name
from memplan.targets import load_target
from memplan.targets.applied import LimitOverrides, LimitSource, apply_limits


def _limits(path: Path) -> dict[str, object]:
    return {symbol_name(f): ir_limits(f) for c in load_mlir(path) for f in functions(c.module)}


def test_function_attributes_give_stack_workgroup_and_sve_vscale(data: Path) -> None:
    found = _limits(data / "targets_in_ir.mlir")
    assert found["f16k"].stack_bytes.value == 16384
    assert found["f16k"].vscale is None
    assert found["gpu"].workgroup_bytes.value == 32768 and found["gpu"].stack_bytes is None
    low, high = found["sve"].vscale
    assert (low.value, high.value) == (1, 16) and "+sve" in high.where


def test_iree_executable_sources_carry_the_limit_on_the_variant(data: Path) -> None:
    """`iree-compile --compile-to=executable-sources` of a matmul, for llvm-cpu and gfx942."""
    cpu = _limits(data / "matmul.llvm-cpu.sources.mlir")
    kernel = cpu["mm_dispatch_0_matmul_64x64x64_f32"]
    assert kernel.stack_bytes.value == 32768
    assert kernel.stack_bytes.where == \
        "max_stack_allocation_size on hal.executable.variant @embedded_elf_x86_64"
    assert cpu["mm"].stack_bytes is None  # the host function runs on no executable target
    gpu = _limits(data / "matmul.gfx942.sources.mlir")
    assert gpu["mm_dispatch_0_matmul_64x64x64_f32"].workgroup_bytes.value == 65536


def test_the_ir_overrides_the_preset_and_the_command_line_overrides_both(data: Path) -> None:
    found = _limits(data / "targets_in_ir.mlir")
    x86 = load_target("x86_64")
    preset = apply_limits(x86, IrLimits())
    assert preset.stack.source is LimitSource.PRESET
    assert preset.target.stack.max_frame == x86.stack.max_frame
    from_ir = apply_limits(x86, found["f16k"])
    assert (from_ir.stack.bytes, from_ir.stack.source) == (16384, LimitSource.IR)
    assert from_ir.target.stack.max_frame == 16384
    assert "func.func @f16k" in from_ir.stack.describe()
    cli = apply_limits(x86, found["f16k"], LimitOverrides(max_frame=8192))
    assert (cli.stack.bytes, cli.stack.source) == (8192, LimitSource.COMMAND_LINE)
    assert cli.target.stack.max_frame == 8192
    assert cli.stack.describe() == "--max-frame on the command line"


def test_workgroup_limit_from_ir_on_a_gpu_preset(data: Path) -> None:
    found = _limits(data / "targets_in_ir.mlir")
    gfx = load_target("rocm-gfx942")
    applied = apply_limits(gfx, found["gpu"])
    assert applied.workgroup.source is LimitSource.IR
    assert applied.target.workgroup.limit_per_kernel == 32768
    assert gfx.workgroup.limit_per_kernel == 65536  # the preset itself is untouched
