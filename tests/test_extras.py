"""Each job runs on its own extra: a missing one is one line naming it, exit 2.

Each case runs memplan in a child process whose import system refuses the
optional libraries (a meta-path finder that raises, as a fresh venv without
the extra would), so the test holds whatever this environment has installed.
"""

import subprocess
import sys

import pytest
from conftest import DATA, REPO

from memplan.cli import COMMANDS

EXAMPLES = REPO / "examples"

# Every library of every extra, and the kernels built at install (to reach the numba path).
ALL_OPTIONAL = ("iree", "tflite_micro", "onnx", "executorch", "torch", "tvm", "matplotlib",
                "numba", "llvmlite", "memplan.pack.kernels._kernels")

CHILD = """
import sys

class Refuse:
    def __init__(self, names):
        self.names = names

    def find_spec(self, name, path=None, target=None):
        if any(name == n or name.startswith(n + ".") for n in self.names):
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, Refuse({refused!r}))
from memplan.cli import main
code = main({argv!r})
loaded = sorted(m for m in sys.modules if m.split(".")[0] in {tops!r})
print("loaded:", ",".join(loaded), file=sys.stderr)
sys.exit(code)
"""


def run_without(refused: tuple[str, ...], argv: list[str], cwd=None):
    tops = sorted({n.split(".")[0] for n in ALL_OPTIONAL} - {"memplan"})
    code = CHILD.format(refused=refused, argv=argv, tops=tops)
    env_path = str(REPO / "src")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=cwd, env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"},
                          timeout=120, check=False)
    lines = proc.stderr.splitlines()
    loaded = lines.pop()
    assert loaded.startswith("loaded:"), proc.stderr
    return proc.returncode, proc.stdout, lines, loaded[len("loaded:"):].strip()


@pytest.mark.parametrize(("argv", "extra"), [
    (["plan", str(EXAMPLES / "tiny_resnet.pt2")], "executorch"),
    (["plan", str(EXAMPLES / "attention_block.tflite")], "tflite"),
    (["plan", str(DATA / "small_cnn.onnx")], "onnx"),
    (["check", str(EXAMPLES / "loop_alloca.mlir"), "--target", "x86_64"], "mlir"),
    (["opt", str(EXAMPLES / "loop_alloca.mlir"), "--target", "x86_64"], "mlir"),
    (["place", str(EXAMPLES / "placement.mlir"), "--target", "x86_64"], "mlir"),
    (["copies", str(EXAMPLES / "kv_cache_append.mlir")], "mlir"),
    (["passes"], "mlir"),
    # TVMScript: TIR kernels under `check`, a Relax module under `plan`.
    (["check", str(EXAMPLES / "tvm_kernels.py"), "--target", "x86_64"], "tvm"),
    (["plan", str(EXAMPLES / "tvm_mlp.py")], "tvm"),
    (["pack", str(EXAMPLES / "mobilenet_blocks.294912.csv"), "--plot", "x.svg"], "plot"),
    # A search that runs (the greedy plan is 1.048 of the bound): with `--exact` the greedy
    # plan fits this capacity, and the search, which alone needs the kernels, never starts.
    (["pack", str(EXAMPLES / "mobilenet_blocks.294912.csv"), "--minimize"], "jit"),
])
def test_a_missing_extra_is_one_line_naming_it(argv, extra, tmp_path):
    code, out, err, _ = run_without(ALL_OPTIONAL, argv, cwd=tmp_path)
    assert code == 2, err
    assert len(err) == 1 and f"pip install 'memplan[{extra}]'" in err[0], err
    assert "internal error" not in err[0]
    assert not list(tmp_path.iterdir()), "nothing is written"


def test_the_main_job_runs_on_the_base_install(tmp_path):
    """`pack` with every optional library refused, the kernels built at install included:
    the plain Python packers plan it, and nothing optional was even looked for successfully."""
    code, out, err, loaded = run_without(
        ALL_OPTIONAL, ["pack", str(EXAMPLES / "mobilenet_blocks.294912.csv"), "--summary"])
    assert code == 0, err
    assert "fits capacity       yes" in out
    assert loaded == ""


def test_a_missing_file_is_said_before_any_extra_is_needed():
    code, _, err, loaded = run_without(("executorch", "torch"), ["plan", "nonexist.pt2"])
    assert code == 2 and err == ["memplan: nonexist.pt2: cannot read file: No such file or "
                                 "directory"]
    assert loaded == ""


def test_an_unknown_model_suffix_lists_every_known_one(tmp_path):
    model = tmp_path / "m.bin"
    model.write_bytes(b"\0")
    code, _, err, _ = run_without(ALL_OPTIONAL, ["plan", str(model)])
    assert code == 2 and len(err) == 1
    assert all(s in err[0] for s in (".tflite", ".onnx", ".pt2")), err


def test_a_missing_submodule_of_an_installed_extra_is_not_called_an_extra():
    """Only the libraries of an extra map to the install hint; memplan's own missing
    module stays a bug."""
    from memplan.extras import Extra, missing_extra_of

    assert missing_extra_of(ModuleNotFoundError(name="torch.export")) is Extra.EXECUTORCH
    assert missing_extra_of(ModuleNotFoundError(name="iree")) is Extra.MLIR
    assert missing_extra_of(ModuleNotFoundError(name="memplan.nothing")) is None
    assert missing_extra_of(ModuleNotFoundError(name="torchvision")) is None


def test_the_listing_says_what_each_command_module_says():
    """`memplan --help` lists the commands without importing them: its summaries must be
    the ones each command's own parser gives."""
    from memplan.cli import COMMANDS, build_parser

    for entry in COMMANDS:
        sub = next(a for a in build_parser([entry.name])._actions if a.choices)
        listed = {a.dest: a.help for a in sub._choices_actions}
        assert listed[entry.name] == entry.summary, entry.name


def test_help_and_a_missing_file_import_no_command_they_do_not_run():
    code = ("import sys; from memplan.cli import main\n"
            "for argv in (['check', 'nonexist.mlir', '--target', 'x86_64'], ['plan', 'x.pt2']):\n"
            "    assert main(argv) == 2\n"
            "print(sorted(m for m in sys.modules if m.startswith(('memplan.cli.', 'iree.', "
            "'torch', 'executorch', 'memplan.pack', 'numpy'))))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO / "src")}, check=True, timeout=60)
    assert proc.stdout.strip() == "['memplan.cli.args', 'memplan.cli.check', 'memplan.cli.plan']"


def test_bare_memplan_prints_the_help(capsys):
    from memplan.cli import main

    assert main([]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: memplan") and all(c.name in out for c in COMMANDS)


def test_version_names_the_runtimes_without_importing_them():
    code = ("import sys; from memplan.cli import main\n"
            "try:\n    main(['--version'])\nexcept SystemExit as e:\n    assert e.code == 0\n"
            "print('imported:', [m for m in ('iree', 'executorch', 'tflite_micro', 'tvm') "
            "if m in sys.modules])")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONPATH": str(REPO / "src")}, check=True, timeout=60)
    lines = proc.stdout.splitlines()
    assert lines[0].startswith("memplan 0.")
    assert [line.split()[0] for line in lines[2:6]] == ["IREE", "ExecuTorch", "TFLM", "TVM"]
    assert lines[-1] == "imported: []"
