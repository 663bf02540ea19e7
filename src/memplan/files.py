"""Outputs are written whole or not at all; inputs are never touched."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .errors import InputError


@contextlib.contextmanager
def atomic_output(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside `path`; move it into place only on success."""
    target = Path(path)
    try:
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.",
                                   suffix=target.suffix)
        os.close(fd)
    except OSError as err:
        raise InputError(path, f"cannot write output: {err.strerror}") from None
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, target)
    except OSError as err:
        raise InputError(path, f"cannot write output: {err.strerror}") from None
    finally:
        tmp_path.unlink(missing_ok=True)


def write_text(path: str | Path, text: str) -> None:
    with atomic_output(path) as tmp:
        tmp.write_text(text, encoding="utf-8")


def refuse_overwriting_input(output: str | Path, inputs: list[str | Path]) -> None:
    """An output that names an input would destroy it; say so instead."""
    out = Path(output).resolve()
    for source in inputs:
        if Path(source).resolve() == out:
            raise InputError(output, "refusing to overwrite the input file; choose another path")
