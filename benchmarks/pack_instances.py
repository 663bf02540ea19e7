"""Held-out-style packing instances, and memplan's exact search timed against minimalloc's.

    python benchmarks/pack_instances.py generate DIR [--seed S] [--sizes 120 500 2000]
                                         [--kinds tpu uni tpu-easy]
    python benchmarks/pack_instances.py rank [--seeds 1 2 3] [--sizes 120 500 2000]
    python benchmarks/pack_instances.py run DIR --minimalloc BINARY [--repeat 3]
                                         [--timeout 60] [--only TEXT] [--src DIR]

`generate` writes instances in google/minimalloc's CSV format (id,lower,upper,size,
the capacity in the file name) of these kinds, each from the seed given:
- `tpu`: tensor programs closer to minimalloc's A-K: operators' outputs living to a
  consumer a few operators on, and over a third of the buffers long-lived with
  staggered lifetimes (a quarter to half of the program at 120 buffers, 20-150
  operators from 500), sizes log-uniform from 2 KiB to 1 MiB mixed in both; the
  best greedy plan is 0-20% above the bound (seeds 1-3; A-F: 12-37%);
- `tpu-easy` (not generated unless asked, `--kinds`): the kind of the first table in
  docs/benchmarks.md, a sequence of operators with skip connections, a few
  long-lived buffers, sizes 1-640 KiB (22-35 buffers live at the busiest moment;
  with seed 1 the greedy plan fits all nine at the bound);
- `uni`: uniformly random intervals and sizes (1-100 KiB, in KiB).
Each kind and size gets three capacities: memplan's lower bound on the peak, that
+1% and +3% (so some at the bound may not fit at all). The instance itself does
not depend on the capacity: one problem, three files.

`run` times, for every CSV of DIR, `memplan pack FILE --exact --summary` (this
checkout's sources, a fresh interpreter each time) and minimalloc's solver
(`--capacity=C --input=F --output=O`) alternately, N times each, and prints the
medians: the solve time memplan reports (wall, and its "solve CPU"), memplan's
process CPU (user + system of the child), minimalloc's process CPU, and the wall
time of each. "greedy / bound" is memplan's whole greedy portfolio's best peak over
the lower bound (how hard the instance is for a greedy start). "fit" says
whether each fitted the capacity (memplan: status line; minimalloc: a plan that
memplan's validator accepts), "no" a proof that nothing fits, "timeout" a kill at
--timeout seconds (a run that times out is not repeated). "past start-up" is memplan's
process CPU less its median on minimalloc's 5-buffer example, measured first: the
solve time is wall clock, which a loaded machine stretches where CPU time it does not.
"""

from __future__ import annotations

import argparse
import math
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
KIB = 1024
LONG_SHARE = 1.6


def tpu_easy_instance(n: int, rng: random.Random) -> list[tuple[int, int, int]]:
    """(lower, upper, size) of n buffers of a tensor program easier than A-K: its
    greedy plan fits at the bound (the first table of docs/benchmarks.md's section)."""
    buffers = []
    steps = max(n - min(max(n // 40, 3), 10), 2)  # an output per operator, the rest long-lived
    for step in range(steps):
        last = step + 1
        draw = rng.random()
        if draw < 0.4:  # a skip connection, or a value kept for a later layer
            last = step + rng.randint(2, 30)
        elif draw < 0.5:
            last = step + rng.randint(30, 150)
        last = min(last, steps)
        size = int(math.exp(rng.uniform(math.log(1), math.log(160)))) * KIB
        if rng.random() < 0.04:
            size = rng.randint(160, 640) * KIB
        buffers.append((step, last + 1, size))
    while len(buffers) < n:  # inputs, weights and state live across most of it
        start = rng.randint(0, steps // 4)
        end = rng.randint(steps - steps // 4, steps) + 1
        buffers.append((start, end, rng.randint(1, 32) * KIB))
    rng.shuffle(buffers)
    return buffers


def tpu_instance(n: int, rng: random.Random) -> list[tuple[int, int, int]]:
    """(lower, upper, size) of n buffers of a tensor program closer to A-K: operators'
    outputs living to a consumer a few operators on, and a quarter of the buffers
    long-lived (weights, activations kept for later layers) with staggered lifetimes of
    20-150 operators, about 40 buffers live at once at any size (A-E: 41-45), sizes
    log-uniform from 2 KiB to 1 MiB for both, so that large and small blocks of every
    lifetime interleave."""
    buffers = []
    steps = max(round(n / LONG_SHARE), 2)
    for step in range(steps):
        last = min(step + 1 + int(rng.expovariate(1 / 3)), steps)
        buffers.append((step, last + 1, _log_kib(rng, 2, 1024)))
    while len(buffers) < n:
        length = rng.randint(min(20, steps // 4), min(150, steps // 2))
        start = rng.randint(0, steps - length)
        buffers.append((start, start + length, _log_kib(rng, 2, 1024)))
    rng.shuffle(buffers)
    return buffers


def _log_kib(rng: random.Random, low: int, high: int) -> int:
    return int(math.exp(rng.uniform(math.log(low), math.log(high)))) * KIB


def uni_instance(n: int, rng: random.Random) -> list[tuple[int, int, int]]:
    """(lower, upper, size) of n uniformly random intervals and sizes."""
    horizon = 10 * n
    buffers = []
    for _ in range(n):
        start = rng.randrange(horizon)
        length = rng.randint(1, horizon // 20)
        buffers.append((start, min(start + length, horizon), rng.randint(1, 100) * KIB))
    return buffers


KINDS = {"tpu": tpu_instance, "uni": uni_instance, "tpu-easy": tpu_easy_instance}
MARGINS = (("bound", 0.0), ("1pct", 0.01), ("3pct", 0.03))


def generate(folder: Path, seed: int, sizes: list[int], kinds: list[str]) -> None:
    from memplan.pack import Buffer, Problem, lower_bound

    folder.mkdir(parents=True, exist_ok=True)
    for kind in kinds:
        make = KINDS[kind]
        for n in sizes:
            rng = random.Random(f"{kind}-{n}-{seed}")
            rows = make(n, rng)
            bound = lower_bound(Problem([Buffer(str(i), lo, up, size)
                                         for i, (lo, up, size) in enumerate(rows)]))
            text = "id,lower,upper,size\n" + "".join(
                f"{i},{lo},{up},{size}\n" for i, (lo, up, size) in enumerate(rows))
            for label, margin in MARGINS:
                capacity = int(bound * (1 + margin))
                path = folder / f"{kind}{n}-s{seed}-{label}.{capacity}.csv"
                path.write_text(text)
                print(path)


def run_child(command: list[str], timeout: float, env: dict | None = None,
              ) -> tuple[float, float, str, int | None]:
    """(CPU s, wall s, stdout, exit status or None if killed at the timeout) of one run."""
    started = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out:
        child = subprocess.Popen(command, stdout=out, stderr=subprocess.DEVNULL, cwd=REPO,
                                 env=env)
        timer = threading.Timer(timeout, lambda: os.kill(child.pid, signal.SIGKILL))
        timer.start()
        _, status, usage = os.wait4(child.pid, 0)
        wall = time.perf_counter() - started
        killed = not timer.is_alive()
        timer.cancel()
        child.returncode = os.waitstatus_to_exitcode(status)  # reaped: Popen must not wait
        out.seek(0)
        text = out.read()
    return usage.ru_utime + usage.ru_stime, wall, text, None if killed else child.returncode


def memplan_once(path: Path, timeout: float, src: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(src)}
    cpu, wall, text, code = run_child(
        [sys.executable, "-m", "memplan", "pack", str(path), "--exact", "--summary"],
        timeout, env)
    if code is None:
        return {"fit": "timeout", "cpu": cpu, "wall": wall, "solve": math.nan,
                "solve_cpu": math.nan}
    solve = re.search(r"^solve time\s+([\d.]+) s", text, re.M)
    solve_cpu = re.search(r"^solve CPU\s+([\d.]+) s", text, re.M)
    fits = re.search(r"^fits capacity\s+(\w+)", text, re.M)
    return {"fit": fits.group(1) if fits else f"exit {code}", "cpu": cpu, "wall": wall,
            "solve": float(solve.group(1)) if solve else math.nan,
            "solve_cpu": float(solve_cpu.group(1)) if solve_cpu else math.nan}


def minimalloc_once(binary: Path, path: Path, capacity: int, timeout: float) -> dict:
    from memplan.pack import Solution, read_problem, validate

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "plan.csv"
        cpu, wall, _, code = run_child([str(binary), f"--capacity={capacity}",
                                        f"--input={path}", f"--output={out}"], timeout)
        if code is None:
            return {"fit": "timeout", "cpu": cpu, "wall": wall}
        if not out.exists() or out.stat().st_size == 0:
            return {"fit": "no" if code == 0 else f"exit {code}", "cpu": cpu, "wall": wall}
        problem = read_problem(path)
        placed = {b.id: b.offset for b in read_problem(out, capacity).buffers}
        validate(problem, Solution(tuple(placed[b.id] for b in problem.buffers)))
    return {"fit": "yes", "cpu": cpu, "wall": wall}


def median(runs: list[dict], key: str) -> float:
    return statistics.median(r[key] for r in runs)


def run(folder: Path, binary: Path, repeat: int, timeout: float, only: str | None,
        src: Path) -> None:
    from memplan.pack import lower_bound, pack, read_problem
    from memplan.pack.csvio import capacity_from_name

    tiny = REPO / "tests" / "data" / "minimalloc" / "example.12.csv"
    start_up = statistics.median(memplan_once(tiny, timeout, src)["cpu"] for _ in range(repeat))
    print(f"memplan's start-up: {start_up:.3f} s CPU (`pack {tiny.name} --exact`, median)\n")
    print("| instance | capacity | greedy / bound | fit memplan / minimalloc | memplan solve s "
          "| memplan solve CPU s | memplan process CPU s | past start-up | minimalloc CPU s "
          "| wall s memplan / minimalloc | solve <= max(minimalloc CPU, 0.02) |")
    print("| --- " * 11 + "|")
    met = total = 0
    for path in sorted(folder.glob("*.csv")):
        if only and only not in path.name:
            continue
        capacity = capacity_from_name(path)
        ours: list[dict] = []
        theirs: list[dict] = []
        for _ in range(repeat):  # alternating, so that the load falls on both alike
            if not ours or ours[-1]["fit"] != "timeout":
                ours.append(memplan_once(path, timeout, src))
            if not theirs or theirs[-1]["fit"] != "timeout":
                theirs.append(minimalloc_once(binary, path, capacity, timeout))
        solve, cpu_m = median(ours, "solve"), median(theirs, "cpu")
        problem = read_problem(path)
        greedy = pack(problem).peak / lower_bound(problem)  # the whole portfolio's best
        cpu_ours = median(ours, "cpu")
        if theirs[-1]["fit"] == "timeout":  # its CPU is only what it spent until killed
            verdict = "- (minimalloc timed out)"
        else:
            ok = solve <= max(cpu_m, 0.02)
            met += ok
            total += 1
            verdict = "yes" if ok else "no"
        name = path.name.rsplit(".", 2)[0]
        print(f"| {name} | {capacity} | {greedy:.4f} | {ours[-1]['fit']} / {theirs[-1]['fit']} "
              f"| {solve:.3f} | {median(ours, 'solve_cpu'):.3f} | {cpu_ours:.3f} "
              f"| {cpu_ours - start_up:.3f} | {cpu_m:.3f} "
              f"| {median(ours, 'wall'):.2f} / {median(theirs, 'wall'):.2f} "
              f"| {verdict} |", flush=True)
    print(f"\nmemplan's solve time at most minimalloc's CPU (or 0.02 s): {met} of {total} "
          "(instances minimalloc fitted or refused within the timeout)")


def rank(seeds: list[int], sizes: list[int]) -> None:
    """How often each greedy strategy reaches the lowest peak of all (ties count for
    each) on A-F and the tpu and uni kinds of these seeds: FIT_FIRST's order."""
    from collections import Counter

    from memplan.pack import Buffer, Problem, read_problem
    from memplan.pack.greedy.heuristics import greedy_runs

    problems = [read_problem(path) for path in sorted(
        (REPO / "tests" / "data" / "minimalloc").glob("[A-F].*.csv"))]
    for kind in ("tpu", "uni"):
        for n in sizes:
            for seed in seeds:
                rows = KINDS[kind](n, random.Random(f"{kind}-{n}-{seed}"))
                problems.append(Problem([Buffer(str(i), lo, up, size)
                                         for i, (lo, up, size) in enumerate(rows)]))
    wins: Counter = Counter()
    for problem in problems:
        runs = greedy_runs(problem)
        lowest = min(r.peak for r in runs)
        wins.update(f"{r.order_name}/{r.fit}" for r in runs if r.peak == lowest)
    for name, count in wins.most_common():
        print(f"{name:22s} lowest on {count} of {len(problems)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    gen = sub.add_parser("generate", help="write the instances")
    gen.add_argument("directory", type=Path)
    gen.add_argument("--seed", type=int, default=1)
    gen.add_argument("--sizes", type=int, nargs="+", default=[120, 500, 2000])
    gen.add_argument("--kinds", nargs="+", choices=list(KINDS), default=["tpu", "uni"])
    timing = sub.add_parser("run", help="time memplan and minimalloc on them")
    timing.add_argument("directory", type=Path)
    timing.add_argument("--minimalloc", type=Path, required=True, metavar="BINARY")
    timing.add_argument("--repeat", type=int, default=3)
    timing.add_argument("--timeout", type=float, default=60.0, help="seconds per run")
    timing.add_argument("--only", default=None, help="only files whose name contains this")
    timing.add_argument("--src", type=Path, default=REPO / "src",
                        help="memplan's sources to time (default: this checkout's)")
    ranking = sub.add_parser("rank", help="rank the greedy strategies (FIT_FIRST)")
    ranking.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    ranking.add_argument("--sizes", type=int, nargs="+", default=[120, 500, 2000])
    args = parser.parse_args()
    if args.command == "rank":
        rank(args.seeds, args.sizes)
    elif args.command == "generate":
        generate(args.directory, args.seed, args.sizes, args.kinds)
    else:
        run(args.directory, args.minimalloc, args.repeat, args.timeout, args.only, args.src)
    return 0


if __name__ == "__main__":
    sys.exit(main())
