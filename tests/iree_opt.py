"""Run IREE's own passes (iree-opt from iree-base-compiler) on a file: what IREE says is
the reference the peer tests compare memplan with."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from iree.compiler.tools.binaries import find_tool


def iree_opt(path: Path, pipeline: str, *flags: str) -> subprocess.CompletedProcess[str]:
    """`iree-opt --split-input-file --pass-pipeline=PIPELINE PATH`, its output as text."""
    return subprocess.run([find_tool("iree-opt"), "--split-input-file",
                           f"--pass-pipeline={pipeline}", *flags, str(path)],
                          capture_output=True, text=True, timeout=120, check=False)


def error_lines(stderr: str) -> list[int]:
    """The lines of the input IREE reports an op's error at, in order (not the lines of
    `expected-error` comments, which iree-opt also reports when they are not produced)."""
    return [int(m.group(1)) for m in re.finditer(r"^[^\n:]+:(\d+):\d+: error: (?!expected)",
                                                 stderr, re.M)]
