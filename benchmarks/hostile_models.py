"""Thousands of mutated model files through `memplan plan` (issue 23).

    python benchmarks/hostile_models.py [--count N] [--pt2 N] [--check-run N]
        [--script N] [--pt2-fields N] [--options] [--seed S]

The mutants of tests/model_mutations.py (bit flips, truncation, huge dimensions, corrupted
.pt2 metadata and operator arguments, a zip bomb, pickled payloads), N per format, each
planned without and with `-o` (.pt2: with `-o` only; its runs lower the program, seconds
each) in one child process per format, and `--check-run` on .tflite in one child per run.
Prints per format: runs, exit codes, runs breaking a rule of docs/reliability.md (with the
first few), children killed by a signal, payloads run, the largest child's peak RSS, and
the wall seconds. Issue 31 added: TVMScript mutants carrying payloads (`--script`, through
`plan` and `check --target cortex-m55`), `.pt2` mutants of `models/model.json` fields
(`--pt2-fields`), and every hostile option value of `model_mutations.OPTIONS` on one
unmutated model per front end (`--options`).
"""

from __future__ import annotations

import argparse
import collections
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

import model_mutations as mm  # noqa: E402

from memplan.report.table import format_table  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=1000, help=".tflite and .onnx mutants")
    parser.add_argument("--pt2", type=int, default=60, help=".pt2 mutants")
    parser.add_argument("--check-run", type=int, default=40, help=".tflite --check-run runs")
    parser.add_argument("--script", type=int, default=0, help="TVMScript mutants")
    parser.add_argument("--pt2-fields", type=int, default=0, help=".pt2 model.json mutants")
    parser.add_argument("--options", action="store_true", help="hostile option values")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    check = ("check", "{model}", "--target", "cortex-m55")
    # (label, cases, extra argument lists, one child per run, command)
    plans = [(".tflite", lambda: mm.cases(".tflite", args.count, args.seed),
              [[], ["-o", "{out}"]], False, mm.PLAN),
             (".onnx", lambda: mm.cases(".onnx", args.count, args.seed),
              [[], ["-o", "{out}"]], False, mm.PLAN),
             (".pt2", lambda: mm.cases(".pt2", args.pt2, args.seed) if args.pt2 else [],
              [["-o", "{out}"]], False, mm.PLAN),
             (".tflite --check-run", lambda: mm.cases(".tflite", args.check_run, args.seed),
              [["-o", "{out}", "--check-run"]], True, mm.PLAN),
             ("TVMScript plan", lambda: mm.cases(".py", args.script, args.seed), [[]], False,
              mm.PLAN),
             ("TVMScript check", lambda: mm.cases(".py", args.script, args.seed), [[]], False,
              check),
             (".pt2 model.json fields", lambda: _pt2_fields(args.pt2_fields, args.seed),
              [["-o", "{out}"]], False, mm.PLAN)]
    if args.options:
        seeds = [mm.Case("tflite", mm.SEEDS[".tflite"][0].read_bytes(), ".tflite"),
                 mm.Case("onnx", mm.static_onnx(mm.SEEDS[".onnx"][0].read_bytes()), ".onnx"),
                 mm.Case("script", mm.SEEDS[".py"][0].read_bytes(), ".py"),
                 mm.Case("pt2", mm.SEEDS[".pt2"][0].read_bytes(), ".pt2")]
        plans += [(f"options, {c.suffix}", lambda c=c: [c], mm.OPTIONS, False, mm.PLAN)
                  for c in seeds]
    rows, examples = [], []
    for label, make, variants, each, command in plans:
        made = make()
        if not made:
            continue
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as folder:
            batch = mm.run_cases(made, Path(folder), variants, one_child_each=each,
                                 command=command)
        seconds = time.perf_counter() - started
        codes = collections.Counter(o.code for o in batch.outcomes)
        broken = [(o, mm.failures(o)) for o in batch.outcomes if mm.failures(o)]
        examples += [f"{label} {o.case}: {', '.join(w)}: {o.stderr.strip()[-200:]}"
                     for o, w in broken[:3]]
        rows.append((label, len(batch.outcomes) + len(batch.crashed),
                     " ".join(f"{c}:{n}" for c, n in sorted(codes.items(), key=str)),
                     len(broken), len(batch.crashed),
                     sum(o.payload_ran for o in batch.outcomes),
                     round(batch.peak_rss_kib / 1024), round(seconds)))
    print(format_table(("format", "runs", "exit codes", "rule broken", "killed by signal",
                        "payload ran", "peak RSS MiB", "s"), rows))
    for line in examples:
        print(line)
    return 0


def _pt2_fields(count: int, seed: int) -> list[mm.Case]:
    rng, data = random.Random(seed), mm.SEEDS[".pt2"][0].read_bytes()
    return [mm.Case(f"json-fields-{i}", mm.pt2_json_fields(data, rng), ".pt2", True)
            for i in range(count)]


if __name__ == "__main__":
    sys.exit(main())
