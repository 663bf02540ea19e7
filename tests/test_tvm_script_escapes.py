"""Issue 31: reading a TVMScript file never runs code the file chose.

The corpus (tests/tvmscript_escapes.py) is generated from TVM's installed script
namespaces: every way out the attackers reported, in every placement TVM's parser
evaluates, plus one callable of each kind an attribute chain reaches. Each case must
exit 2 with one line, and the marker file its payload would write must not exist.
`test_corpus_is_live` shows the payloads do write the marker when TVM parses them
unguarded, so a missing marker means the guard held, not that the payload was inert.
"""

from __future__ import annotations

import pytest

pytest.importorskip("tvm")

import tvmscript_escapes as esc  # noqa: E402

from memplan.cli import main  # noqa: E402
from memplan.errors import InputError  # noqa: E402
from memplan.runtimes.tvm.script import _Guard, allowed_objects, check_script  # noqa: E402

WRITERS = sorted(esc.writers("MARKER"))
KINDS = esc.reachable()
PLACES = sorted(esc.PLACEMENTS)


def _refused(tmp_path, capsys, text: str, command: list[str]) -> str:
    marker = tmp_path / "marker"
    path = tmp_path / "evil.py"
    path.write_text(text.replace("MARKER", str(marker)))
    code = main([command[0], str(path), *command[1:]])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback (most recent" not in err and len(err.strip().splitlines()) == 1, err
    assert str(path) in err and "refused" in err
    assert not marker.exists(), "the payload ran"
    return err


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("writer", WRITERS)
def test_writer_refused_by_check(tmp_path, capsys, writer, place):
    expr = esc.writers("MARKER")[writer]
    _refused(tmp_path, capsys, esc.script(place, expr), ["check", "--target", "cortex-m4"])


@pytest.mark.parametrize("writer", WRITERS)
def test_writer_refused_by_plan(tmp_path, capsys, writer):
    expr = esc.writers("MARKER")[writer]
    _refused(tmp_path, capsys, esc.script("func_attr", expr), ["plan", "--runtime", "tvm"])


def test_alias_of_a_module_refused(tmp_path, capsys):
    err = _refused(tmp_path, capsys, esc.alias_script("MARKER"), ["check", "--target", "x86_64"])
    assert "T.external_kernel refused" in err


@pytest.mark.parametrize("place", PLACES)
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_each_kind_of_reachable_callable_refused(tmp_path, capsys, kind, place):
    """One chain per kind, the deepest (most likely past a prefix rule), called with
    the marker's path."""
    allowed = _allowed_chains()
    chains = [c for c in KINDS[kind] if c not in allowed]
    if not chains:
        pytest.skip(f"every {kind} chain is an IR builder TVMScript names")
    chain = max(chains, key=lambda c: (c.count("."), c))
    _refused(tmp_path, capsys, esc.script(place, f"{chain}('MARKER')"),
             ["check", "--target", "cortex-m4"])


def _allowed_chains() -> set[str]:
    out = set()
    for where, names in allowed_objects().items():
        if where == "Axis":
            continue
        for name in names:
            out.add(f"{where}.{name}")
    return out


def test_every_reachable_chain_refused_unless_an_ir_builder():
    """The sweep: all ~5,000 chains, in a `T.evaluate(...)` statement."""
    allowed = _allowed_chains()
    passed = []
    count = 0
    for chains in KINDS.values():
        for chain in chains:
            count += 1
            try:
                check_script(esc.script("statement", f"T.evaluate({chain}(1))"), "x.py")
            except InputError:
                continue
            passed.append(chain)
    assert count > 1000
    assert [c for c in passed if c not in allowed] == []
    # What passes is TVM's IR builders, operators and IR classes, and nothing else.
    for chain in passed:
        obj = allowed_objects()[chain.rsplit(".", 1)[0]][chain.rsplit(".", 1)[1]]
        module = getattr(getattr(obj, "func", obj), "__module__", "")
        assert module.startswith("tvm.") and not module.startswith("tvm.backend."), chain


@pytest.mark.parametrize("writer", WRITERS)
def test_corpus_is_live(tmp_path, writer):
    """TVM's parser, unguarded, runs the payload: the corpus tests something."""
    from tvm.script.parser.core.entry import parse

    from memplan.runtimes.tvm.script import dsl_globals

    marker = tmp_path / "marker"
    text = esc.script("statement", esc.writers(str(marker))[writer])
    try:
        parse(text, extra_vars=dsl_globals())
    except Exception:  # noqa: BLE001, S110 - the payload runs before the IR is judged
        pass
    assert marker.exists()


@pytest.mark.parametrize("writer", WRITERS)
def test_audit_guard_stops_a_payload_the_static_check_would_miss(tmp_path, writer):
    """The second layer alone: TVM parses the payload (no `check_script`) under the
    audit hook, which refuses the first event a parse never needs."""
    from tvm.script.parser.core.entry import parse

    from memplan.runtimes.tvm.script import dsl_globals

    marker = tmp_path / "marker"
    text = esc.script("statement", esc.writers(str(marker))[writer])
    refused: list[str] = []
    with pytest.raises(Exception), _Guard.armed(refused):  # noqa: B017, PT011 - TVM's own type
        parse(text, extra_vars=dsl_globals())
    assert refused and not marker.exists()


def test_valid_scripts_still_load(tmp_path, capsys):
    from pathlib import Path

    from memplan.runtimes.tvm.script import load_script

    root = Path(__file__).resolve().parents[1] / "examples"
    for name in ("tvm_kernels.py", "tvm_mlp.py"):
        assert load_script(root / name) is not None


# Issue 31, second round: escapes that name no module (dunders, format strings, parser
# entries given a string, builtins, a module's name) and payloads that would hang or
# exhaust memory while TVM folds constants, in 22 more places.
ATTEMPTS = sorted(esc.attempts("MARKER"))
LIVE = ("dunder_subclasses", "dunder_globals", "builtins_via_getattr", "meta_var",
        "entry_parse", "tir_entry_parse", "pyfunc", "eval_name", "exec_name",
        "pathlib_via_external_kernel")
# A kernel that calls a C function by name, called on a constant: TVM's Relax pipeline
# folds it by compiling and running the kernel, under `plan` (no --check-run).
FOLDED = """# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def evil(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        T.evaluate(T.call_extern("int32", "system", "touch MARKER"))
        for i in range(4):
            B[i] = A[i] + T.float32(1.0)

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        c = R.broadcast_to(R.const(1.0, "float32"), R.shape([4]))
        y = R.call_tir(cls.evil, (c,), out_ty=R.Tensor((4,), dtype="float32"))
        z = R.add(x, y)
        return z
"""


@pytest.mark.parametrize("place", ["if_condition", "relax_body", "default_argument"])
@pytest.mark.parametrize("attempt", ATTEMPTS)
def test_attempt_refused_by_check(tmp_path, capsys, attempt, place):
    text = esc.more_script(place, esc.attempts("MARKER")[attempt])
    _refused(tmp_path, capsys, text, ["check", "--target", "cortex-m4"])


@pytest.mark.parametrize("attempt", ATTEMPTS)
def test_attempt_refused_by_plan(tmp_path, capsys, attempt):
    _refused(tmp_path, capsys, esc.more_script("relax_body", esc.attempts("MARKER")[attempt]),
             ["plan", "--runtime", "tvm"])


def test_every_attempt_in_every_place_refused_before_tvm_parses():
    """The matrix, through the static check alone (each would reach TVM's parser next)."""
    count = 0
    for place in esc.MORE_PLACEMENTS:
        for expr in esc.attempts("/nonexistent/marker").values():
            text = esc.more_script(place, expr)
            try:
                compile(text, "x.py", "exec", flags=0x400, dont_inherit=True)  # ast only
            except SyntaxError:
                continue  # Python refuses it before anyone could (an f-string's quotes)
            count += 1
            with pytest.raises(InputError):
                check_script(text, "x.py")
    assert count > 700


@pytest.mark.parametrize("attempt", LIVE)
def test_attempts_are_live(tmp_path, attempt):
    """TVM's parser, unguarded, runs each payload that writes: the corpus tests something."""
    from tvm.script.parser.core.entry import parse

    from memplan.runtimes.tvm.script import dsl_globals

    marker = tmp_path / "marker"
    text = esc.more_script("if_condition", esc.attempts(str(marker))[attempt])
    try:
        parse(text, extra_vars=dsl_globals())
    except Exception:  # noqa: BLE001, S110 - the payload runs before the IR is judged
        pass
    assert marker.exists()


def test_a_kernel_calling_a_c_function_is_refused_before_constant_folding_runs_it(
        tmp_path, capsys):
    err = _refused(tmp_path, capsys, FOLDED, ["plan", "--runtime", "tvm"])
    assert "T.call_extern refused" in err


# What TVM's tutorials and printer write for private functions and blocks: the import
# lines with their usual aliases, decorator factories called with keywords (which capture
# the caller's stack), `T.axis` in a block.
_AS_USERS_WRITE = '''\
from tvm.script import ir as I
from tvm.script import tirx as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def twice(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        with T.sblock("root"):
            for i in range(16):
                with T.sblock("b"):
                    vi = T.axis.spatial(16, i)
                    B[vi] = A[vi] * T.float32(2)

    @R.function(private=False)
    def main(x: R.Tensor((16,), "float32")) -> R.Tensor((16,), "float32"):
        cls = Module
        y = R.call_tir(cls.twice, (x,), out_ty=R.Tensor((16,), "float32"))
        return y
'''


def test_a_script_as_users_write_it_is_read(tmp_path):
    from memplan.runtimes.tvm.script import load_script

    path = tmp_path / "mod.py"
    path.write_text(_AS_USERS_WRITE)
    mod = load_script(path)
    assert sorted(gv.name_hint for gv in mod.get_global_vars()) == ["main", "twice"]
    assert "global_symbol" not in (mod["twice"].attrs or {})


@pytest.mark.parametrize("line", ["from tvm.script import relax as T",
                                  "from tvm.script import tirx as R",
                                  "from tvm.script import ir as os"])
def test_an_import_alias_other_than_the_usual_one_is_refused(line):
    with pytest.raises(InputError, match="refused"):
        check_script(_AS_USERS_WRITE.replace("from tvm.script import relax as R", line), "m.py")
