"""Issue 34's table: every model through `memplan plan --rewrite all --check-run`, TFLM's
arena or ExecuTorch's pools before and after, MAC overhead, outputs compared, beside
MCUNetV2's published reductions.

    python benchmarks/issue34_table.py [--runtime tflm|executorch] [--only NAME ...]
                                       [--rows FILE] [--print] [--families]
                                       [TFLITE | FOLDER ...]

Each row measured is kept in `--rows` (default benchmarks/issue34_rows.json), by runtime
and model, with the date and commit it was measured at; the table printed is every row
kept, so one runtime (or one model) is measured again without the others:
`--runtime tflm` re-measures the .tflite files only, `--only NAME` one model, `--print`
measures nothing.

- TFLM (`--runtime tflm`): each .tflite given (a folder: its .tflite files; default
  /work/real-models and /work/tflite-models), planned as the command does (`--rewrite all`,
  exact search 10 s); *before* is the smallest arena TFLM's interpreter runs the file in
  under TFLM's own plan, *after* the rewritten model's with memplan's plan (both bisected,
  16-byte steps), outputs compared byte for byte (`--check-run`). *head x* is the same
  ratio of the arena's head (the tensors TFLM plans, or memplan's plan of them) without
  TFLM's persistent tail: MCUNetV2's published figures are peak activations.
- ExecuTorch (`--runtime executorch`): the CNNs of `executorch_rewrites.py` (five-layer
  CNNs, ResNet-18, MobileNetV2 0.35 and 1.0 at 96-224; random weights, exported here and
  saved as .pt2), through the command in a child process; *before* is the sum of
  ExecuTorch's pools (its greedy planner) with the constant propagation the command lowers
  with, *after* memplan's pools in the written .pte; `--check-run` compares with the
  program as given.
"""

from __future__ import annotations

import argparse
import datetime
import json
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROWS = HERE / "issue34_rows.json"
FOLDERS = (Path("/work/real-models"), Path("/work/tflite-models"))

# MCUNetV2 (Lin et al., NeurIPS 2021), peak activation memory of the network as published,
# before -> after patch-based inference (int8, under TinyEngine); by the row's model.
PUBLISHED = {
    "mobilenet_v2_1.0_224": "1,372 kB -> 172 kB (8.0x)",
    "tflm_mobilenet_v2_224": "1,372 kB -> 172 kB (8.0x)",
}

HEADERS = ("model", "runtime", "input", "before", "after", "x", "head x", "MACs +", "kept",
           "identical", "MCUNetV2 published", "measured")


def tflm_row(path: Path, time_limit: float) -> dict:
    from memplan.plan.contract import ReadOptions
    from memplan.plan.driver import RunFailure, check_run, plan_model
    from memplan.plan.rewrites import RewriteKind, parse

    fe, plan = plan_model(str(path), options=ReadOptions(
        write=True, time_limit=time_limit, rewrites=parse("all", "tflm")))
    kept = [r for r in plan.rewrites if r.kept]
    found = {"kept": [r.kind.value for r in kept],
             "mac_overhead": next((r.mac_overhead for r in kept
                                   if r.kind is RewriteKind.PATCHES), 0.0),
             "bound_given": plan.original_lower_bound, "bound": plan.lower_bound}
    try:
        check = check_run(fe, plan)
    except RunFailure as err:
        return {**found, "error": f"not run: {err}"}
    return {**found, "before": check.original.arena, "after": check.planned.arena,
            "identical": check.identical,
            "head_before": check.original.extra.get("head"),
            "head_after": check.planned.extra.get("head")}


def executorch_row(name: str, time_limit: float, folder: Path) -> dict:
    import executorch_rewrites

    m = executorch_rewrites.measure(name, executorch_rewrites.MODELS[name], time_limit,
                                    folder)
    return {**m, "before": m["pools_et_folded"], "after": m.get("pools_after")}


def executorch_models() -> list[str]:
    import executorch_rewrites

    return [n for n in executorch_rewrites.MODELS if n.startswith(("cnn5", "mobilenet",
                                                                      "resnet"))]


def kind(runtime: str, name: str) -> str:
    if runtime == "executorch":
        return ".pt2 built here"
    if name.startswith(("mcunet_detection", "mcunet_vww", "mcunetv2")):
        return "MCUNet (tinyengine)"
    if name.startswith("mlperf_") and name.endswith(("_int8", "_ref_model", "_quant", "_ww")):
        return "MLPerf Tiny"
    if name.startswith("tflm_"):
        return "tflite-micro"
    if name.startswith("seanet_"):
        return "tflite-micro integration"
    return ".tflite built here"


def commit() -> str:
    done = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                          capture_output=True, text=True)
    return done.stdout.strip() or "unknown"


def table(rows: dict) -> list[tuple]:
    out = []
    for key in sorted(rows, key=lambda k: (k.split("/")[0] != "tflm", k)):
        runtime, name = key.split("/", 1)
        r = rows[key]
        before, after = r.get("before"), r.get("after")
        ratio = f"{after / before:.3f}" if before and after else "-"
        # TFLM's arena is its planned head plus its own persistent tail; MCUNetV2's
        # published figures are peak activations, the head's counterpart.
        hb, ha = r.get("head_before"), r.get("head_after")
        head = f"{ha / hb:.3f}" if hb and ha else "-"
        out.append((name, runtime, kind(runtime, name), before or "-",
                    after if after is not None else r.get("error", "-")[:64], ratio, head,
                    f"{r.get('mac_overhead') or 0:.1%}", ",".join(r.get("kept", [])) or "none",
                    "-" if "identical" not in r else "yes" if r["identical"] else "NO",
                    PUBLISHED.get(name, "-"), r["measured"]))
    return out


def families(rows: dict) -> list[tuple]:
    """One line per family of rows (the model's name without its trailing number: the
    tflite-micro integration tests' layers, `seanet_conv_conv0` ... `conv21`)."""
    groups: dict[str, list[dict]] = {}
    for key, r in rows.items():
        groups.setdefault(key.split("/", 1)[0] + "/" + key.split("/", 1)[1].rstrip(
            "0123456789"), []).append(r)
    out = []
    for family, rs in sorted(groups.items()):
        xs = sorted(r["after"] / r["before"] for r in rs if r.get("before") and r.get("after"))
        kept: dict[str, int] = {}
        for r in rs:
            what = ",".join(r.get("kept", [])) or "none"
            kept[what] = kept.get(what, 0) + 1
        spread = [f"{x:.3f}" for x in (xs[0], xs[len(xs) // 2], xs[-1])] if xs else ["-"] * 3
        out.append((family, len(rs), len(xs), *spread,
                    sum(x <= 0.5 for x in xs),
                    " ".join(f"{k}:{n}" for k, n in sorted(kept.items())),
                    sum(r.get("identical") is True for r in rs),
                    " ".join(sorted({r["measured"] for r in rs}))))
    return out


FAMILY_HEADERS = ("family", "files", "measured", "x min", "x median", "x max", "<= 0.5x",
                  "kept", "identical", "measured at")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("files", nargs="*", type=Path,
                        help="TFLM: .tflite files or folders (default: "
                        f"{', '.join(map(str, FOLDERS))})")
    parser.add_argument("--runtime", choices=("tflm", "executorch"),
                        help="measure this runtime's rows only (default both)")
    parser.add_argument("--only", nargs="*", help="measure these models only")
    parser.add_argument("--rows", type=Path, default=ROWS)
    parser.add_argument("--print", action="store_true", help="measure nothing")
    parser.add_argument("--families", action="store_true",
                        help="print one line per family of numbered models (the median is "
                        "the upper one of an even count)")
    parser.add_argument("--time-limit", type=float, default=None,
                        help="exact search per model (default: 10 s on TFLM, 2 s on "
                        "ExecuTorch, as the earlier tables)")
    args = parser.parse_args()
    from memplan.report.table import format_table

    rows = json.loads(args.rows.read_text()) if args.rows.exists() else {}
    stamp = f"{datetime.date.today()} {commit()}"
    todo: list[tuple[str, str, object]] = []
    if not args.print and args.runtime in (None, "tflm"):
        files = [f for path in args.files or FOLDERS
                 for f in (sorted(path.glob("*.tflite")) if path.is_dir() else [path])]
        todo += [("tflm", f.stem, f) for f in files]
    if not args.print and args.runtime in (None, "executorch"):
        todo += [("executorch", n, None) for n in executorch_models()]
    todo = [t for t in todo if not args.only or t[1] in args.only]
    with tempfile.TemporaryDirectory() as folder:
        for runtime, name, path in todo:
            if runtime == "tflm":
                found = tflm_row(path, args.time_limit or 10.0)
            else:
                found = executorch_row(name, args.time_limit or 2.0, Path(folder))
            rows[f"{runtime}/{name}"] = {**found, "measured": stamp}
            # Written after each model: a long run keeps what it measured.
            args.rows.write_text(json.dumps(rows, indent=1, sort_keys=True) + "\n")
            print(f"  {runtime} {name}: done", file=sys.stderr, flush=True)
    if args.families:
        print(format_table(FAMILY_HEADERS, families(rows)))
    else:
        print(format_table(HEADERS, table(rows)))


if __name__ == "__main__":
    sys.path.insert(0, str(HERE))
    main()
