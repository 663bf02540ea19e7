"""Issue 31: strings in a .pt2 that torch reads as code, and what a refusal costs.

Torch's deserializer hands each symbolic size (`as_expr.expr_str`) to `sympy.sympify`,
which evaluates it as Python; a node's `target` names a callable that shape checking
calls; `guards_code` becomes Python `ExportedProgram.module()` compiles. Each payload
here creates a marker file if it runs (`test_the_sympy_payload_is_live` shows torch's
own loader runs it); memplan must refuse the file in one line and the marker must not
appear. Refusals happen before torch is imported (`test_refusal_before_torch`).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import zipfile
from pathlib import Path

import pt2_craft
import pytest

from memplan.errors import InputError
from memplan.runtimes.pt2 import check_archive, guard_problem, sym_expr_problem, target_problem


def _system(marker: Path) -> str:
    return f"__import__('os').system('touch {marker}')"


def _with_symbolic_dim(dst: Path, expr: str) -> Path:
    def change(members: dict[str, bytes]) -> None:
        program = json.loads(members["models/model.json"])
        values = program["graph_module"]["graph"]["tensor_values"]
        next(iter(values.values()))["sizes"][0] = {"as_expr": {"expr_str": expr, "hint": None}}
        members["models/model.json"] = json.dumps(program).encode()
    return pt2_craft.rewrite(dst, change)


def _with_program(dst: Path, edit) -> Path:
    def change(members: dict[str, bytes]) -> None:
        program = json.loads(members["models/model.json"])
        edit(program)
        members["models/model.json"] = json.dumps(program).encode()
    return pt2_craft.rewrite(dst, change)


def _plan(model: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "memplan", "plan", str(model), "--summary",
                           *args], capture_output=True, text=True, timeout=300)


@pytest.mark.parametrize("runtime", [[], ["--runtime", "tvm"]])
def test_a_symbolic_size_that_runs_python_is_refused(tmp_path, runtime):
    marker = tmp_path / "payload-ran"
    model = _with_symbolic_dim(tmp_path / "evil.pt2", _system(marker) + " + 1")
    done = _plan(model, *runtime)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "refused: symbolic size" in lines[0]
    assert not marker.exists()


@pytest.mark.parametrize("expr", ["(((99**64)**64)**64)**64 + s0", "Pow(Pow(99, 64), 64) + s0",
                                  "Pow(2, 10**39) + s0", "s0**(2**64)"])
def test_a_symbolic_size_sympy_would_never_finish_folding_is_refused(tmp_path, expr):
    """sympy folds a power of numbers at once: 99**(64**4) has 33 million digits, one more
    power would never finish. The archive check refuses it before torch is imported."""
    model = _with_symbolic_dim(tmp_path / "tower.pt2", expr)
    with pytest.raises(InputError, match="refused: symbolic size"):
        check_archive(model)


def test_the_sympy_payload_is_live(tmp_path):
    """torch's own loader, unguarded, runs the expression: the test above means something."""
    import torch

    marker = tmp_path / "payload-ran"
    model = _with_symbolic_dim(tmp_path / "evil.pt2", _system(marker) + " + 1")
    try:
        torch.export.load(str(model))
    except Exception:  # noqa: BLE001, S110 - the payload runs before torch rejects the graph
        pass
    assert marker.exists()


@pytest.mark.parametrize(("edit", "reason"), [
    (lambda p: p["graph_module"]["graph"]["nodes"][0].__setitem__("target", "torch.save"),
     "node target 'torch.save'"),
    (lambda p: p.__setitem__("guards_code", ["__import__('os').system('true')"]),
     r"guards_code\[0\] is Python"),
    (lambda p: p.__setitem__("range_constraints", {"__import__('os')": {"min_val": 0}}),
     "range constraint on"),
])
def test_other_strings_torch_evaluates_are_refused(tmp_path, edit, reason):
    model = _with_program(tmp_path / "evil.pt2", edit)
    with pytest.raises(InputError, match=reason):
        check_archive(model)


def test_the_grammars_accept_what_torch_writes():
    s0 = "Symbol('s0', integer=True, positive=True)"
    assert sym_expr_problem(f"Add(Mul(Integer(2), {s0}), floor(Mul(Rational(1, 3), {s0})))") \
        is None
    assert sym_expr_problem("Max(Integer(4), s0) + FloorDiv(u1, 2)") is None
    for power in ("s0**2", "(s0 + 1)**2", "1/s0", "s0**(-1)", "Pow(Symbol('s0'), Integer(-2))"):
        assert sym_expr_problem(power) is None, power
    assert guard_problem("L['x'].size()[0] <= 8 and L['x'].stride()[1] == 3") is None
    assert target_problem("torch.ops.aten.conv2d.default") is None
    assert target_problem("_operator.getitem") is None
    for bad in ("s0.__class__", "Symbol('s0', integer=__import__)", "2**10**10",
                "eval('1')", "Integer(1).func", "(lambda: 1)()", "s0[0]", "'a' + 'b' * 9"):
        assert sym_expr_problem(bad), bad
    for bad in ("L['x'].__class__", "open('f')", "L['x'].size()[0] == L.get('y')"):
        assert guard_problem(bad), bad
    for bad in ("torch.load", "os.system", "math.prod", "#custom", "torch.ops.aten"):
        assert target_problem(bad), bad


def test_a_member_path_leaving_the_top_folder_is_refused(tmp_path):
    src = pt2_craft.TINY
    dst = tmp_path / "dots.pt2"
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w") as b:
        for info in a.infolist():
            b.writestr(info.filename, a.read(info.filename))
        top = a.namelist()[0].partition("/")[0]
        b.writestr(f"{top}/../../outside", b"x")
    with pytest.raises(InputError, match="not a plain path inside the top folder"):
        check_archive(dst)


@pytest.mark.parametrize("suffix", ["models/model.json\0", "x\0/../../../outside",
                                    "data/weights/w\0.pt"])
def test_a_member_name_with_a_nul_is_refused(tmp_path, suffix):
    """zipfile cuts a name at its NUL, torch's reader does not: the two would disagree on
    which member is which."""
    src = pt2_craft.TINY
    dst = tmp_path / "nul.pt2"
    with zipfile.ZipFile(src) as a, zipfile.ZipFile(dst, "w") as b:
        for info in a.infolist():
            b.writestr(info.filename, a.read(info.filename))
        top = a.namelist()[0].partition("/")[0]
        # zipfile would cut the name it writes too: written with \1, then patched.
        b.writestr(f"{top}/{suffix}".replace("\0", "\1"), b"x")
    name = f"{top}/{suffix}".encode()
    data = dst.read_bytes()
    assert data.count(name.replace(b"\0", b"\1")) == 2  # local header, central directory
    dst.write_bytes(data.replace(name.replace(b"\0", b"\1"), name))
    with pytest.raises(InputError, match="NUL in its name"):
        check_archive(dst)


def test_refusal_before_torch(tmp_path):
    """A non-zip .pt2 and a refused archive never import torch (it costs ~1 GB)."""
    junk = tmp_path / "junk.pt2"
    junk.write_bytes(b"not a zip archive" * 100)
    evil = _with_symbolic_dim(tmp_path / "evil.pt2", "__import__('os') + 1")
    for model, runtime in ((junk, "executorch"), (junk, "tvm"), (evil, "executorch")):
        code = ("import sys; from memplan.cli import main; "
                f"rc = main(['plan', {str(model)!r}, '--runtime', {runtime!r}]); "
                "print(rc, 'torch' in sys.modules)")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=120)
        assert done.stdout.split() == ["2", "False"], done.stdout + done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


PAYLOADS = ["__import__('os').system('touch {m}')", "open('{m}', 'w')",
            "exec(\"open('{m}','w')\")", "s0.__class__.__base__", "lambda: 0",
            "getattr(s0, 'func')", "Symbol('s0').subs", "[s0 for s0 in (1,)]"]


def test_seeded_field_mutations_never_pass_a_payload(tmp_path):
    """Every string field of model.json that torch evaluates, replaced with a payload at a
    seeded random place: each archive is refused before torch reads it."""
    marker = tmp_path / "payload-ran"
    rng = random.Random(31)
    program = json.loads(zipfile.ZipFile(pt2_craft.TINY).read(
        next(n for n in zipfile.ZipFile(pt2_craft.TINY).namelist()
             if n.endswith("models/model.json"))))
    nodes = len(program["graph_module"]["graph"]["nodes"])
    tensors = list(program["graph_module"]["graph"]["tensor_values"])
    refused = 0
    for case in range(40):
        payload = rng.choice(PAYLOADS).format(m=marker)
        field = rng.choice(["expr_str", "target", "guards_code"])
        node_i, tensor = rng.randrange(nodes), rng.choice(tensors)

        def edit(p, field=field, payload=payload, node_i=node_i, tensor=tensor):
            graph = p["graph_module"]["graph"]
            if field == "expr_str":
                graph["tensor_values"][tensor]["sizes"][0] = {
                    "as_expr": {"expr_str": payload, "hint": None}}
            elif field == "target":
                graph["nodes"][node_i]["target"] = payload
            else:
                p["guards_code"] = [payload]
        model = _with_program(tmp_path / f"case{case}.pt2", edit)
        with pytest.raises(InputError, match="refused"):
            check_archive(model)
        refused += 1
    assert refused == 40 and not marker.exists()
