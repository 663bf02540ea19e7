"""`memplan plan --rewrite` on TFLM (issue 34): the floor of any order, operator order and
in-place operators, each proven by running the rewritten model on TFLM's interpreter and
comparing its outputs byte for byte with the input's under TFLM's own plan."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("tflite_micro")

from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema  # noqa: E402
from tflite_ops import Graph, branches_model, cnn5, kernel_model  # noqa: E402

from memplan.errors import InputError  # noqa: E402
from memplan.plan.contract import ReadOptions  # noqa: E402
from memplan.plan.driver import check_run, plan_model  # noqa: E402
from memplan.plan.order import Graph as OrderGraph  # noqa: E402
from memplan.plan.order import Step, order_peak, search_order  # noqa: E402
from memplan.plan.rewrites import RewriteKind, RewriteOptions, parse  # noqa: E402
from memplan.runtimes.tflm import model as tfl  # noqa: E402
from memplan.runtimes.tflm.inplace import KINDS, NARROWING  # noqa: E402


def _plan(path, kinds: tuple[RewriteKind, ...], everything: bool = False):
    options = ReadOptions(write=True, time_limit=None,
                          rewrites=RewriteOptions(kinds, everything))
    return plan_model(str(path), options=options)


def test_order_search_keeps_dependencies_and_finds_the_lower_order():
    # 0: x -> a (big); 1: x -> b1 (big); 2: b1 -> b (small); 3: a -> c (small); 4: b, c -> y
    sizes = (10, 100, 100, 1, 1, 1)
    steps = (Step((0,), (1,)), Step((0,), (2,)), Step((2,), (3,)), Step((1,), (4,)),
             Step((3, 4), (5,)))
    graph = OrderGraph(steps, sizes, frozenset({5}))
    assert order_peak(graph, range(5)) == 210
    order, peak = search_order(graph)
    assert peak == 111 and order_peak(graph, order) == 111
    position = {op: i for i, op in enumerate(order)}
    for i, step in enumerate(steps):
        for b in step.reads:
            producer = next((j for j, s in enumerate(steps) if b in s.writes), None)
            assert producer is None or position[producer] < position[i]


def test_floor_is_below_the_bound_and_names_its_operator(tmp_path):
    path = tmp_path / "branches.tflite"
    path.write_bytes(branches_model())
    _, plan = plan_model(str(path), options=ReadOptions(time_limit=None))
    floor = plan.floors[0]
    assert floor.operator is not None and floor.operator.name.startswith("FULLY_CONNECTED")
    # x (256 B) and one 1 KiB output: the most any one operator holds.
    assert floor.bytes == 256 + 1024
    assert plan.floor == floor.bytes < plan.lower_bound == 256 + 2 * 1024
    assert any("(the floor)" in n and "--rewrite reorder" in n for n in plan.notes)


def test_reorder_lowers_the_bound_and_tflms_arena_with_the_same_outputs(tmp_path):
    path = tmp_path / "branches.tflite"
    path.write_bytes(branches_model())
    fe, plan = _plan(path, (RewriteKind.REORDER,))
    (done,) = plan.rewrites
    assert done.kept and done.bound_after < done.bound_before == plan.original_lower_bound
    assert plan.lower_bound == done.bound_after
    # x lives until both branches ran, beside the small result of the first branch run:
    # the best any order does, 64 B above the floor.
    assert plan.lower_bound == 256 + 1024 + 64 == plan.floor + 64
    written = tfl.parse_tflite(plan.written, str(path))
    assert [op.name for op in written.ops] != [op.name for op in tfl.load_tflite(path).ops] \
        or [op.outputs for op in written.ops] != [op.outputs for op in
                                                  tfl.load_tflite(path).ops]
    check = check_run(fe, plan)
    assert check.identical
    assert check.planned.arena < check.original.arena


def test_rewrite_is_not_kept_when_the_bound_does_not_drop(tmp_path):
    path = tmp_path / "chain.tflite"
    path.write_bytes(kernel_model("RELU", "float32"))
    _, plan = _plan(path, (RewriteKind.REORDER,))
    (done,) = plan.rewrites
    assert not done.kept and "no order" in done.reason
    assert plan.view.source.data == plan.view.source.input


@pytest.mark.parametrize("kind,dtype,constant_first,out_dtype", [
    # Every kind and element type `KINDS` accepts (QUANTIZE: a requantization, int to int).
    *((k, t.lower(), False, None) for k, kind in KINDS.items() for t in sorted(kind.types)),
    ("ADD", "float32", True, None), ("MUL", "float32", True, None),
    ("ADD", "int8", True, None), ("MAXIMUM", "int16", True, None),
    # Narrowing (4 bytes in, 1 out; ...): every pair `NARROWING` accepts.
    *(("QUANTIZE", a.lower(), False, b.lower()) for a, b in sorted(NARROWING["QUANTIZE"])),
])
def test_each_in_place_kind_runs_in_place_on_tflm(kind, dtype, constant_first, out_dtype,
                                                   tmp_path):
    path = tmp_path / f"{kind}.tflite"
    path.write_bytes(kernel_model(kind, dtype, constant_first=constant_first,
                                  out_dtype=out_dtype))
    fe, plan = _plan(path, (RewriteKind.INPLACE,))
    (done,) = plan.rewrites
    assert done.kept, done.reason
    model = plan.view.source.model
    op = next(op for op in model.ops if op.name == kind)
    out, src = op.outputs[0], model.shares[op.outputs[0]]
    assert src in op.inputs
    offsets = plan.arenas[0].offsets
    assert offsets[out] == offsets[src]  # the output is written over its input
    check = check_run(fe, plan)
    assert check.identical
    assert check.planned.arena <= check.original.arena


def test_quantize_narrows_in_place_over_a_dying_model_input(tmp_path):
    # MCUNet's vww: a float32 image quantized to int8 first; TFLM's planner reuses an
    # input's bytes after its last reader too, so the int8 copy may sit on them.
    g = Graph()
    x = g.tensor("x", [1, 16, 16, 4])
    y = g.tensor("y", [1, 16, 16, 4], "int8", scale=0.03, zero_point=-5)
    z = g.tensor("z", [1, 16, 16, 4], "int8", scale=0.03, zero_point=-5)
    g.op("QUANTIZE", [x], [y])
    g.op("RELU", [y], [z])
    g.inputs, g.outputs = [x], [z]
    path = tmp_path / "quantize_input.tflite"
    path.write_bytes(g.finish())
    fe, plan = _plan(path, (RewriteKind.INPLACE,))
    (done,) = plan.rewrites
    assert done.kept, done.reason
    model = plan.view.source.model
    assert model.shares.get(y) == x
    assert plan.arenas[0].offsets[y] == plan.arenas[0].offsets[x]
    check = check_run(fe, plan)
    assert check.identical
    assert check.planned.arena < check.original.arena


def test_in_place_refuses_a_broadcast_and_a_model_input(tmp_path):
    g = Graph()
    x = g.tensor("x", [1, 1024])
    c = g.weights("c", [1, 1])
    y = g.tensor("y", [1, 1024])
    g.op("ADD", [x, c], [y], options=schema.AddOptionsT(),
         options_type=schema.BuiltinOptions.AddOptions)
    g.inputs, g.outputs = [x], [y]
    path = tmp_path / "broadcast.tflite"
    path.write_bytes(g.finish())
    _, plan = _plan(path, (RewriteKind.INPLACE,))
    (done,) = plan.rewrites
    assert not done.kept and not plan.view.source.model.shares


def test_patches_through_the_command_is_run_checked_and_reports_macs(tmp_path, capsys):
    """`--rewrite patches` on a CNN whose first layers hold the bound: the patched model is
    written only after TFLM ran it with outputs identical, and the JSON says what it cost."""
    from memplan.cli import main
    from memplan.report.json_schema import plan_json_problems

    path, out = tmp_path / "cnn5.tflite", tmp_path / "out.tflite"
    path.write_bytes(cnn5(48))
    assert main(["plan", str(path), "--rewrite", "patches", "--max-recompute", "0.2",
                 "-o", str(out), "--json", "--check-run", "--time-limit", "0"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert plan_json_problems(document) == []
    (done,) = document["rewrites"]
    assert done["rewrite"] == "patches" and done["kept"]
    assert 0 < done["mac_overhead"] <= 0.2
    (said,) = done["what"]
    assert said.startswith("operators 0-") and "at the image border) assembled into" in said, said
    assert f"schedule bound {document['original_lower_bound']:,} B -> " in said, said
    assert document["arenas"][0]["lower_bound"] < document["original_lower_bound"]
    assert document["check"]["identical"] is True
    assert out.read_bytes() != path.read_bytes()


def test_rewrite_names_are_checked():
    assert parse("inplace,reorder", "tflm").kinds == (RewriteKind.REORDER, RewriteKind.INPLACE)
    assert RewriteKind.REORDER in parse("all", "tflm").kinds
    with pytest.raises(InputError, match="unknown rewrite 'fold'"):
        parse("fold", "tflm")
    with pytest.raises(InputError, match="not built for onnx"):
        parse("reorder", "onnx")


def test_cli_json_reports_rewrites_and_floor(tmp_path, capsys):
    from memplan.cli import main
    from memplan.report.json_schema import plan_json_problems

    path = tmp_path / "branches.tflite"
    path.write_bytes(branches_model())
    out = tmp_path / "out.tflite"
    assert main(["plan", str(path), "--rewrite", "reorder,inplace", "-o", str(out),
                 "--json", "--time-limit", "0"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert plan_json_problems(document) == []
    assert document["original_lower_bound"] > document["arenas"][0]["lower_bound"]
    assert [r["rewrite"] for r in document["rewrites"]] == ["reorder", "inplace"]
    assert document["rewrites"][0]["kept"] and document["rewrites"][0]["mac_overhead"] == 0.0
    assert document["arenas"][0]["floor"]["bytes"] == document["total"]["floor"]
    assert document["check"]["identical"] is True
    assert out.read_bytes() != path.read_bytes()


def test_an_unsafe_in_place_output_is_caught_by_the_run_and_not_written(tmp_path, monkeypatch,
                                                                        capsys):
    """FULLY_CONNECTED reads every input element for every output element: its output
    written over its input changes the result. Forced in place, the run must refuse it."""
    from memplan.cli import main
    from memplan.runtimes.tflm import inplace

    g = Graph()
    x = g.tensor("x", [1, 64])
    t, y = g.tensor("t", [1, 256]), g.tensor("y", [1, 256])
    for src, dst, n_in in ((x, t, 64), (t, y, 256)):
        w = g.weights(f"w{dst}", [256, n_in])
        g.op("FULLY_CONNECTED", [src, w, -1], [dst], options=schema.FullyConnectedOptionsT(),
             options_type=schema.BuiltinOptions.FullyConnectedOptions)
    g.inputs, g.outputs = [x], [y]
    path, out = tmp_path / "fc.tflite", tmp_path / "out.tflite"
    path.write_bytes(g.finish())

    def forced(model, op, shared=None):
        return (op.outputs[0], op.inputs[0]) if op.index == 1 else None

    monkeypatch.setattr(inplace, "candidate", forced)
    assert main(["plan", str(path), "--rewrite", "inplace", "-o", str(out),
                 "--time-limit", "0", "--summary"]) == 1
    assert "computes different outputs" in capsys.readouterr().err
    assert not out.exists()


def test_a_rewrite_that_cannot_be_run_here_is_reported_not_written(tmp_path, capsys):
    """CMSIS-NN kernels do not run here: a rewritten model for them has no run to prove it,
    so it is shown (no -o) and never written (-o: one line, exit 2)."""
    from memplan.cli import main

    path, out = tmp_path / "branches.tflite", tmp_path / "out.tflite"
    path.write_bytes(branches_model())
    cmsis = ["--kernels", "cmsis-nn", "--core", "cortex-m55", "--time-limit", "0"]
    assert main(["plan", str(path), "--rewrite", "reorder", "--json", *cmsis]) == 0
    assert json.loads(capsys.readouterr().out)["rewrites"][0]["kept"]
    assert main(["plan", str(path), "--rewrite", "reorder", "-o", str(out), "--summary",
                 *cmsis]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"memplan: {path}: --rewrite: the rewritten model is written only once a "
                   "run shows the same outputs, and TFLM's interpreter here runs the reference "
                   "kernels only (plan without -o to see the rewrites)"]
    assert not out.exists()
