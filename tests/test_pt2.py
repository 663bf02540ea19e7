"""A .pt2 never runs code and never inflates past its limits (issue 23).

The crafted archives are tiny_resnet.pt2 with members replaced (tests/pt2_craft.py). Each
payload, unpickled by plain `torch.export.load`, creates a marker file: the marker must never
appear.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from pathlib import Path

import pt2_craft
import pytest

from memplan.errors import InputError
from memplan.runtimes.pt2 import check_archive, load_exported


def _plan(model: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memplan", "plan", str(model), "--summary",
                           *args], capture_output=True, text=True, timeout=300)


def test_a_pickled_weight_is_refused_and_its_payload_never_runs(tmp_path):
    marker = tmp_path / "payload-ran"
    model = pt2_craft.with_pickled_weight(tmp_path / "evil.pt2", marker)
    done = _plan(model, "-o", str(tmp_path / "out.pte"))
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"memplan: {model}: refused: 'stem.0.weight' (data/weights/weight_0) is a pickled "
        "payload, which torch unpickles without restriction and which can run code; memplan "
        "reads tensors only"]
    assert not marker.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["evil.pt2"]


def test_a_pickle_no_config_announces_is_refused_while_loading(tmp_path):
    # The sample inputs pass the archive check (they are always a pickle, loaded with
    # weights_only=True); torch retries a failed safe load without restriction.
    marker = tmp_path / "payload-ran"
    model = pt2_craft.with_pickled_sample_inputs(tmp_path / "evil.pt2", marker)
    check_archive(model)
    with pytest.raises(InputError, match="refused: torch would unpickle a payload without "
                       "restriction"):
        load_exported(model)
    assert not marker.exists()


def test_a_deflate_bomb_is_refused_by_its_declared_sizes(tmp_path):
    model = pt2_craft.with_deflate_bomb(tmp_path / "bomb.pt2", 256 << 20)
    assert model.stat().st_size < 2 << 20
    with pytest.raises(InputError, match=r"inflates [\d,]+ bytes to 268,435,456 \(more than "
                       r"100:1: a zip bomb"):
        check_archive(model)


def test_a_weight_larger_than_its_record_is_refused(tmp_path):
    # An empty record makes torch allocate the declared shape as zeros.
    def change(members: dict[str, bytes]) -> None:
        name = "data/weights/model_weights_config.json"
        config = json.loads(members[name])
        entry = config["config"]["stem.0.weight"]
        entry["tensor_meta"]["sizes"][0] = {"as_int": 1 << 40}
        members[name] = json.dumps(config).encode()
        members["data/weights/weight_0"] = b""
    model = pt2_craft.rewrite(tmp_path / "zeros.pt2", change)
    with pytest.raises(InputError, match=r"'stem.0.weight' spans [\d,]+ bytes but its record "
                       r"data/weights/weight_0 holds 0"):
        check_archive(model)


def test_a_graph_tensor_over_the_byte_limit_is_refused(tmp_path):
    def change(members: dict[str, bytes]) -> None:
        program = json.loads(members["models/model.json"])
        values = program["graph_module"]["graph"]["tensor_values"]
        next(iter(values.values()))["sizes"][0] = {"as_int": 1 << 62}
        members["models/model.json"] = json.dumps(program).encode()
    model = pt2_craft.rewrite(tmp_path / "huge.pt2", change)
    with pytest.raises(InputError, match=r"takes more than 2\*\*40 bytes"):
        check_archive(model)


@pytest.mark.parametrize(("member", "reason"), [
    ("data/weights/model.pt", "legacy layout"),
    ("data/aotinductor/model/model.so", "AOTInductor compiled code"),
])
def test_members_torch_would_execute_are_refused(tmp_path, member, reason):
    model = pt2_craft.rewrite(tmp_path / "x.pt2", lambda m: m.__setitem__(member, b"\x80"))
    with pytest.raises(InputError, match=reason):
        check_archive(model)


def test_archive_format_checks(tmp_path):
    stored = pt2_craft.rewrite(tmp_path / "old.pt2", lambda m: m.pop("archive_format"))
    with pytest.raises(InputError, match="no archive_format member"):
        check_archive(stored)
    truncated = tmp_path / "cut.pt2"
    truncated.write_bytes(pt2_craft.TINY.read_bytes()[:50_000])
    with pytest.raises(InputError, match="not a torch.export program"):
        check_archive(truncated)
    # torch.export.save's own archive passes, and so does the same one recompressed.
    assert check_archive(pt2_craft.TINY).models == ("model",)
    assert check_archive(pt2_craft.rewrite(tmp_path / "z.pt2", lambda m: None,
                                           compression=zipfile.ZIP_DEFLATED)).models


def test_the_element_sizes_are_torchs():
    from torch._export.serde import serialize

    from memplan.runtimes.pt2 import _ITEMSIZE

    assert {int(code): dtype.itemsize for code, dtype in
            serialize._SERIALIZE_TO_TORCH_DTYPE.items()} == _ITEMSIZE


@pytest.mark.parametrize("sizes", [5, "abc", None])
def test_a_tensor_whose_sizes_are_not_a_list_is_one_line(tmp_path, sizes):
    # Issue 31: found by the model.json field fuzz (an internal error: 'int' not iterable).
    def change(members: dict[str, bytes]) -> None:
        program = json.loads(members["models/model.json"])
        values = program["graph_module"]["graph"]["tensor_values"]
        values[next(iter(values))]["sizes"] = sizes
        members["models/model.json"] = json.dumps(program).encode()

    path = pt2_craft.rewrite(tmp_path / "m.pt2", change)
    with pytest.raises(InputError, match="sizes is not a list"):
        check_archive(path)
