"""memplan as a library (`memplan.api`): every job callable without the CLI, returning results
the CLI only formats."""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

from memplan import api
from memplan.cli import main

REPO = Path(__file__).resolve().parents[1]
LOOP_ALLOCA = REPO / "examples" / "loop_alloca.mlir"


def test_every_job_runs_without_the_cli() -> None:
    code = (
        "import sys\n"
        "from memplan import api\n"
        f"chunks = api.read({str(LOOP_ALLOCA)!r}).chunks\n"
        "checked = api.check(chunks, 'x86_64')\n"
        "rows = api.copies(chunks, iree=False)\n"
        "placed = api.place(chunks, 'x86_64')\n"
        "result = api.opt(chunks, 'x86_64')\n"
        "assert checked.errors == 1 and result.errors == 0 and not placed.unplaced\n"
        "assert not [m for m in sys.modules if m.startswith('memplan.cli')]\n"
        "print('ok')\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=False)
    assert proc.stdout == "ok\n", proc.stderr


def test_the_names_resolve() -> None:
    assert set(api.__all__) == set(api._HOME)
    assert sorted(dir(api)) == sorted(api.__all__)  # every job listed, none loaded yet
    for name in api.__all__:
        assert getattr(api, name) is not None


def test_check_is_what_the_command_reports() -> None:
    result = api.check(api.read(str(LOOP_ALLOCA)).chunks, "x86_64", path=str(LOOP_ALLOCA))
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["check", str(LOOP_ALLOCA), "--target", "x86_64"])
    assert code == 1 == result.errors
    last = out.getvalue().rstrip().splitlines()[-1]
    assert last == f"{result.errors} error(s), {result.warnings} warning(s) for target 'x86_64'"
    # Diagnostics on stderr, in MLIR's form, as editors and CI matchers read them.
    for d in result.diagnostics:
        assert f"{LOOP_ALLOCA}:{d.loc.line}:{d.loc.col}: {d.severity}: {d.message}" \
            in err.getvalue()


def test_opt_rejects_what_check_rejects_whatever_the_pipeline() -> None:
    chunks = api.read(str(LOOP_ALLOCA)).chunks
    result = api.opt(chunks, "x86_64", "constant-destinations", path=str(LOOP_ALLOCA))
    assert not result.rewrites.diagnostics  # nothing to rewrite: the pass says nothing
    assert [d.code for d in result.rejected if d.is_error] == ["stack-in-loop"]
    assert result.errors == 1


def test_the_readme_example_prints_what_it_shows() -> None:
    text = (REPO / "README.md").read_text()
    block = re.search(r"```python\n(from memplan import api\n.*?)```", text, re.S).group(1)
    shown = [line.removeprefix("# ") for line in block.splitlines() if line.startswith("# ")]
    out = io.StringIO()
    with contextlib.chdir(REPO), contextlib.redirect_stdout(out):
        exec(block, {})  # noqa: S102 - the README's own example
    assert out.getvalue().splitlines() == shown
