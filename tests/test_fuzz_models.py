"""Mutated .tflite, .onnx and .pt2 files through `memplan plan` (issue 23).

Bit flips, truncation, huge or negative dimensions, corrupted weight metadata and operator
arguments, a zip bomb and pickled members (tests/model_mutations.py, seeded: the same files
every run), planned with and without `-o` and, for .tflite, `--check-run`, in child
processes. Every run: exit 0, 1 or 2; no traceback, no "internal error", at most one line
of its own on stderr and nothing a library printed; no payload ran; nothing written on
failure; the child's peak memory bounded. `benchmarks/hostile_models.py` runs thousands.
"""

from __future__ import annotations

import collections

import model_mutations as mm
import pytest

SEED = 23
# Peak resident memory of one child: Python and the format's libraries (tflite ~150 MiB,
# onnx ~170 MiB, torch with ExecuTorch ~800 MiB), and the room the readers' limits leave.
PEAK_KIB = {".tflite": 600 << 10, ".onnx": 600 << 10, ".pt2": 2 << 20}


def _check(batch: mm.Batch, runs: int) -> collections.Counter:
    assert len(batch.outcomes) + len(batch.crashed) == runs, batch.stderr[-2000:]
    wrong = {f"{o.case} {' '.join(o.argv[5:])}": (mm.failures(o), o.stderr[-300:])
             for o in batch.outcomes if mm.failures(o)}
    assert not wrong
    assert not any(o.payload_ran for o in batch.outcomes)
    return collections.Counter(o.code for o in batch.outcomes)


@pytest.mark.parametrize(("suffix", "count"), [(".tflite", 40), (".onnx", 40)])
def test_fuzz_flatbuffers_and_protobufs(tmp_path, suffix, count):
    made = mm.cases(suffix, count, SEED)
    batch = mm.run_cases(made, tmp_path, [[], ["-o", "{out}"]])
    assert not batch.crashed
    codes = _check(batch, 2 * count)
    assert codes[0] and codes[2]  # the mutants reach planning, and are refused
    assert batch.peak_rss_kib < PEAK_KIB[suffix]


def test_fuzz_pt2(tmp_path):
    made = mm.cases(".pt2", 4, SEED)  # and the crafted three: two payloads, a zip bomb
    assert sum(c.marker for c in made) == 2
    batch = mm.run_cases(made, tmp_path, [["-o", "{out}"]])
    assert not batch.crashed
    codes = _check(batch, len(made))
    assert codes[2] >= 3
    assert batch.peak_rss_kib < PEAK_KIB[".pt2"]


def test_fuzz_tflite_check_run(tmp_path):
    # One child per run: TFLM's interpreter runs in memplan's process and a mutated model
    # can crash it natively (SIGSEGV). Moving those runs into a child of their own is the
    # driver issue's work; until then a crash here is expected, not a pass.
    made = mm.cases(".tflite", 3, SEED + 1)
    batch = mm.run_cases(made, tmp_path, [["-o", "{out}", "--check-run"]], one_child_each=True)
    _check(batch, len(made))  # the runs that did not crash
    assert batch.peak_rss_kib < PEAK_KIB[".tflite"]
    if batch.crashed:
        names = ", ".join(f"{case} (signal {-code})" for case, _, code in batch.crashed)
        pytest.xfail(f"TFLM crashed natively under --check-run on {names}: runs in a child "
                     "process are the driver issue's work")


def test_fuzz_tvmscript_payloads(tmp_path):
    # Issue 31: payloads in every place a script evaluates, through `plan` and `check`.
    pytest.importorskip("tvm")
    made = mm.cases(".py", 6, SEED)
    assert all(c.marker for c in made)
    for command in (mm.PLAN, ("check", "{model}", "--target", "cortex-m55")):
        (tmp_path / command[0]).mkdir()
        batch = mm.run_cases(made, tmp_path / command[0], [[]], command=command)
        assert not batch.crashed
        codes = _check(batch, len(made))
        assert codes[2]  # refused, in one line
        assert batch.peak_rss_kib < PEAK_KIB[".pt2"]  # TVM: about what torch takes


def test_fuzz_pt2_json_fields(tmp_path):
    import random

    rng, seed = random.Random(SEED), mm.SEEDS[".pt2"][0].read_bytes()
    made = [mm.Case(f"json-fields-{i}", mm.pt2_json_fields(seed, rng), ".pt2", True)
            for i in range(4)]
    batch = mm.run_cases(made, tmp_path, [["-o", "{out}"]])
    assert not batch.crashed
    _check(batch, len(made))
    assert batch.peak_rss_kib < PEAK_KIB[".pt2"]


def test_fuzz_front_end_options(tmp_path):
    # Every hostile option value on an unmutated model of two front ends: one line or a run.
    made = [mm.Case("tflite", mm.SEEDS[".tflite"][0].read_bytes(), ".tflite"),
            mm.Case("onnx", mm.static_onnx(mm.SEEDS[".onnx"][0].read_bytes()), ".onnx")]
    batch = mm.run_cases(made, tmp_path, mm.OPTIONS)
    assert not batch.crashed
    codes = _check(batch, len(made) * len(mm.OPTIONS))
    assert codes[2] and codes[0]
