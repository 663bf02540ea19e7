"""Target descriptions: every preset loads and is consistent; bad files fail in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from memplan.cli import main
from memplan.errors import InputError
from memplan.targets import list_presets, load_target

EXPECTED_PRESETS = {"x86_64", "aarch64", "cortex-m55", "cortex-m55+ethos-u55", "cuda-sm80",
                    "cuda-sm90", "rocm-gfx942"}

MINIMAL = """
name = "tiny"
devices = ["cpu"]
[stack]
max_frame = 4096
addressable_by = ["cpu"]
"""


def test_all_expected_presets_are_shipped():
    assert EXPECTED_PRESETS <= set(list_presets())


@pytest.mark.parametrize("name", sorted(EXPECTED_PRESETS))
def test_preset_loads_and_is_named_like_its_file(name):
    target = load_target(name)
    assert target.name == name
    assert target.devices and target.default_device == target.devices[0]
    assert target.space_names()


def test_preset_numbers_from_the_sources():
    assert load_target("x86_64").stack.max_frame == 32 * 1024  # IREE stack limit
    assert load_target("rocm-gfx942").workgroup.limit_per_kernel == 65536
    assert load_target("cuda-sm80").workgroup.limit_per_kernel == 163 * 1024
    # sm_80 code (IREE 3.13 has no sm_90 target): Ampere's limit, not Hopper's 227 KiB.
    assert load_target("cuda-sm90").workgroup.limit_per_kernel == 163 * 1024
    assert load_target("cortex-m55").stack.max_allocation == 1024  # TVM kMaxStackAlloca


def test_npu_target_keeps_the_stack_away_from_the_npu():
    target = load_target("cortex-m55+ethos-u55")
    assert "npu" in target.devices
    assert "npu" not in target.stack.addressable_by
    assert all("npu" in pool.reachable_by for pool in target.pools)


def test_stack_and_heap_reach_defaults_to_the_first_device(tmp_path: Path):
    path = tmp_path / "plain.toml"
    path.write_text('name = "plain"\ndevices = ["cpu", "dsp"]\n[stack]\nmax_frame = 64\n[heap]\n')
    target = load_target(str(path))
    assert target.stack.addressable_by == ("cpu",) and target.heap.reachable_by == ("cpu",)


def test_user_file_loads(tmp_path: Path):
    path = tmp_path / "tiny.toml"
    path.write_text(MINIMAL)
    target = load_target(str(path))
    assert target.stack.max_frame == 4096 and target.source == str(path)


@pytest.mark.parametrize(("text", "message"), [
    (MINIMAL.replace("max_frame = 4096\n", ""), "stack.max_frame: missing"),
    (MINIMAL.replace("4096", "-8"), "stack.max_frame: must be a positive number of bytes, not -8"),
    (MINIMAL + "[scratchpad]\nsize = 1\n", "scratchpad: unknown memory space"),
    (MINIMAL + '[[pools]]\nname = "sram"\ncapacity = 10\nreachable_by = ["dsp"]\n',
     "pools[0].reachable_by: unknown device 'dsp'"),
    (MINIMAL + '[[pools]]\nname = "heap"\ncapacity = 10\nreachable_by = ["cpu"]\n',
     "pools[0].name: 'heap' names another kind of space"),
    (MINIMAL.replace("max_frame = 4096", "max_frame = 4096\nmax_allocation = 8192"),
     "stack.max_allocation: 8192 is larger than max_frame 4096"),
    (MINIMAL.replace("max_frame = 4096", "max_frame = 4096\nalignment = 24"),
     "stack.alignment: must be a power of two, not 24"),
    ("name = [", "invalid TOML"),
])
def test_bad_user_file_is_one_line_error(tmp_path: Path, text: str, message: str):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(InputError) as caught:
        load_target(str(path))
    assert message in str(caught.value)
    assert str(caught.value).startswith(str(path))


@pytest.mark.parametrize(("text", "message"), [
    (MINIMAL.replace("max_frame = 4096\n", ""), "stack.max_frame: missing"),
    (MINIMAL.replace("4096", "-1"), "stack.max_frame: must be a positive number of bytes"),
    (MINIMAL + "[scratchpad]\nsize = 1\n", "scratchpad: unknown memory space"),
])
@pytest.mark.parametrize("command", ["targets", "place", "check"])
def test_cli_reports_bad_target_with_exit_2(tmp_path: Path, capsys, text: str, message: str,
                                            command: str):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    mlir = Path(__file__).resolve().parents[1] / "examples" / "placement.mlir"
    argv = ["targets", str(path)] if command == "targets" else [
        command, str(mlir), "--target", str(path)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err == f"memplan: {path}:{message}" + err.split(message, 1)[1]
    assert err.count("\n") == 1 and "Traceback" not in err


def test_cli_unknown_preset_exit_2(capsys):
    assert main(["targets", "no-such-target"]) == 2
    assert "unknown target 'no-such-target'" in capsys.readouterr().err


def test_cli_lists_and_shows_presets(capsys):
    assert main(["targets"]) == 0
    listing = capsys.readouterr().out
    assert all(name in listing for name in EXPECTED_PRESETS)
    assert main(["targets", "cortex-m55+ethos-u55"]) == 0
    detail = capsys.readouterr().out
    assert "sram" in detail and "cpu,npu" in detail
