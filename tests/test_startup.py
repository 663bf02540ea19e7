"""`memplan pack` loads what packing needs and nothing else (docs/benchmarks.md, Issue 25:
start-up): each module below cost milliseconds of every run that never used it."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA, REPO

CHILD = """
import os, sys
from memplan.cli import main
code = main({argv!r})
print("loaded:", ",".join(sorted(sys.modules)), file=sys.stderr)
print("blas threads:", os.environ.get("OPENBLAS_NUM_THREADS"), file=sys.stderr)
sys.exit(code)
"""

# Loaded by the standard library or numpy for jobs a successful `pack --exact` run
# without output files has none of: masked arrays (np.unique's first call), a
# traceback, a temporary file, JSON, a thread pool's logging.
NOT_ON_THE_PACK_PATH = ("numpy.ma", "traceback", "tempfile", "json", "logging",
                        "concurrent.futures")


# What the kernels' backend itself loads: nothing with the extension compiled at
# install; with numba (a checkout without the extension, as CI's tests run from src),
# numba's compiler and cache loading bring several of the modules above, which is
# numba's cost, not the pack path's.
KERNELS_ONLY = """
import sys
from memplan.pack.search.decide import load_search
from memplan.pack.greedy.heuristics import prepare_greedy
load_search()
prepare_greedy(1 << 20)
print("loaded:", ",".join(sorted(sys.modules)), file=sys.stderr)
"""


def _child(code: str, extra_env: dict[str, str]) -> list[str]:
    env = {"PYTHONPATH": str(REPO / "src"), "PATH": os.environ["PATH"], **extra_env}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stderr.splitlines()


def _loaded(line: str) -> set[str]:
    return set(line.removeprefix("loaded: ").split(","))


# Six buffers whose first greedy plans peak at 21: fitting the bound, 19, takes a search.
SEARCHED = "id,lower,upper,size\n0,5,7,3\n1,3,5,5\n2,4,7,5\n3,3,7,3\n4,5,6,3\n5,3,6,5\n"


def run_pack(extra_env: dict[str, str], csv: Path | None = None) -> tuple[set[str], str]:
    csv = csv or DATA / "minimalloc" / "example.12.csv"
    argv = ["pack", str(csv), "--exact", "--summary"]
    lines = _child(CHILD.format(argv=argv), extra_env)
    return _loaded(lines[-2]), lines[-1].removeprefix("blas threads: ")


def test_pack_exact_loads_only_what_packing_needs(tmp_path):
    csv = tmp_path / "six.19.csv"
    csv.write_text(SEARCHED, encoding="utf-8")
    loaded, _ = run_pack({}, csv)
    assert "numpy" in loaded and "memplan.pack.search.decide" in loaded  # it did search
    backend = _loaded(_child(KERNELS_ONLY, {})[-1])
    assert sorted(m for m in NOT_ON_THE_PACK_PATH if m in loaded - backend) == []
    # The child's backend, not this process's: CI runs the tests from src (numba's JIT)
    # beside an install that has the extension. numba's JIT loads OpenSSL anyway.
    if "numba" not in backend:
        # OpenSSL, which hashlib loads first: the kernels' digest takes CPython's SHA-256.
        assert "_hashlib" not in loaded
    assert sorted(m for m in loaded if m.startswith("memplan.cli.")) == ["memplan.cli.args",
                                                                         "memplan.cli.pack"]


# What a `pack` whose greedy plan fits (example.12.csv: peak 12 in capacity 12) must not
# load: the search (with numba's JIT, a second of CPU; its kernels load at its first
# question), pathlib, which brings urllib.parse and ipaddress, and importlib.util, which
# only asking whether an extra is installed needs, and shutil (zlib, bz2, lzma), which
# argparse's help formatter loads to measure the terminal (issue 35: start-up).
NOT_FOR_A_GREEDY_FIT = ("numba", "memplan.pack.search.dfs", "memplan.pack.kernels.jit",
                        "pathlib", "urllib.parse", "ipaddress", "importlib.util",
                        "shutil", "lzma", "bz2")
# ... nor, with --exact, the search's Python modules: the greedy start is the answer.
NOT_WITHOUT_A_SEARCH = ("memplan.pack.search.exact", "memplan.pack.search.decide",
                        "memplan.pack.search.races", "memplan.pack.search.search_state",
                        "memplan.pack.search.windows", "memplan.pack.search.layers")


@pytest.mark.parametrize("exact", [False, True])
def test_a_greedy_fit_loads_no_search_and_no_pathlib(exact):
    argv = ["pack", str(DATA / "minimalloc" / "example.12.csv"), "--summary"]
    lines = _child(CHILD.format(argv=argv + ["--exact"] * exact), {})
    loaded = _loaded(lines[-2])
    assert "memplan.pack.greedy.heuristics" in loaded  # it did pack
    assert sorted(m for m in NOT_FOR_A_GREEDY_FIT + NOT_WITHOUT_A_SEARCH if m in loaded) == []


@pytest.mark.parametrize(("given", "expected"), [
    ({}, "1"),  # memplan does no linear algebra: OpenBLAS's threads would only spin
    ({"OPENBLAS_NUM_THREADS": "4"}, "4"),  # what the user set stands
    ({"OMP_NUM_THREADS": "3"}, "None"),  # ... OpenBLAS reads this one too
])
def test_one_blas_thread_unless_the_user_says_otherwise(given, expected):
    assert run_pack(given)[1] == expected


def test_executorchs_edge_op_table_parses_the_same_by_libyaml():
    """`runtimes/executorch/edge_yaml.py` parses ExecuTorch's edge-op table with libyaml
    while ExecuTorch is imported (1.7 s less CPU per `plan X.pt2`): the data must be what
    ExecuTorch's own ruamel parse gives, and ruamel must be itself again afterwards."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("executorch")  # found, not imported: that is the slow part
    if spec is None:
        pytest.skip("no executorch")
    import ruamel.yaml

    from memplan.runtimes.executorch.edge_yaml import libyaml_for_safe_loads

    (package,) = spec.submodule_search_locations
    text = (Path(package) / "exir" / "dialects" / "edge" / "edge.yaml").read_text(
        encoding="utf-8")
    own = ruamel.yaml.YAML(typ="safe").load(text)
    original = ruamel.yaml.YAML
    with libyaml_for_safe_loads():
        assert ruamel.yaml.YAML is not original or "executorch.exir.dialects.edge._ops" in \
            sys.modules  # ExecuTorch imported already in this process: nothing to speed up
        fast = ruamel.yaml.YAML(typ="safe").load(text)
    assert ruamel.yaml.YAML is original
    assert fast == own and len(own) > 100
