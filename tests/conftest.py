from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"


@pytest.fixture
def minimalloc_dir() -> Path:
    path = SHARED / "data" / "minimalloc"
    if not path.is_dir():
        pytest.skip(f"shared data not found at {path}")
    return path
