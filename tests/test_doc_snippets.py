"""Every Python snippet of the README and docs/ runs as printed, imports included.

A user copies a snippet whole, so each ```python block is a program: it runs in a fresh
interpreter, from a scratch folder holding a copy of `examples/` (snippets name files as
the repository's root does). Comment lines that end a block (`# ...` after the last
statement) are the output it prints, and must be what it prints. Signatures and sketches
are ```text blocks, not run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)


def snippets() -> list[tuple[str, str]]:
    found = []
    for document in DOCUMENTS:
        text = document.read_text(encoding="utf-8")
        for match in BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{document.relative_to(REPO)}:{line}", match.group(1)))
    return found


def expected_output(code: str) -> list[str]:
    """The comment lines that close the snippet: what it prints."""
    lines = code.rstrip("\n").splitlines()
    shown = []
    while lines and lines[-1].startswith("# "):
        shown.insert(0, lines.pop()[2:])
    return shown


def test_the_documents_have_snippets() -> None:
    names = [name for name, _ in snippets()]
    assert any(n.startswith("README.md") for n in names)
    assert any("runtimes/executorch.md" in n for n in names)
    assert any("runtimes/tvm.md" in n for n in names)


@pytest.mark.parametrize(("where", "code"), snippets(), ids=[n for n, _ in snippets()])
def test_snippet_runs_as_printed(where: str, code: str, tmp_path: Path) -> None:
    if "executorch" in code:
        pytest.importorskip("executorch")
    if "tvm" in code:
        pytest.importorskip("tvm")
    if "api.plan" in code and ".tflite" in code:
        pytest.importorskip("tflite_micro")
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    # The memplan the tests import, whichever it is (installed, or a checkout's src/).
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    run = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, f"{where}:\n{run.stderr[-2000:]}"
    shown = expected_output(code)
    if shown:
        assert run.stdout.splitlines() == shown, where
