"""Every `$ memplan ...` command shown in the README runs as written.

They run in order in one scratch folder holding a copy of `examples/` (later
commands read what earlier ones wrote), and must end with exit 0 or 1 — a
finding, not bad input — and never with a traceback.
"""

import os
import shlex
import shutil
import subprocess
import sys

from conftest import REPO


def readme_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return [line[2:] for line in text.splitlines() if line.startswith("$ memplan ")]


def test_readme_shows_commands():
    assert len(readme_commands()) >= 10


def test_readme_commands_run_as_written(tmp_path):
    shutil.copytree(REPO / "examples", tmp_path / "examples")
    memplan = f"{shlex.quote(sys.executable)} -m memplan"
    # This checkout's code, whatever memplan the interpreter has installed.
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    for command in readme_commands():
        shell_command = memplan + command[len("memplan"):]
        proc = subprocess.run(shell_command, shell=True, cwd=tmp_path, capture_output=True,
                              text=True, check=False, env=env)
        assert "Traceback" not in proc.stderr, f"{command}\n{proc.stderr}"
        assert proc.returncode in (0, 1), f"{command} exited {proc.returncode}\n{proc.stderr}"
