"""Every shipped target: loads, cites where its numbers come from, and names a TVM target
that TVM itself accepts."""

import pytest
from conftest import REPO

from memplan.targets import list_presets, load_target

PRESETS = REPO / "src" / "memplan" / "targets" / "presets"
MICROCONTROLLERS = ("cortex-m0plus", "cortex-m4", "cortex-m7", "cortex-m33", "cortex-m55",
                    "cortex-m85", "esp32-s3")


def test_the_microcontroller_presets_ship():
    assert set(MICROCONTROLLERS) <= set(list_presets())


@pytest.mark.parametrize("name", MICROCONTROLLERS)
def test_a_microcontroller_preset_cites_its_memory_map(name):
    target = load_target(name)
    text = (PRESETS / f"{name}.toml").read_text(encoding="utf-8")
    assert "# Memory map:" in text, f"{name} does not say where its numbers come from"
    assert target.stack is not None and target.pools
    assert target.tvm_target, f"{name} names no TVM target"


@pytest.mark.parametrize("name", MICROCONTROLLERS)
def test_tvm_accepts_the_presets_tvm_target(name):
    tvm = pytest.importorskip("tvm")
    target = tvm.target.Target(load_target(name).tvm_target)
    # C for the firmware's own toolchain, LLVM where memplan reads the frame from the
    # assembly TVM emits (the TIR stack policy's presets).
    assert target.kind.name in ("c", "llvm")
    mcpu = load_target(name).tvm_target.partition('"mcpu": "')[2].partition('"')[0]
    if mcpu:
        assert str(target.attrs["mcpu"]) == mcpu
