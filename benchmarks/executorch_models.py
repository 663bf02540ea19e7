"""Whole models through ExecuTorch: its planners against memplan's, plans proven by running.

    python benchmarks/executorch_models.py [--models mobilenet_v2 resnet50 ...]
        [--time-limit 30] [--json results.jsonl]
        [--parts arena fixes banked] [--target cortex-m55+ethos-u55 | FILE.toml]
    python benchmarks/executorch_models.py --tables results.jsonl [more.jsonl ...]

Models are built here from torchvision and transformers definitions with random weights
(nothing is downloaded), fp32, batch 1, exported with `torch.export.export` and lowered
with `to_edge` then `to_executorch`. For each model, one lowering per planner from the
same exported program:

- table 1, one arena: ExecuTorch's default `greedy` against memplan's algorithm, with the
  lower bound of the very tensors planned (most bytes live at once), memplan's proof, its
  planning seconds, whether ExecuTorch's storage-reuse verifier passed (it raises when
  it does not) and whether both programs' outputs under `executorch.runtime` are
  bit-identical on the same random inputs;
- table 2, a target's pools (`--target`, default cortex-m55+ethos-u55: 2 MiB SRAM, 32 MiB
  DRAM): ExecuTorch's `banked_greedy` against memplan, each pool's arena size and the
  bytes of the tensors each slower pool holds, and whether memplan leaves no more tensor
  bytes than `banked_greedy` in each slower pool and those below it together;
- table 3, graph-level inflation: the lower bound of the exported graph, the lower bound
  after ExecuTorch's constant propagation and reinplace pass (`graph_fixes`), ExecuTorch's
  and memplan's plans of the fixed graph (outputs compared bit for bit between the two,
  and against the exported graph's as the largest difference), and the largest tensors
  at each graph's peak.

Each model's rows are printed as soon as they are measured (and appended to --json).
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable

import torch

from memplan.report.table import format_table
from memplan.runtimes.executorch.front_end import memplan_planner
from memplan.runtimes.executorch.planning import pools_from_target
from memplan.runtimes.executorch.program import (
    Lowered,
    Planner,
    identical,
    lower,
    random_inputs,
    run,
)
from memplan.targets import load_target

MiB = 1 << 20


def torchvision_model(name: str) -> Callable[[], tuple[torch.nn.Module, tuple]]:
    def build():
        import torchvision

        model = getattr(torchvision.models, name)(weights=None)
        return model, (torch.randn(1, 3, 224, 224),)
    return build


class _LogitsOnly(torch.nn.Module):
    """A causal LM's forward with only the logits out (no cache, no dict)."""

    def __init__(self, model: torch.nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        return self.model(input_ids=input_ids, use_cache=False).logits


def gpt2(seq: int = 128):
    from transformers import GPT2Config, GPT2LMHeadModel

    config = GPT2Config(n_positions=1024)  # GPT-2 small: 12 layers, 768 wide, 50257 tokens
    config._attn_implementation = "eager"
    model = GPT2LMHeadModel(config)
    return _LogitsOnly(model), (torch.randint(0, 50257, (1, seq)),)


def llama_small(seq: int = 128):
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(vocab_size=32000, hidden_size=512, intermediate_size=1408,
                         num_hidden_layers=4, num_attention_heads=8, num_key_value_heads=4,
                         max_position_embeddings=512)
    config._attn_implementation = "eager"
    model = LlamaForCausalLM(config)
    return _LogitsOnly(model), (torch.randint(0, 32000, (1, seq)),)


MODELS: dict[str, Callable[[], tuple[torch.nn.Module, tuple]]] = {
    "mobilenet_v2": torchvision_model("mobilenet_v2"),
    "mobilenet_v3_large": torchvision_model("mobilenet_v3_large"),
    "resnet50": torchvision_model("resnet50"),
    "efficientnet_b0": torchvision_model("efficientnet_b0"),
    "convnext_tiny": torchvision_model("convnext_tiny"),
    "vit_b_16": torchvision_model("vit_b_16"),
    "gpt2": gpt2,
    "llama_small": llama_small,
}


def mib(n: int | None) -> str:
    return "-" if n is None else f"{n / MiB:.2f}"


PARTS = ("arena", "fixes", "banked")


def measure(name: str, time_limit: float, parts: tuple[str, ...] = PARTS,
            target: str = "cortex-m55+ethos-u55") -> dict:
    torch.manual_seed(0)
    model, example = MODELS[name]()
    model.eval()
    with torch.no_grad():
        exported = torch.export.export(model, example)
    inputs = random_inputs(exported, seed=1)
    row: dict = {"model": name}

    greedy = lower(exported, Planner.GREEDY)
    reference = run(greedy.program, inputs)
    if "arena" in parts:
        ours = lower(exported, Planner.MEMPLAN, time_limit=time_limit,
                     arena_planner=memplan_planner((), time_limit))
        row.update(
            tensors=sum(not t.aliased for t in greedy.tensors),
            bound=greedy.bound(), greedy=greedy.total, memplan=ours.total,
            proof=", ".join(sorted({a.proof.value for a in ours.arenas})),
            plan_seconds=sum(a.seconds for a in ours.arenas),
            lower_seconds=ours.seconds, greedy_lower_seconds=greedy.seconds,
            verified=True,  # `lower` ran ExecuTorch's verifier on both plans; it raises otherwise
            identical=identical(reference, run(ours.program, inputs)),
        )
    if "fixes" in parts:
        # The fixes change the graph (constants folded at export time by torch, not by
        # ExecuTorch's kernels), so memplan's plan of the fixed graph is proven against
        # ExecuTorch's plan of the same fixed graph; the exported graph's outputs are
        # compared too, for information.
        fixed_greedy = lower(exported, Planner.GREEDY, graph_fixes=True)
        fixed = lower(exported, Planner.MEMPLAN, time_limit=time_limit, graph_fixes=True,
                      arena_planner=memplan_planner((), time_limit))
        fixed_outputs = run(fixed.program, inputs)
        row.update(
            exported_bound=greedy.bound(), fixed_bound=fixed.bound(),
            fixed_greedy=fixed_greedy.total, fixed_memplan=fixed.total,
            fixed_identical=identical(run(fixed_greedy.program, inputs), fixed_outputs),
            fixed_vs_exported=_max_difference(reference, fixed_outputs),
            peak_tensors=[f"{t.op} {list(t.shape)} {t.bytes}" for t in greedy.peak_tensors(3)],
            fixed_peak_tensors=[f"{t.op} {list(t.shape)} {t.bytes}"
                                for t in fixed.peak_tensors(3)])
    if "banked" in parts:
        pools = pools_from_target(load_target(target))
        row["target"] = load_target(target).name
        for key, planner in (("banked_greedy", Planner.BANKED_GREEDY),
                             ("banked_memplan", Planner.MEMPLAN)):
            try:
                banked = lower(exported, planner, pools=pools, time_limit=time_limit,
                               arena_planner=memplan_planner(tuple(pools), time_limit))
            except Exception as err:  # both planners refuse a model that fits no pool
                row[key] = {"error": str(err).splitlines()[0][:160]}
                continue
            row[key] = _banked_row(banked, pools,
                                   identical(reference, run(banked.program, inputs)))
    return row


def _max_difference(a: list, b: list) -> float:
    """Largest absolute difference between two runs' tensor outputs (0.0: bit-identical
    or equal everywhere)."""
    return max((float((x.double() - y.double()).abs().max()) for x, y in zip(a, b, strict=True)
                if isinstance(x, torch.Tensor) and x.numel()), default=0.0)


def _banked_row(lowered: Lowered, pools, same: bool) -> dict:
    sizes = lowered.arena_sizes
    used = {p.name: sizes[p.mem_id] if p.mem_id < len(sizes) else 0 for p in pools}
    slow = [p.mem_id for p in pools[1:]]
    spilled = [t for t in lowered.tensors if t.mem_id in slow and not t.aliased]
    held = {p.name: sum(t.bytes for t in lowered.tensors
                        if t.mem_id == p.mem_id and not t.aliased) for p in pools}
    return {"used": used, "held": held, "spilled_tensors": len(spilled),
            "spilled_bytes": sum(t.bytes for t in spilled), "identical": same,
            "sram_bound": lowered.bound(pools[0].mem_id)}


def print_tables(rows: list[dict]) -> None:
    arena = [r for r in rows if "greedy" in r]
    if arena:
        print(format_table(
            ["model", "tensors", "lower bound MiB", "ET greedy MiB", "memplan MiB",
             "greedy/bound", "exact status", "plan s", "lowering s", "verifier",
             "outputs identical"],
            [[r["model"], r["tensors"], mib(r["bound"]), mib(r["greedy"]), mib(r["memplan"]),
              f"{r['greedy'] / r['bound']:.2f}x" if r["bound"] else "-", r["proof"],
              f"{r['plan_seconds']:.1f}", f"{r['lower_seconds']:.1f}",
              "passed" if r["verified"] else "FAILED", "yes" if r["identical"] else "NO"]
             for r in arena]))
        print()
    banked = [r for r in rows if "banked_greedy" in r]
    for target in sorted({r.get("target", "cortex-m55+ethos-u55") for r in banked}):
        print(f"pools of {target}: arena sizes, then the bytes of the tensors each slower "
              "pool holds")
        print(format_table(
            ["model", "banked_greedy arenas MiB", "tensors in slower pools MiB",
             "memplan arenas MiB", "tensors in slower pools MiB",
             "memplan <= banked_greedy, each slower pool and below", "outputs identical"],
            [[r["model"], *_pool_cells(r["banked_greedy"]), *_pool_cells(r["banked_memplan"]),
              _no_worse(r), _same(r)] for r in banked
             if r.get("target", "cortex-m55+ethos-u55") == target]))
        print()
    fixes = [r for r in rows if "fixed_bound" in r]
    if fixes:
        print(format_table(
            ["model", "bound, exported", "bound, graph fixed", "ET greedy, fixed",
             "memplan, fixed", "outputs identical", "max |diff| vs exported",
             "largest tensors at the exported peak", "largest at the fixed peak"],
            [[r["model"], mib(r.get("exported_bound", r.get("bound"))), mib(r["fixed_bound"]),
              mib(r.get("fixed_greedy")), mib(r["fixed_memplan"]),
              "yes" if r["fixed_identical"] else "NO",
              f"{r['fixed_vs_exported']:.2g}" if "fixed_vs_exported" in r else "-",
              "; ".join(r["peak_tensors"]), "; ".join(r["fixed_peak_tensors"])]
             for r in fixes]))


def _pool_cells(cell: dict) -> list[str]:
    if "error" in cell:
        return ["does not fit", "-"]
    held = list(cell.get("held", {}).values())[1:] or [cell["spilled_bytes"]]
    return [" / ".join(mib(v) for v in cell["used"].values()),
            " / ".join(mib(v) for v in held)]


def _no_worse(row: dict) -> str:
    ours, theirs = row["banked_memplan"], row["banked_greedy"]
    if "error" in ours or "error" in theirs:
        return "-"
    if "held" not in ours:
        return "yes" if ours["spilled_bytes"] <= theirs["spilled_bytes"] else "NO"
    # The bytes left in each slower pool and those slower still: moving a tensor up from
    # the slowest pool adds to the middle one, and is still no worse.
    pools = list(ours["held"])
    return "yes" if all(sum(ours["held"][p] for p in pools[k:]) <=
                        sum(theirs["held"][p] for p in pools[k:])
                        for k in range(1, len(pools))) else "NO"


def _same(row: dict) -> str:
    cells = [row[k] for k in ("banked_greedy", "banked_memplan") if "error" not in row[k]]
    return "-" if not cells else "yes" if all(c["identical"] for c in cells) else "NO"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--time-limit", type=float, default=30.0,
                        help="exact solver seconds per arena (default 30)")
    parser.add_argument("--json", help="append one JSON line per model to this file")
    parser.add_argument("--parts", nargs="+", default=list(PARTS), choices=PARTS,
                        help="which tables to measure (default all)")
    parser.add_argument("--target", default="cortex-m55+ethos-u55",
                        help="the pools of the banked part: a preset or a .toml "
                        "(benchmarks/targets/corstone300-three-pools.toml: three pools)")
    parser.add_argument("--tables", metavar="JSONL", nargs="+",
                        help="only print the tables of rows measured earlier (--json); "
                        "a model's later rows add to or replace its earlier keys")
    args = parser.parse_args()
    if args.tables:
        merged: dict[str, dict] = {}
        for path in args.tables:
            with open(path) as rows_file:
                for line in rows_file:
                    if line.strip():
                        row = json.loads(line)
                        merged.setdefault(row["model"], {}).update(row)
        print_tables(list(merged.values()))
        return
    rows = []
    for name in args.models:
        started = time.perf_counter()
        row = measure(name, args.time_limit, tuple(args.parts), args.target)
        row["seconds"] = time.perf_counter() - started
        rows.append(row)
        print(json.dumps(row), flush=True)
        if args.json:
            with open(args.json, "a") as out:
                out.write(json.dumps(row) + "\n")
    print_tables(rows)


if __name__ == "__main__":
    main()
