"""Thousands of mutated model files through `memplan plan` (issue 23).

    python benchmarks/hostile_models.py [--count N] [--pt2 N] [--check-run N] [--seed S]

The mutants of tests/model_mutations.py (bit flips, truncation, huge dimensions, corrupted
.pt2 metadata and operator arguments, a zip bomb, pickled payloads), N per format, each
planned without and with `-o` (.pt2: with `-o` only; its runs lower the program, seconds
each) in one child process per format, and `--check-run` on .tflite in one child per run.
Prints per format: runs, exit codes, runs breaking a rule of docs/reliability.md (with the
first few), children killed by a signal, payloads run, the largest child's peak RSS, and
the wall seconds.
"""

from __future__ import annotations

import argparse
import collections
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
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    plans = [(".tflite", args.count, [[], ["-o", "{out}"]], False),
             (".onnx", args.count, [[], ["-o", "{out}"]], False),
             (".pt2", args.pt2, [["-o", "{out}"]], False),
             (".tflite", args.check_run, [["-o", "{out}", "--check-run"]], True)]
    rows, examples = [], []
    for suffix, count, variants, each in plans:
        if not count:
            continue
        made = mm.cases(suffix, count, args.seed)
        started = time.perf_counter()
        with tempfile.TemporaryDirectory() as folder:
            batch = mm.run_cases(made, Path(folder), variants, one_child_each=each)
        seconds = time.perf_counter() - started
        codes = collections.Counter(o.code for o in batch.outcomes)
        broken = [(o, mm.failures(o)) for o in batch.outcomes if mm.failures(o)]
        examples += [f"{suffix} {o.case}: {', '.join(w)}: {o.stderr.strip()[-200:]}"
                     for o, w in broken[:3]]
        label = suffix + (" --check-run" if each else "")
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


if __name__ == "__main__":
    sys.exit(main())
