"""A folder of real .tflite files through every TFLM path a user takes, one row per model.

    python benchmarks/tflm_corpus.py MODEL.tflite | FOLDER ... [--time-limit S]
                                     [--no-rewrites] [--no-all]

Each model goes through `memplan.cli.main` in this process, exactly as typed on the
command line (so a failure is the one line a user would see, and a bug shows as memplan's
"internal error" line, never a traceback):

  plan F -o OUT.tflite --check-run --json --plot OUT.svg --c-header OUT.h
      (reference kernels: TFLM's smallest arena for the input and for memplan's plan, both
      bisected on TFLM's interpreter, outputs compared byte for byte)
  plan F --target cortex-m4 --kernels cmsis-nn --summary -o OUT.tflite
  plan F --target cortex-m55+ethos-u55 --kernels cmsis-nn --summary -o OUT.tflite
      (CMSIS-NN's scratch buffers for a DSP core and for an MVE core; written and checked,
      not run: the interpreter here has the reference kernels)
  plan F --rewrite reorder,inplace --check-run --json -o OUT.tflite
  plan F --rewrite all --check-run --json -o OUT.tflite     (patches too; not with --no-all)

Columns: ops (operators of all subgraphs), TFLM's arena (bisected, its own plan), memplan's
(bisected, memplan's offline plan), whether TFLM's head as measured is the one memplan
reproduces (its greedy planner with the kernels' scratch buffers: a scratch size memplan
gets wrong shows here), memplan's head and its lower bound, identical (the
check-run's verdict), the rewrites kept by each rewrite run with the arena it runs in, and
every path that exited non-zero with its one-line reason (`-o` withheld and exit 1 count);
then the counts over all models (for the 127 integration models of tflite-micro) and each
distinct failure with how many models it hit.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from collections import Counter
from pathlib import Path

from memplan.cli import main as memplan_main
from memplan.report.table import format_table
from memplan.runtimes.tflm.model import load_tflite

TARGETS = (("m4", ("--target", "cortex-m4", "--kernels", "cmsis-nn")),
           ("u55", ("--target", "cortex-m55+ethos-u55", "--kernels", "cmsis-nn")))


def memplan(*argv: str) -> tuple[int, str, str]:
    """Exit code, stdout and the last line of stderr of `memplan ARGV` run here."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = memplan_main(list(argv))
    lines = [line for line in err.getvalue().splitlines() if line.strip()
             and not line.startswith("memplan: wrote")]
    return code, out.getvalue(), lines[-1] if lines else ""


def _same(measured: int | None, reproduced: int | None) -> str:
    if measured is None:
        return "-"
    return "yes" if measured == reproduced else f"NO ({reproduced} for {measured})"


def _short(line: str, path: Path) -> str:
    return line.replace(f"memplan: {path}: ", "").replace(str(path), path.name)


def model_row(path: Path, time_limit: float, rewrites: bool, patches: bool,
              tmp: Path) -> dict:
    row: dict = {"model": path.stem, "failures": []}
    try:
        model = load_tflite(path)
        row["ops"] = len(model.ops)
    except Exception as err:  # noqa: BLE001 - the plan run below says it in memplan's words
        row["ops"] = f"unread ({type(err).__name__})"
    limit = ("--time-limit", str(time_limit))
    out = tmp / f"{path.stem}.tflite"

    def failed(what: str, code: int, line: str) -> None:
        row["failures"].append(f"{what}: exit {code}: {_short(line, path)}")

    code, text, line = memplan("plan", str(path), "-o", str(out), "--check-run", "--json",
                               "--plot", str(tmp / "plan.svg"), "--c-header",
                               str(tmp / "plan.h"), *limit)
    if text.strip():
        doc = json.loads(text)
        check = doc.get("check") or {}
        arenas = check.get("arenas") or {}
        row.update(bound=doc["total"]["lower_bound"], head=doc["total"]["memplan"],
                   greedy=doc["total"]["runtime"], tflm=arenas.get("original"),
                   planned=arenas.get("memplan"),
                   reproduced=_same((arenas.get("original_detail") or {}).get("head"),
                                    doc["total"]["runtime"]),
                   identical={True: "yes", False: "NO"}.get(check.get("identical"), "-"))
    if code:
        failed("plan", code, line)
    for name, flags in TARGETS:
        code, _, line = memplan("plan", str(path), *flags, "--summary", "-o",
                                str(tmp / f"{name}.tflite"), *limit)
        if code:
            failed(name, code, line)
    runs = [("reorder,inplace", "ri")] if rewrites else []
    runs += [("all", "all")] if rewrites and patches else []
    for kinds, name in runs:
        code, text, line = memplan("plan", str(path), "--rewrite", kinds, "--check-run",
                                   "--json", "-o", str(tmp / f"{name}.tflite"), *limit)
        kept = "-"
        if text.strip():
            doc = json.loads(text)
            names = [r["rewrite"] for r in doc.get("rewrites", []) if r["kept"]]
            arena = ((doc.get("check") or {}).get("arenas") or {}).get("memplan")
            kept = f"{'+'.join(names) or 'none'} {arena if names else ''}".strip()
        row[name] = kept
        if code:
            failed(name, code, line)
    return row


COLUMNS = (("model", "model"), ("ops", "ops"), ("tflm", "arena TFLM"),
           ("planned", "arena memplan"), ("reproduced", "TFLM head reproduced"),
           ("head", "head memplan"), ("bound", "bound"),
           ("identical", "identical"), ("ri", "reorder,inplace kept"), ("all", "all kept"))


def summary(rows: list[dict]) -> str:
    counts = Counter()
    for r in rows:
        counts["models"] += 1
        counts["identical"] += r.get("identical") == "yes"
        counts["at or below TFLM's arena"] += (r.get("planned") is not None
                                               and r["planned"] <= r["tflm"])
        counts["below TFLM's arena"] += (r.get("planned") is not None
                                         and r["planned"] < r["tflm"])
        counts["head at the bound"] += r.get("head") == r.get("bound")
        counts["TFLM's head reproduced"] += r.get("reproduced") == "yes"
        for name in ("ri", "all"):
            counts[f"{name} kept a rewrite"] += r.get(name, "-") not in ("-", "none")
    failures = Counter(f for r in rows for f in r["failures"])
    lines = [f"{k}: {v}" for k, v in counts.items()]
    lines += [f"failure x{n}: {f}" for f, n in failures.most_common()]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="+", type=Path)
    parser.add_argument("--time-limit", type=float, default=2.0)
    parser.add_argument("--no-rewrites", action="store_true")
    parser.add_argument("--no-all", action="store_true", help="rewrites without patches")
    args = parser.parse_args()
    paths = [f for path in args.models
             for f in (sorted(path.glob("*.tflite")) if path.is_dir() else [path])]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for path in paths:
            rows.append(model_row(path, args.time_limit, not args.no_rewrites,
                                  not args.no_all, Path(tmp)))
            print(f"  {path.stem}: {rows[-1]['failures'] or 'ok'}", file=sys.stderr)
    keys = [k for k, _ in COLUMNS if any(k in r for r in rows)]
    table = [[r.get(k, "-") for k in keys] for r in rows]
    print(format_table([h for k, h in COLUMNS if k in keys], table))
    for r in rows:
        for f in r["failures"]:
            print(f"{r['model']}: {f}")
    print(summary(rows))


if __name__ == "__main__":
    main()
