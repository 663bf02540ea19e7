"""`memplan plan MODEL.pt2 --rewrite all` on CNNs exported here (issue 34): ExecuTorch's
pools before, the bound and memplan's pools after, the rewrites kept, outputs compared.

    python benchmarks/executorch_rewrites.py [--only NAME ...] [--time-limit S]

Each model is exported with torch.export (random weights, eval mode: the CNNs of
`executorch_patches.py`, torchvision's ResNet-18, and GPT-2 and the small Llama of
`executorch_models.py` at 128 tokens), saved as .pt2, and planned by the
command in a child process (`python -m memplan plan M.pt2 --rewrite all -o M.pte
--check-run --json`): patches, then reorder, then inplace, each kept only when the
bound drops, the written program run by executorch.runtime against the program as given
(lowered by ExecuTorch's own planner). `pools ET` is the sum of ExecuTorch's pools for
the program as given under its greedy planner; `bound as given` the command's
`original_lower_bound`; `bound` and `pools after` the written program's bound and
memplan's pools (what the .pte asks ExecuTorch to allocate).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import torch
from executorch_models import gpt2, llama_small
from executorch_patches import MODELS as PATCH_MODELS

from memplan.report.table import format_table
from memplan.runtimes.executorch.program import Planner, lower


def _image(build, size: int):
    return lambda: (build(), (torch.randn(1, 3, size, size),))


def resnet18():
    import torchvision

    return torchvision.models.resnet18()


# name -> () -> (module, example inputs)
MODELS = {**{name: _image(build, size) for name, (build, size) in PATCH_MODELS.items()},
          "resnet18_224": _image(resnet18, 224), "gpt2": gpt2, "llama_small": llama_small}

HEADERS = ("model", "kept", "MACs +", "pools ET", "bound as given", "bound", "x",
           "pools after", "x ET", "in place", "identical", "s")


def measure(name: str, make, time_limit: float, folder: Path) -> dict:
    """One model through the command: what `row` prints and `issue34_table.py` keeps."""
    started = time.perf_counter()
    torch.manual_seed(0)
    model, example = make()
    exported = torch.export.export(model.eval(), example)
    path, out = folder / f"{name}.pt2", folder / f"{name}.pte"
    torch.export.save(exported, path)
    given = lower(exported, Planner.GREEDY).total
    # The command lowers with constant propagation (a transposed classifier weight is a
    # constant, not a planned tensor): ExecuTorch's pools so lowered isolate the rewrites.
    folded = lower(exported, Planner.GREEDY, fold_constants=True).total
    done = subprocess.run([sys.executable, "-m", "memplan", "plan", str(path), "--rewrite",
                           "all", "-o", str(out), "--check-run", "--json", "--time-limit",
                           str(time_limit)], capture_output=True, text=True)
    found = {"model": name, "pools_et": given, "pools_et_folded": folded}
    if done.returncode != 0:
        # The command's one line (torch's warnings and ExecuTorch's logging follow it).
        said = [line for line in done.stderr.splitlines() if line.startswith("memplan: ")]
        return {**found, "error": f"exit {done.returncode}: {(said or [done.stderr])[-1][:160]}",
                "seconds": round(time.perf_counter() - started)}
    doc = json.loads(done.stdout)
    kept = [r for r in doc["rewrites"] if r["kept"]]
    return {**found, "kept": [r["rewrite"] for r in kept],
            "mac_overhead": next((r["mac_overhead"] for r in kept
                                  if r["rewrite"] == "patches"), 0.0),
            "in_place": sum(len(r["what"]) for r in kept if r["rewrite"] == "inplace"),
            "bound_given": doc["original_lower_bound"], "bound": doc["total"]["lower_bound"],
            "pools_after": doc["total"]["memplan"], "identical": doc["check"]["identical"],
            "seconds": round(time.perf_counter() - started)}


def row(name: str, make, time_limit: float, folder: Path) -> tuple:
    m = measure(name, make, time_limit, folder)
    if "error" in m:
        return (name, m["error"], *("-",) * 9, m["seconds"])
    original, bound, pools = m["bound_given"], m["bound"], m["pools_after"]
    return (name, ",".join(m["kept"]) or "none", f"{m['mac_overhead']:.1%}", m["pools_et"],
            original, bound, f"{bound / original:.3f}", pools,
            f"{pools / m['pools_et']:.3f}", m["in_place"],
            "yes" if m["identical"] else "NO", m["seconds"])


IN_PLACE_HEADERS = ("model", "bound", "bound in place", "in place", "identical", "s")


def in_place_row(name: str, make) -> tuple:
    """`--in-place-only`: the program lowered with constant propagation by memplan, with
    and without in-place outputs; outputs of the two compared."""
    from memplan.runtimes.executorch.front_end import memplan_planner
    from memplan.runtimes.executorch.planning import planning_pass
    from memplan.runtimes.executorch.program import identical, lower_with, run

    started = time.perf_counter()
    torch.manual_seed(0)
    model, example = make()
    exported = torch.export.export(model.eval(), example)
    done = [lower_with(exported, Planner.MEMPLAN, planning_pass(
        planner=memplan_planner(time_limit=None), in_place=flag), fold_constants=True)
        for flag in (False, True)]
    bounds = [sum(a.lower_bound for a in d.arenas) for d in done]
    same = identical(run(done[0].program, list(example)), run(done[1].program, list(example)))
    return (name, bounds[0], bounds[1], len(done[1].in_place), "yes" if same else "NO",
            f"{time.perf_counter() - started:.0f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=sorted(MODELS))
    parser.add_argument("--time-limit", type=float, default=2.0)
    parser.add_argument("--in-place-only", action="store_true",
                        help="no command: lower each model with and without in-place "
                        "outputs (constant propagation on) and compare the two")
    args = parser.parse_args()
    if args.in_place_only:
        rows = [in_place_row(name, MODELS[name]) for name in args.only or MODELS]
        print(format_table(IN_PLACE_HEADERS, rows))
        return
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name in args.only or MODELS:
            rows.append(row(name, MODELS[name], args.time_limit, Path(folder)))
            # The table so far after each model: a long run still leaves what it measured.
            print(format_table(HEADERS, rows), end="\n\n", flush=True)


if __name__ == "__main__":
    main()
