"""Every `$ memplan ...` shown in the README and docs/ runs as written and prints what is shown.

The commands run in order, per document, in one scratch folder holding a copy of
`examples/` and of `tests/data/doc_inputs/` (later commands read what earlier
ones wrote). Each must end with exit 0 or 1 — a finding, not bad input — unless
what it shows is memplan's own one-line refusal, and never with a traceback.
Its output must be the lines shown below it, with times masked: stdout and
stderr each in order, however the document interleaves the two.

To refresh the shown outputs after an intended change of output, run
`MEMPLAN_REFRESH_DOCS=1 pytest tests/test_readme.py` and read the diff: each
block is rewritten with what the command printed (stdout, then stderr).
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import REPO

DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]
DOC_INPUTS = REPO / "tests" / "data" / "doc_inputs"
# Log lines of libraries in glog's format (torch's `W1125 20:46:51.495 4391 file.py:630]`):
# not memplan's output, so not shown; silencing them is the .pt2 front end's job.
LIBRARY_LOG = re.compile(r"^[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+ +\d+ \S+:\d+\] ")
# Where this checkout has no kernels built in place (a fresh clone: they are built into
# the installed package), the first exact search says it compiles them: not the command's
# output, a fact of the machine, so not shown.
FIRST_COMPILE = re.compile(r"^memplan: compiling the .* once \(up to a minute\)")
# What changes from run to run: solve and lowering times.
VOLATILE = [(re.compile(r"\b\d+\.\d+ s\b"), "<time> s"),
            (re.compile(r'("(?:cpu_)?seconds": )[\d.e-]+'), r"\1<time>")]


@dataclass
class Shown:
    """One `$ memplan` line of a document and the lines shown after it."""

    document: Path
    line: int  # 1-based line of the command in the document
    command: str
    output: list[str]


def shown_commands(document: Path) -> list[Shown]:
    found: list[Shown] = []
    in_block = False
    current: Shown | None = None
    for number, line in enumerate(document.read_text(encoding="utf-8").splitlines(), 1):
        if line.startswith("```"):
            in_block, current = not in_block, None
            continue
        if not in_block:
            continue
        if line.startswith("$ "):
            current = None
            if line.startswith("$ memplan"):
                current = Shown(document, number, line[2:], [])
                found.append(current)
        elif current is not None:
            current.output.append(line)
    for shown in found:
        while shown.output and not shown.output[-1].strip():
            shown.output.pop()
    return found


def masked(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        for pattern, replacement in VOLATILE:
            line = pattern.sub(replacement, line)
        out.append(line.rstrip())
    return out


def interleaves(expected: list[str], first: list[str], second: list[str]) -> bool:
    """Whether `expected` is `first` and `second` merged, each kept in its own order."""
    if len(expected) != len(first) + len(second):
        return False
    # reach[j]: `expected[:i + j]` can be `first[:i]` merged with `second[:j]`
    reach = [True] + [False] * len(second)
    for j in range(1, len(second) + 1):
        reach[j] = reach[j - 1] and second[j - 1] == expected[j - 1]
    for i in range(1, len(first) + 1):
        reach[0] = reach[0] and first[i - 1] == expected[i - 1]
        for j in range(1, len(second) + 1):
            reach[j] = ((reach[j] and first[i - 1] == expected[i + j - 1])
                        or (reach[j - 1] and second[j - 1] == expected[i + j - 1]))
    return reach[-1]


def run_shown(shown: Shown, folder: Path) -> subprocess.CompletedProcess:
    memplan = f"{shlex.quote(sys.executable)} -m memplan"
    # This checkout's code, whatever memplan the interpreter has installed.
    env = {**os.environ, "PYTHONPATH": str(REPO / "src"), "COLUMNS": "200"}
    return subprocess.run(memplan + shown.command[len("memplan"):], shell=True, cwd=folder,
                          capture_output=True, text=True, check=False, env=env, timeout=900)


def scratch(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    for item in DOC_INPUTS.iterdir():
        shutil.copy(item, tmp_path / item.name)
    return tmp_path


def test_the_readme_shows_commands():
    assert len(shown_commands(REPO / "README.md")) >= 20


def test_the_comparison_masks_times_and_keeps_each_streams_order():
    assert masked(["solve time          0.320 s", '  "seconds": 1.5e-05,']) == [
        "solve time          <time> s", '  "seconds": <time>,']
    assert interleaves(["a", "x", "b"], ["a", "b"], ["x"])
    assert not interleaves(["b", "x", "a"], ["a", "b"], ["x"])
    assert not interleaves(["a", "b"], ["a", "b"], ["x"])


@pytest.mark.parametrize("document", [d for d in DOCUMENTS if shown_commands(d)],
                         ids=lambda d: d.name)
def test_shown_commands_print_what_is_shown(document, tmp_path):
    folder = scratch(tmp_path)
    refresh = bool(os.environ.get("MEMPLAN_REFRESH_DOCS"))
    drift = []
    results = []
    for shown in shown_commands(document):
        proc = run_shown(shown, folder)
        where = f"{document.name}:{shown.line}: {shown.command}"
        assert "Traceback" not in proc.stderr, f"{where}\n{proc.stderr}"
        refused = len(shown.output) == 1 and shown.output[0].startswith("memplan: ")
        assert proc.returncode in (0, 1) or (refused and proc.returncode == 2), (
            f"{where} exited {proc.returncode}\n{proc.stderr}")
        out = proc.stdout.splitlines()
        err = [line for line in proc.stderr.splitlines()
               if not LIBRARY_LOG.match(line) and not FIRST_COMPILE.match(line)]
        results.append((shown, out, err))
        if not interleaves(masked(shown.output), masked(out), masked(err)):
            drift.append(f"{where}\n--- shown\n" + "\n".join(shown.output)
                         + "\n--- printed (stdout, then stderr)\n" + "\n".join(out + err))
    if refresh and drift:
        _rewrite(document, results)
    assert not drift, "\n\n".join(drift)


def _rewrite(document: Path, results: list[tuple[Shown, list[str], list[str]]]) -> None:
    """Put each command's printed lines in place of the lines shown under it, where they
    differ."""
    lines = document.read_text(encoding="utf-8").splitlines()
    for shown, out, err in sorted(results, key=lambda r: -r[0].line):
        if interleaves(masked(shown.output), masked(out), masked(err)):
            continue
        start = shown.line  # 0-based index of the first shown line
        lines[start:start + len(shown.output)] = out + err
    document.write_text("\n".join(lines) + "\n", encoding="utf-8")
