"""How often a perturbed-preorder probe finds a plan under a target peak.

    python benchmarks/probes.py FILE.csv --targets 1015,995,980 [--seeds N] [--nodes K]
                                [--stop-at-first]

Targets are in units of the instance's grain (1024 bytes on the minimalloc
instances). For each target, probes with seeds 0..N-1 (each one canonical
search under its own perturbed preorder, cut off after K nodes; see
`Decider.probe`) run one after the other on one thread. The row gives how many
found a plan, the first seed that did, the lowest validated peak, and the
seconds spent. With --stop-at-first a target stops at its first plan (to time
how long finding one takes). `--minimize` does not use probes; why, and
what they found on D, is in docs/solver.md.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from memplan.pack import Solution, read_problem, validate
from memplan.report.table import format_table

HEADERS = ("target", "target B", "probes", "plans", "first seed", "lowest peak", "proofs",
           "seconds")


def probe_row(decider, problem, units: int, grain: int, seeds: int, nodes: int,
              stop: bool) -> tuple:
    target = units * grain
    started = time.perf_counter()
    plans, proofs, first, lowest, ran = 0, 0, None, None, 0
    for seed in range(seeds):
        ran += 1
        answer = decider.probe(target, range(seed, seed + 1), nodes)
        if answer.status == "infeasible":
            proofs += 1
        if answer.status != "feasible":
            continue
        plan = Solution(answer.offsets)
        validate(problem, plan, check_capacity=False)
        peak = plan.peak(problem)
        assert peak <= target, "a probe returned a plan above its target"
        plans += 1
        first = seed if first is None else first
        lowest = peak if lowest is None else min(lowest, peak)
        if stop:
            break
    seconds = round(time.perf_counter() - started, 1)
    print(f"target {units}: {plans} plan(s) in {ran} probes, {seconds} s", file=sys.stderr,
          flush=True)
    return (units, target, ran, plans, "-" if first is None else first,
            "-" if lowest is None else lowest, proofs, seconds)


def main() -> int:
    from memplan.pack.search.decide import Decider
    from memplan.pack.search.exact import peak_grain

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--targets", required=True, help="comma-separated, in grains")
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--nodes", type=int, default=1 << 16, help="node budget per probe")
    parser.add_argument("--stop-at-first", action="store_true")
    args = parser.parse_args()
    problem = read_problem(args.file)
    grain = peak_grain(problem)
    decider = Decider(problem, workers=1)
    rows = [probe_row(decider, problem, int(units), grain, args.seeds, args.nodes,
                      args.stop_at_first) for units in args.targets.split(",")]
    print(format_table(HEADERS, rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
