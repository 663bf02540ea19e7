"""The layers of docs/architecture.md hold: every import of every module is one its row allows.

The table is read from the doc itself (its "may import" column), so the doc cannot drift
from the code without this test failing; the imports are read with `ast`, every import
counted (inside functions and `if TYPE_CHECKING:` too: a lazy import is still a dependency).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "src" / "memplan"
DOC = REPO / "docs" / "architecture.md"
HEADER = "| layer | folder | job | may import |"

# Imports the table forbids that another branch removes: each must still occur here (else
# delete its entry), so an entry cannot outlive its reason.
KNOWN_DRIFT: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Row:
    layer: str
    units: frozenset[str]  # `ir` for `ir/`, `buffers` for `buffers.py`
    may_import: frozenset[str]


def _units(cell: str) -> list[str]:
    """The folders and modules a cell names in backticks, outside parentheses."""
    cell = re.sub(r"\([^)]*\)", "", cell)
    return [name.removesuffix("/").removesuffix(".py") for name in re.findall(r"`([^`]+)`", cell)]


def parse_table(text: str) -> tuple[list[Row], frozenset[str]]:
    """The rows of the layer table, and the shared units every row may import."""
    lines = text.splitlines()
    start = lines.index(HEADER) + 2  # past the header and its `| --- |` line
    cells = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        cells.append([c.strip() for c in line.strip().strip("|").split(" | ")])
    every = {unit for _, folder, _, _ in cells for unit in _units(folder)}
    rows = []
    for layer, folder, _, allowed in cells:
        units = frozenset(_units(folder))
        if allowed.startswith("everything"):
            may = frozenset(every - units - set(_units(allowed)))
        elif allowed.startswith("nothing"):
            may = frozenset()
        else:
            may = frozenset(_units(allowed))
        rows.append(Row(layer, units, may))
    shared = next(r.units for r in rows if r.layer == "shared")
    return rows, shared


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def unit_of(module: str, root: Path) -> str:
    """The table's unit of a module of the package at `root`: its first component below the
    package (`__init__` for the package itself and names defined in it)."""
    parts = module.split(".")
    if len(parts) < 2:
        return "__init__"
    first = parts[1]
    exists = (root / first).is_dir() or (root / f"{first}.py").is_file()
    return first if exists else "__init__"


def imports(path: Path, root: Path) -> set[str]:
    """Every module of the package at `root` that the file imports (absolute names)."""
    module = module_name(path, root)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[:len(package.split(".")) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            # `from .. import api` imports the module `api`; `from ..x import f` the module x.
            names = [target] if node.module else [f"{target}.{a.name}" for a in node.names]
        else:
            continue
        found.update(n for n in names if n == root.name or n.startswith(root.name + "."))
    return found


def violations(root: Path, rows: list[Row], shared: frozenset[str]
               ) -> tuple[list[tuple[str, str]], list[str]]:
    """(importing module, imported unit) for every import the table forbids, and the units
    of the package no row names."""
    row_of = {unit: row for row in rows for unit in row.units}
    bad, unnamed = [], set()
    for path in sorted(root.rglob("*.py")):
        module = module_name(path, root)
        unit = unit_of(module, root) if module != root.name else "__init__"
        row = row_of.get(unit)
        if row is None:
            unnamed.add(unit)
            continue
        for imported in imports(path, root):
            target = unit_of(imported, root)
            if target in row.units or target in shared or target in row.may_import:
                continue
            bad.append((module, target))
    return sorted(set(bad)), sorted(unnamed)


@pytest.fixture(scope="module")
def table() -> tuple[list[Row], frozenset[str]]:
    return parse_table(DOC.read_text())


def test_the_table_reads_as_written(table) -> None:
    rows, shared = table
    by_layer = {r.layer: r for r in rows}
    assert shared == {"errors", "extras", "diagnostic", "files", "limits"}
    assert by_layer["IR"].may_import == set()
    assert by_layer["analysis"].may_import == {"ir"}
    assert by_layer["targets"].may_import == set()
    assert by_layer["placement"].units == {"place"}
    assert {"api", "report", "check", "transforms"} <= by_layer["CLI"].may_import
    assert "cli" not in by_layer["library"].may_import
    assert {"cli", "api", "report", "runtimes"}.isdisjoint(by_layer["plan"].may_import)
    assert "check" in by_layer["plan"].may_import
    assert "plan" in by_layer["runtimes"].may_import
    # Only the library and the public integration modules reach a runtime's folder.
    assert "runtimes" not in by_layer["CLI"].may_import | by_layer["report"].may_import
    assert {"buffers", "plan", "runtimes"} <= {u for r in rows for u in r.units}
    assert "buffers" in by_layer["placement"].may_import


def test_every_module_imports_only_what_its_layer_may(table) -> None:
    rows, shared = table
    bad, unnamed = violations(PACKAGE, rows, shared)
    assert not unnamed, f"no row of docs/architecture.md names {unnamed}"
    unexpected = [b for b in bad if b not in KNOWN_DRIFT]
    assert not unexpected, "imports docs/architecture.md does not allow: " + ", ".join(
        f"{m} -> {u}/" for m, u in unexpected)


def test_known_drift_still_occurs(table) -> None:
    bad, _ = violations(PACKAGE, *table)
    assert not set(KNOWN_DRIFT) - set(bad), "fixed: remove from KNOWN_DRIFT"


def _tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / "memplan" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "memplan"


def test_a_forbidden_import_is_found(table, tmp_path: Path) -> None:
    rows, shared = table
    allowed = {
        "__init__.py": "",
        "ir/__init__.py": "from ..errors import InputError\n",
        "errors.py": "",
        "analysis/__init__.py": "",
        "analysis/ranges.py": "from ..ir import parse\nfrom . import census\n",
        "analysis/census.py": "import memplan.ir.walk\n",
        "pack/__init__.py": "",
        "check/__init__.py": "",
        "cli/__init__.py": "from .. import __version__\nfrom ..analysis import ranges\n",
    }
    root = _tree(tmp_path / "good", allowed)
    assert violations(root, rows, shared) == ([], [])
    # One import against the table each, in the ways a module may import.
    forbidden = {
        "pack/packer.py": ("from ..ir.types import element_bytes\n", "ir"),
        "analysis/late.py": ("def f():\n    from ..check import run_checks\n", "check"),
        "ir/typed.py": ("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
                        "    from memplan.analysis import census\n", "analysis"),
        "analysis/cli_use.py": ("from .. import cli\n", "cli"),
    }
    for name, (text, unit) in forbidden.items():
        root = _tree(tmp_path / name.replace("/", "_"), {**allowed, name: text})
        bad, unnamed = violations(root, rows, shared)
        module = "memplan." + name.removesuffix(".py").replace("/", ".")
        assert bad == [(module, unit)] and not unnamed, (name, bad)
    # A folder the table does not name is found too.
    root = _tree(tmp_path / "unnamed", {**allowed, "gadgets/__init__.py": ""})
    assert violations(root, rows, shared)[1] == ["gadgets"]


# The Python packages of the runtimes memplan plans for: only `runtimes/` imports them.
RUNTIME_PACKAGES = frozenset({"tvm", "tvm_ffi", "executorch", "torch", "torchvision", "onnx",
                              "tflite_micro", "sympy"})


def table_cycle(rows: list[Row]) -> list[str] | None:
    """A cycle of layers in the table's own "may import" column (None: there is none).
    The shared row is left out: every layer may import it, and it may import `ir/` for a
    diagnostic's place, which is not a layer above `ir/`."""
    units = {u: r.layer for r in rows for u in r.units}
    edges = {r.layer: {units[u] for u in r.may_import if u in units} - {r.layer}
             for r in rows if r.layer != "shared"}
    edges = {a: {b for b in bs if b in edges} for a, bs in edges.items()}
    return _cycle(edges)


def import_cycle(root: Path) -> list[str] | None:
    """A cycle among the package's units (folders and top-level modules) as they import
    each other (None: there is none)."""
    edges: dict[str, set[str]] = {}
    for path in sorted(root.rglob("*.py")):
        module = module_name(path, root)
        unit = unit_of(module, root) if module != root.name else "__init__"
        if unit == "__init__":
            continue
        targets = {unit_of(m, root) for m in imports(path, root)} - {unit, "__init__"}
        edges.setdefault(unit, set()).update(targets)
    return _cycle(edges)


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


def runtime_imports(root: Path) -> list[tuple[str, str]]:
    """(module, runtime package) for every import of a runtime's package outside
    `runtimes/`."""
    found = []
    for path in sorted(root.rglob("*.py")):
        module = module_name(path, root)
        if unit_of(module, root) == "runtimes":
            continue
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            else:
                continue
            found += [(module, n.split(".")[0]) for n in names
                      if n.split(".")[0] in RUNTIME_PACKAGES]
    return sorted(set(found))


def test_the_table_has_no_cycle(table) -> None:
    rows, _ = table
    assert table_cycle(rows) is None, " -> ".join(table_cycle(rows))


def test_the_package_has_no_import_cycle() -> None:
    cycle = import_cycle(PACKAGE)
    assert cycle is None, "units importing each other: " + " -> ".join(cycle)


def test_only_runtimes_import_a_runtimes_package() -> None:
    assert runtime_imports(PACKAGE) == []


def test_a_cycle_and_a_runtime_import_are_found(table, tmp_path: Path) -> None:
    """Each check fails on a planted import: an upward one that closes a cycle (report/
    <-> plan/), a cycle written into the table, and torch imported by the driver."""
    rows, shared = table
    planted = {
        "__init__.py": "",
        "plan/__init__.py": "",
        "plan/driver.py": "def f():\n    from ..report import table\n",
        "report/__init__.py": "",
        "report/table.py": "from ..plan import driver\n",
    }
    root = _tree(tmp_path / "cycle", planted)
    assert import_cycle(root) in (["plan", "report", "plan"], ["report", "plan", "report"])
    bad, _ = violations(root, rows, shared)
    assert ("memplan.plan.driver", "report") in bad
    looped = [Row(r.layer, r.units, r.may_import | {"report"}) if r.layer == "plan" else r
              for r in rows]
    assert table_cycle(looped) is not None
    root = _tree(tmp_path / "torch", {"__init__.py": "", "plan/__init__.py": "",
                                      "plan/driver.py": "def f():\n    import torch.export\n",
                                      "runtimes/__init__.py": "import torch\n"})
    assert runtime_imports(root) == [("memplan.plan.driver", "torch")]


def test_tests_do_not_import_benchmarks() -> None:
    scripts = {p.stem for p in (REPO / "benchmarks").glob("*.py")}
    found = []
    for path in sorted((REPO / "tests").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level \
                else []
            found += [f"{path.name}: {n}" for n in names
                      if n.split(".")[0] in scripts | {"benchmarks"}]
        if re.search(r"sys\.path\.\w+\(.*benchmarks", path.read_text()):
            found.append(f"{path.name}: benchmarks/ on sys.path")
    assert not found, found
