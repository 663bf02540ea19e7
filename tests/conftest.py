from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data"


@pytest.fixture
def minimalloc_dir() -> Path:
    """google/minimalloc's benchmark instances, kept in the repository (see its README)."""
    return DATA / "minimalloc"


@pytest.fixture
def data() -> Path:
    return DATA


@pytest.fixture
def small_stack_target(tmp_path: Path) -> str:
    """A target whose stack frame holds 512 bytes (the seed's buffer needs 1 KiB)."""
    path = tmp_path / "tiny.toml"
    path.write_text('name = "tiny"\ndevices = ["cpu"]\n\n[stack]\nmax_frame = 512\n'
                    'alignment = 16\naddressable_by = ["cpu"]\n')
    return str(path)
