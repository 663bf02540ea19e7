"""KV-cache updates as exporters write them: iree-turbine exports in three update styles,
the distilled reproducer of issue 11, and IREE's figures for them.

The `kv_export_*` files are a 1-layer decoder (hidden 32, 2 heads, context 16) built by
benchmarks/kv_cache_export.py (`build`, `export_style`) and lowered with
`iree-compile --compile-to=input`; `kv_export_concat.irpa` holds its parameters.
"""

from __future__ import annotations

import numpy as np
from tensor_helpers import DATA, chunk, run_cli

from memplan.analysis.stream_counts import stream_counts
from memplan.ir import load_mlir, parse_mlir
from memplan.runtimes.iree.compile import compile_to_stream, is_torch_dialect, to_input_form
from memplan.runtimes.iree.state_compare import (
    QUIET_FLAGS,
    StepInputs,
    argument_types,
    compare_steps,
    step_inputs,
)
from memplan.transforms import rewrite_inplace_state

REPRO = DATA / "cases" / "kv_cache_append_exported.mlir"


def rewritten(path) -> tuple[object, object, list]:
    before, after = load_mlir(path)[0], load_mlir(path)[0]
    report = rewrite_inplace_state(after.module, after.path)
    assert after.module.operation.verify()
    return before, after, report


def test_reproducer_is_rewritten_and_keeps_its_state_over_steps():
    before, after, report = rewritten(REPRO)
    assert len(report.rewritten) == 1 and not report.refused
    assert "tensor.concat" not in str(after.module)
    result = compare_steps(before.module, after.module, "step", steps=6,
                           given=StepInputs(positions={0: 0}))
    assert result.equal, result.mismatches


def test_iree_makes_no_cache_sized_copy_after_the_rewrite():
    _, after, _ = rewritten(REPRO)
    streams = [parse_mlir(compile_to_stream(text, extra_flags=QUIET_FLAGS))
               for text in (REPRO.read_text(), str(after.module))]
    (old,), (new,) = (stream_counts(s, {"arg0": 511}) for s in streams)
    # Before: the prefix (511 rows of 1 KiB) and the token go into the result, which is then
    # written back whole (512 rows): all in `*_slow_memcpy` dispatches.
    assert old.memcpy_bytes == 511 * 1024 + 1024 + 512 * 1024
    # After: the token goes into the cache and the returned context is read out of it.
    assert new.memcpy_bytes == 1024 + 512 * 1024
    assert old.transient_bytes == new.transient_bytes == 0
    # Without a position the dispatch sizes are unknown, not 0.
    assert stream_counts(streams[0])[0].memcpy_bytes is None


def test_iree_turbine_export_main_async_is_rewritten_and_checked_as_exported():
    path = DATA / "kv_export_concat.mlir"
    before, after, report = rewritten(path)
    assert len(report.rewritten) == 2 and not report.refused  # the K and the V cache
    types = [str(t) for t in argument_types(before.module, "main")]
    assert types == ["tensor<1x32xf32>", "tensor<1xi64>"]  # through main -> main$async
    result = compare_steps(before.module, after.module, "main", steps=5,
                           given=StepInputs(positions={1: 0}),
                           parameters=[("model", str(DATA / "kv_export_concat.irpa"))])
    assert result.equal, result.mismatches
    assert set(result.max_global_diff) == {"__auto.layers.0.k_cache",
                                           "__auto.layers.0.v_cache"}


def test_torch_dialect_export_is_converted_to_the_input_form():
    text = (DATA / "kv_export_concat_torch.mlir").read_text()
    assert is_torch_dialect(text)
    converted = to_input_form(text)
    assert not is_torch_dialect(converted) and "@main$async" in converted


def test_styles_already_in_place_get_no_warning_and_no_rewrite(capsys):
    for style in ("slice", "index_copy", "index_put"):
        path = DATA / f"kv_export_{style}.mlir"
        _, _, report = rewritten(path)
        assert not report.rewritten and not report.refused
        code, out, _ = run_cli(["check", str(path), "--target", "x86_64"], capsys)
        assert code == 0 and "state-append" not in out and "0 warning(s)" in out


def test_step_inputs_from_npz_and_positions(tmp_path):
    npz = tmp_path / "inputs.npz"
    np.savez(npz, arg1=np.arange(3, dtype=np.int64).reshape(3, 1))
    given = step_inputs(str(npz), ["0=5"])
    assert given.steps_given() == 3 and given.positions == {0: 5}
    assert list(given.arrays[1][2]) == [2]


FLOW = DATA / "flow_append.mlir"


def test_flow_tensor_update_form_is_rewritten_and_iree_copies_only_the_new_row():
    before, after, report = rewritten(FLOW)
    assert len(report.rewritten) == 1 and not report.refused
    text = str(after.module)
    assert "flow.tensor.empty" not in text and "flow.tensor.slice" not in text
    result = compare_steps(before.module, after.module, "step", steps=18)  # past the end too
    assert result.equal, result.mismatches
    streams = [parse_mlir(compile_to_stream(t, extra_flags=QUIET_FLAGS))
               for t in (FLOW.read_text(), text)]
    (old,), (new,) = (stream_counts(s, {"pos": 15}) for s in streams)
    context = 16 * 2 * 4 * 4  # 16 positions of 2x4 f32
    assert (old.transient_bytes, old.copied_bytes) == (context, 15 * 32 + 32 + context)
    assert (new.transient_bytes, new.copied_bytes) == (0, 32)


def test_flow_form_with_an_unrelated_context_length_is_refused():
    text = FLOW.read_text().replace("%n = arith.addi %p, %c1 : index",
                                    "%n = arith.addi %p, %c2 : index")
    ch = chunk(text, "flow_append_off_by_one.mlir")
    report = rewrite_inplace_state(ch.module, ch.path)
    assert not report.rewritten
    (note,) = report.refused
    assert "is not provably the prefix length + 1 long: it is the prefix length + 2" in \
        note.message


def test_check_warns_exactly_where_opt_rewrites(capsys):
    for path in (REPRO, FLOW, DATA / "kv_export_concat.mlir"):
        code, _, err = run_cli(["check", str(path), "--target", "x86_64"], capsys)
        _, _, report = rewritten(path)
        warned = err.count("state-append-copies") or err.count("writes only the new data")
        assert code == 0 and warned == len(report.rewritten) > 0


def test_cli_checks_an_export_as_exported_and_asks_for_missing_parameters(capsys, tmp_path):
    path, irpa = DATA / "kv_export_concat.mlir", DATA / "kv_export_concat.irpa"
    out = str(tmp_path / "out.mlir")
    code, _, err = run_cli(["opt", str(path), "--target", "x86_64", "-o", out,
                            "--check-state", "main", "--steps", "3", "--position", "1"], capsys)
    assert code == 2 and "give their archive (--parameters" in err
    code, _, err = run_cli(["opt", str(path), "--target", "x86_64", "-o", out, "--check-state",
                            "main", "--steps", "3", "--position", "1", "--parameters",
                            f"model={irpa}"], capsys)
    assert code == 0 and "@main: 3 steps, outputs max diff 0" in err


def test_inline_weights_in_dialect_resources_are_kept_when_checking_state(capsys, tmp_path):
    """iree-turbine's inline weights print after the module as `{-# dialect_resources #-}`:
    the global getters go inside the module, not inside that section ("expected ',' or
    '#-}'" from iree-compile before)."""
    path, out = DATA / "kv_inline_weights.mlir", tmp_path / "out.mlir"
    code, _, err = run_cli(["opt", str(path), "--target", "x86_64", "-o", str(out),
                            "--check-state", "step", "--steps", "3"], capsys)
    assert code == 0, err
    assert "@step: 3 steps, outputs max diff 0, @__auto.cache max diff 0" in err
    text = out.read_text()
    assert "tensor.concat" not in text and "__auto.scale: \"0x0400000000008" in text


def test_check_run_keeps_inline_weights(capsys, tmp_path):
    """--check-run wraps the program op by op: the blobs printed after the module go with it
    ("resource does not exist" before)."""
    path = tmp_path / "weights.mlir"
    path.write_text("""memref.global "private" constant @w : memref<4xf32> = dense_resource<w_blob>
func.func @f(%out: memref<4xf32>) {
  %g = memref.get_global @w : memref<4xf32>
  memref.copy %g, %out : memref<4xf32> to memref<4xf32>
  return
}

{-#
  dialect_resources: {
    builtin: {
      w_blob: "0x040000000000803F000000400000404000008040"
    }
  }
#-}
""")
    code, _, err = run_cli(["opt", str(path), "--target", "x86_64", "--check-run"], capsys)
    assert code == 0 and "execution check: @f: identical results before and after" in err
