"""Crafted .pt2 archives: a real program's archive with members replaced (tests, fuzzing)."""

from __future__ import annotations

import io
import json
import os
import zipfile
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TINY = REPO / "examples" / "tiny_resnet.pt2"


class _Payload:
    """Unpickling this runs a shell command that creates `marker`."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return os.system, (f"touch {self.marker}",)


def pickled_payload(marker: Path) -> bytes:
    """What `torch.save` writes for an object whose unpickling creates `marker`."""
    import torch

    buffer = io.BytesIO()
    torch.save(_Payload(marker), buffer)
    return buffer.getvalue()


def rewrite(dst: Path, change: Callable[[dict[str, bytes]], None], src: Path = TINY,
            compression: int = zipfile.ZIP_STORED) -> Path:
    """`src`'s members (names without the top folder) changed by `change`, written to `dst`."""
    with zipfile.ZipFile(src) as archive:
        top = archive.namelist()[0].partition("/")[0]
        members = {n.partition("/")[2]: archive.read(n) for n in archive.namelist()}
    change(members)
    with zipfile.ZipFile(dst, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(f"{top}/{name}", data)
    return dst


def with_pickled_weight(dst: Path, marker: Path) -> Path:
    """The first weight marked `use_pickle`, its record the payload (the issue's file)."""
    def change(members: dict[str, bytes]) -> None:
        name = "data/weights/model_weights_config.json"
        config = json.loads(members[name])
        entry = next(iter(config["config"].values()))
        entry["use_pickle"] = True
        members[name] = json.dumps(config).encode()
        members["data/weights/" + entry["path_name"]] = pickled_payload(marker)
    return rewrite(dst, change)


def with_pickled_sample_inputs(dst: Path, marker: Path) -> Path:
    """The sample inputs replaced by the payload: torch's safe load refuses it and torch
    retries without restriction (the path no member's config announces)."""
    def change(members: dict[str, bytes]) -> None:
        members["data/sample_inputs/model.pt"] = pickled_payload(marker)
    return rewrite(dst, change)


def with_deflate_bomb(dst: Path, inflated: int = 1 << 30) -> Path:
    """A weight record of `inflated` zero bytes, deflated (about 1 MB per GB)."""
    with zipfile.ZipFile(TINY) as archive:
        names = archive.namelist()
        top = names[0].partition("/")[0]
        with zipfile.ZipFile(dst, "w") as out:
            for n in names:
                data = archive.read(n)
                if n.endswith("/data/weights/weight_0"):
                    info = zipfile.ZipInfo(n)
                    info.compress_type = zipfile.ZIP_DEFLATED
                    with out.open(info, "w", force_zip64=True) as f:
                        chunk = bytes(1 << 20)
                        for _ in range(inflated >> 20):
                            f.write(chunk)
                else:
                    out.writestr(n, data)
    assert top
    return dst
