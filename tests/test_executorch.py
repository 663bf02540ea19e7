"""memplan as ExecuTorch's memory planner: the hook's rules on hand-made tensor specs,
then small models lowered, verified by ExecuTorch's checker and run by its runtime."""

from __future__ import annotations

import itertools
import json
from types import SimpleNamespace

import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("executorch")

from executorch.exir.tensor import TensorSpec  # noqa: E402

from memplan.cli import main  # noqa: E402
from memplan.pack import PlanStatus  # noqa: E402
from memplan.report.json_schema import plan_json_problems  # noqa: E402
from memplan.runtimes.executorch.front_end import memplan_planner  # noqa: E402
from memplan.runtimes.executorch.planning import (  # noqa: E402
    ArenaPool,
    MemplanAlgorithm,
    PlanningError,
)
from memplan.runtimes.executorch.program import (  # noqa: E402
    Planner,
    identical,
    lower,
    random_inputs,
    run,
)

# --- the hook on hand-made specs -------------------------------------------------------


def spec(elements: int, start: int, end: int, mem_id: int | None = None) -> TensorSpec:
    s = TensorSpec(dtype=torch.float32, shape=torch.Size([elements]))
    s.lifetime = [start, end]
    s.mem_id = mem_id
    return s


def graph(reserved: list[int] | None = None) -> SimpleNamespace:
    """What the algorithm reads off a graph module: the submodules' reservations."""
    return SimpleNamespace(input_mem_buffer_sizes=reserved)


def plan(specs, reserved=None, alignment=16, padding=0, **options):
    algo = MemplanAlgorithm(time_limit=5.0, planner=memplan_planner(
        tuple(options.get("pools") or ()), 5.0), **options)
    result = algo(alignment, specs, graph(reserved), None, padding)
    return algo, result


def chain(s: TensorSpec) -> set[int]:
    seen = set()
    while s is not None:
        seen.add(id(s))
        s = s.storage_base
    return seen


def assert_sound(specs, result):
    """No two specs live at once share a byte unless one backs the other, and specs
    sharing bytes share a mem_obj_id (what ExecuTorch's verifier asks)."""
    for a, b in itertools.combinations(specs, 2):
        ra, rb = result.spec_dict[a], result.spec_dict[b]
        assert ra.mem_offset % a.alignment == 0
        if ra.mem_id != rb.mem_id:
            continue
        bytes_touch = (ra.mem_offset < rb.mem_offset + b.allocated_memory
                       and rb.mem_offset < ra.mem_offset + a.allocated_memory)
        times_touch = a.lifetime[0] <= b.lifetime[1] and b.lifetime[0] <= a.lifetime[1]
        if bytes_touch:
            assert ra.mem_obj_id == rb.mem_obj_id
            if times_touch:
                assert id(a) in chain(b) or id(b) in chain(a)
        for r, s in ((ra, a), (rb, b)):
            assert r.mem_offset + s.allocated_memory <= result.bufsizes[r.mem_id]


def test_packs_at_the_lower_bound_where_executorch_greedy_does_not():
    from executorch.exir.memory_planning import greedy

    shapes = [(24, 4, 4), (12, 2, 3), (20, 3, 5), (20, 0, 2), (8, 2, 3)]
    theirs = greedy(16, [spec(*s) for s in shapes], graph(), None, 0).bufsizes
    specs = [spec(*s) for s in shapes]
    algo, result = plan(specs)
    assert_sound(specs, result)
    assert result.bufsizes == [0, 176] and theirs == [0, 256]
    assert algo.top_arenas[0].proof is PlanStatus.AT_BOUND
    assert algo.top_arenas[0].lower_bound == 176


def test_pinned_mem_id_stays_and_arenas_are_packed_apart():
    specs = [spec(8, 0, 3), spec(8, 0, 3, mem_id=3), spec(4, 4, 5, mem_id=3)]
    _, result = plan(specs)
    assert_sound(specs, result)
    assert [result.spec_dict[s].mem_id for s in specs] == [1, 3, 3]
    assert result.bufsizes == [0, 32, 0, 32]


def test_submodule_reservation_padding_and_alignment():
    specs = [spec(3, 0, 2), spec(5, 1, 4)]  # 12 and 20 bytes, rounded up to 64 each
    _, result = plan(specs, reserved=[0, 100], alignment=64, padding=8)
    assert_sound(specs, result)
    offsets = sorted(result.spec_dict[s].mem_offset for s in specs)
    assert offsets == [128, 192]  # above the reservation, rounded up to the alignment
    assert result.bufsizes == [0, 128 + 128 + 8]


def test_storage_backed_spec_sits_inside_its_base():
    base, other = spec(32, 0, 6), spec(32, 2, 4)
    alias = spec(8, 3, 5)
    alias.storage_base, alias.storage_base_offset = base, 64
    specs = [base, other, alias]
    _, result = plan(specs)
    assert_sound(specs, result)
    assert result.spec_dict[alias].mem_offset == result.spec_dict[base].mem_offset + 64
    assert result.spec_dict[alias].mem_obj_id == result.spec_dict[base].mem_obj_id
    assert result.bufsizes[1] == 256  # the alias adds no bytes


def test_storage_backed_spec_must_fit_its_base():
    base, alias = spec(4, 0, 2), spec(8, 1, 2)
    alias.storage_base = base
    with pytest.raises(PlanningError, match="does not fit inside its base"):
        plan([base, alias])


def test_pools_fill_the_fast_one_and_say_why_the_rest_spilled():
    specs = [spec(4, 0, 2), spec(4, 1, 3), spec(64, 2, 4), spec(4, 4, 5)]
    pools = (ArenaPool("sram", 1, 64, 16), ArenaPool("dram", 2, 1024, 16))
    algo, result = plan(specs, pools=pools)
    assert_sound(specs, result)
    assert [result.spec_dict[s].mem_id for s in specs] == [1, 1, 2, 1]
    assert result.bufsizes[1] <= 64 and result.bufsizes[2] == 256
    [spill] = algo.spills
    assert spill.bytes == 256 and spill.pool == "dram"
    assert "over the capacity of 64" in spill.reasons[0][1]


def test_pools_keep_the_fewest_bytes_in_the_slow_pool():
    # memplan.place's admission (smallest first while the packed peak fits) keeps the
    # four 32-byte tensors in sram and sends the 192-byte one to dram; banked_greedy's
    # split (the large one first) keeps only 64 B in dram: its split is kept.
    small = [spec(8, 0, 3) for _ in range(4)]
    large = spec(48, 0, 3)
    pools = (ArenaPool("sram", 1, 256, 16), ArenaPool("dram", 2, 1024, 16))
    algo, result = plan(small + [large], pools=pools)
    assert_sound(small + [large], result)
    assert result.spec_dict[large].mem_id == 1
    assert sorted(result.spec_dict[s].mem_id for s in small) == [1, 1, 2, 2]
    assert result.bufsizes[1:] == [256, 64]  # sram full
    assert {a.plan.assignment for a in algo.arenas} == {"executorch banked_greedy"}
    assert {s.pool for s in algo.spills} == {"dram"}


def test_the_runtimes_split_is_improved_where_a_faster_pool_has_room():
    # banked_greedy first-fits in order: the early 128 B tensor fills sram's 160 B, and the
    # two later 64 B tensors (live together, after it) go to dram; once it is done, sram
    # can take both, which memplan moves up.
    specs = [spec(32, 0, 1), spec(16, 2, 3), spec(16, 2, 3)]
    pools = (ArenaPool("sram", 1, 160, 16), ArenaPool("dram", 2, 1024, 16))
    algo, result = plan(specs, pools=pools)
    assert_sound(specs, result)
    assert [result.spec_dict[s].mem_id for s in specs] == [1, 1, 1]
    assert result.bufsizes[1] <= 160


def test_a_tensor_no_pool_can_hold_is_refused():
    pools = (ArenaPool("sram", 1, 64, 16),)
    with pytest.raises(PlanningError, match="no pool can hold .*256 B.*over the capacity"):
        plan([spec(64, 0, 1)], pools=pools)


# --- small models, end to end ----------------------------------------------------------


class ConvNet(torch.nn.Module):
    """Convolutions with a residual, a transposed weight at run time, two outputs."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.c3 = torch.nn.Conv2d(8, 16, 3, stride=2, padding=1)
        self.fc = torch.nn.Linear(16 * 8 * 8, 10)

    def forward(self, x):
        y = torch.relu(self.c1(x))
        z = torch.relu(self.c2(y)) + y
        w = torch.relu(self.c3(z))
        return self.fc(w.flatten(1)), z.mean()


class Stateful(torch.nn.Module):
    """Attention-like matmuls and a mutable buffer, written in place every call."""

    def __init__(self) -> None:
        super().__init__()
        self.q = torch.nn.Linear(16, 16)
        self.k = torch.nn.Linear(16, 16)
        self.register_buffer("total", torch.zeros(8, 16))

    def forward(self, x):
        scores = torch.softmax(self.q(x) @ self.k(x).transpose(0, 1), dim=-1)
        out = scores @ x
        self.total.copy_(out)  # its initial value is not serialized: never read it
        return out * 2, self.total + 1


class Branching(torch.nn.Module):
    """Control flow: each branch is a submodule ExecuTorch plans first, and the parent
    graph's arena keeps the bytes they reserve (`input_mem_buffer_sizes`)."""

    def forward(self, x, y):
        def positive(x, y):
            return (x @ y).relu() + 1

        def negative(x, y):
            return (x - y).sigmoid() * 2

        return torch.cond(x.sum() > 0, positive, negative, (x, y)) * 3 + x


MODELS = {
    "convnet": (ConvNet, (torch.randn(1, 3, 16, 16),)),
    "stateful": (Stateful, (torch.randn(8, 16),)),
    "branching": (Branching, (torch.randn(8, 8), torch.randn(8, 8))),
}


@pytest.fixture(scope="module", params=sorted(MODELS))
def exported(request):
    torch.manual_seed(0)
    cls, example = MODELS[request.param]
    with torch.no_grad():
        return torch.export.export(cls().eval(), example)


@pytest.fixture(scope="module")
def greedy(exported):
    return lower(exported, Planner.GREEDY)


def test_memplan_plan_runs_bit_identically_and_is_no_larger(exported, greedy):
    ours = lower(exported, Planner.MEMPLAN, time_limit=5.0,
                 arena_planner=memplan_planner((), 5.0))  # ExecuTorch's verifier ran
    assert ours.total <= greedy.total
    assert sorted(t.bytes for t in ours.tensors) == sorted(t.bytes for t in greedy.tensors)
    for arena in ours.arenas:
        assert arena.proof in (PlanStatus.AT_BOUND, PlanStatus.OPTIMAL)
    assert ours.total == ours.arenas[0].lower_bound  # these graphs' bounds are reachable
    inputs = random_inputs(exported, seed=3)
    for given in (inputs, [-t for t in inputs]):  # both branches of a `cond`
        assert identical(run(greedy.program, given), run(ours.program, given))


def test_pools_plan_runs_bit_identically(exported, greedy):
    if any(n.target is torch.ops.higher_order.cond for n in exported.graph.nodes):
        pytest.skip("a few hundred bytes of control flow: nothing to split")
    total = greedy.bound()
    pools = (ArenaPool("sram", 1, total // 3, 16), ArenaPool("dram", 2, 4 * total, 16))
    ours = lower(exported, Planner.MEMPLAN, pools=pools, time_limit=5.0,
                 arena_planner=memplan_planner(tuple(pools), 5.0))
    assert len(ours.arena_sizes) == 3 and ours.arena_sizes[1] <= total // 3
    assert ours.spills and {t.mem_id for t in ours.tensors} == {1, 2}
    inputs = random_inputs(exported, seed=4)
    assert identical(run(greedy.program, inputs), run(ours.program, inputs))


def _pool_bytes(lowered, pools) -> list[tuple[int, int]]:
    """Per pool: the bytes of the tensors it holds, and its arena's size."""
    return [(sum(t.bytes for t in lowered.tensors if t.mem_id == p.mem_id and not t.aliased),
             lowered.arena_sizes[p.mem_id] if p.mem_id < len(lowered.arena_sizes) else 0)
            for p in pools]


def test_three_pools_never_leave_more_than_banked_greedy_in_the_slower_pools():
    torch.manual_seed(0)
    cls, example = MODELS["convnet"]
    with torch.no_grad():
        exported = torch.export.export(cls().eval(), example)
    bound = lower(exported, Planner.GREEDY).bound()
    pools = (ArenaPool("tcm", 1, bound // 4, 16), ArenaPool("sram", 2, bound // 3, 16),
             ArenaPool("dram", 3, 4 * bound, 16))
    theirs = _pool_bytes(lower(exported, Planner.BANKED_GREEDY, pools=pools), pools)
    ours = _pool_bytes(lower(exported, Planner.MEMPLAN, pools=pools, time_limit=5.0,
                             arena_planner=memplan_planner(pools, 5.0)), pools)
    for (_, size), pool in zip(ours, pools, strict=True):
        assert size <= pool.capacity
    for k in range(1, len(pools)):  # each slower pool and those below it: no more left
        assert sum(h for h, _ in ours[k:]) <= sum(h for h, _ in theirs[k:]), (ours, theirs)
    # lexicographically, slowest pool first: no more bytes left behind
    assert [h for h, _ in reversed(ours)] <= [h for h, _ in reversed(theirs)]


# --- the command --------------------------------------------------------------------


@pytest.fixture(scope="module")
def saved_model(tmp_path_factory):
    path = tmp_path_factory.mktemp("model") / "convnet.pt2"
    torch.manual_seed(0)
    torch.export.save(torch.export.export(ConvNet().eval(), MODELS["convnet"][1]), str(path))
    return path


def test_plan_command_json_and_program(saved_model, tmp_path, capsys):
    out, plot = tmp_path / "convnet.pte", tmp_path / "layout.svg"
    assert main(["plan", str(saved_model), "--json", "-o", str(out), "--check-run",
                 "--plot", str(plot)]) == 0
    data = json.loads(capsys.readouterr().out)  # one document: the check is inside it
    assert plan_json_problems(data) == []
    [arena] = data["arenas"]
    assert arena["memplan"] == arena["lower_bound"] <= arena["runtime"]
    assert data["runtime_planner"] == "executorch greedy"
    assert data["check"]["ran"] and data["check"]["identical"]
    assert any(t.get("op") == "permute_copy" for t in data["tensors"])
    # The floor of any order: one operator's planned tensors, never above the bound.
    floor = arena["floor"]
    assert 0 < floor["bytes"] <= arena["lower_bound"] and len(floor["held"]) >= 2
    assert 0 < sum(h["bytes"] for h in floor["held"]) <= floor["bytes"]
    assert plot.read_bytes().startswith(b"<?xml")
    exported = torch.export.load(str(saved_model))
    inputs = random_inputs(exported, seed=5)
    assert identical(run(out.read_bytes(), inputs),
                     run(lower(exported, Planner.GREEDY).program, inputs))


def test_plan_command_target_and_budget(saved_model, capsys):
    assert main(["plan", str(saved_model), "--target", "cortex-m55+ethos-u55", "--summary"]) == 0
    text = capsys.readouterr().out
    assert "executorch banked_greedy" in text and "sram" in text
    assert "split over the pools" in text
    assert main(["plan", str(saved_model), "--target", "cortex-m55+ethos-u55", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert plan_json_problems(data) == []
    for arena in data["arenas"]:  # both planners per pool, and whose split was kept
        assert arena["runtime"] is not None and arena["assignment"]
    plot = saved_model.parent / "over.svg"
    assert main(["plan", str(saved_model), "--budget", "1000", "--summary",
                 "--plot", str(plot)]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "over the budget of 1,000 B; no plan can" in err[0]
    assert not plot.exists()  # nothing written on failure
    # with the target's pools, the budget bounds all of them together
    assert main(["plan", str(saved_model), "--target", "cortex-m55+ethos-u55", "--budget",
                 "1000", "--summary"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "over the budget of 1,000 B; no plan can" in err[0]


def zip_without_program() -> bytes:
    import io
    import zipfile

    data = io.BytesIO()
    with zipfile.ZipFile(data, "w") as archive:
        archive.writestr("readme.txt", "no model here")
    return data.getvalue()


@pytest.mark.parametrize("name, content, reason", [
    ("missing.pt2", None, "cannot read file: No such file"),
    ("garbage.pt2", b"not a zip", "not a torch.export program"),
    ("empty.pt2", zip_without_program(), "holds no exported program"),
    ("model.pte", b"", "already planned"),
    ("model.onnx2", b"", "unknown model format"),
])
def test_bad_input_is_one_line_exit_two(tmp_path, capsys, name, content, reason):
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content)
    assert main(["plan", str(path)]) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and reason in lines[0] and str(path) in lines[0]
    assert captured.out == ""


class Dynamic(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc = torch.nn.Linear(16, 16)

    def forward(self, x):
        return self.fc(x).relu() * 2


def test_dynamic_shapes_are_said_and_run_at_their_upper_bound(tmp_path, capsys):
    path = tmp_path / "dynamic.pt2"
    seq = torch.export.Dim("seq", min=2, max=64)
    exported = torch.export.export(Dynamic().eval(), (torch.randn(8, 16),),
                                   dynamic_shapes={"x": {0: seq}})
    torch.export.save(exported, str(path))
    assert [t.shape for t in random_inputs(exported)] == [torch.Size([64, 16])]
    assert main(["plan", str(path), "--json", "-o", str(tmp_path / "d.pte"),
                 "--check-run"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["check"]["identical"]
    [note] = [n for n in data["notes"] if "dynamic shapes" in n]
    assert "x dim 0" in note and "in [2, 64]" in note and "upper bound" in note


class LMHead(torch.nn.Module):
    """A tiny LM head: its weight is transposed at run time (permute_copy, 2 MiB), which
    sets the arena's bound."""

    def __init__(self) -> None:
        super().__init__()
        self.head = torch.nn.Linear(1024, 512, bias=False)

    def forward(self, x):
        return self.head(x.relu())


def test_the_tensors_that_set_an_inflated_bound_are_named(tmp_path, capsys):
    path = tmp_path / "head.pt2"
    torch.export.save(torch.export.export(LMHead().eval(), (torch.randn(1, 1024),)),
                      str(path))
    assert main(["plan", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    [note] = [n for n in data["notes"] if "the bound is set by" in n]
    assert note.startswith("arena 1:") and "permute_copy 1024x512 2,097,152 B" in note


def test_plan_prints_no_library_warnings(saved_model):
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "memplan", "plan", str(saved_model),
                           "--summary"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "memplan total" in done.stdout
    assert done.stderr == ""


def test_a_long_step_is_shown_after_a_second():
    from memplan.report.step_progress import SHOW_AFTER, StepProgress, step

    progress = StepProgress(enabled=False)  # not a terminal: nothing is started
    step("lowering")  # no display active: a no-op
    assert progress.label == ""
    progress.label = "lowering"
    assert str(progress.__rich__()) == ""  # under a second: nothing shown
    progress.started -= SHOW_AFTER + 1
    assert str(progress.__rich__()) == "lowering  2 s"


class _DynamicBatch(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(16, 32)
        self.fc2 = torch.nn.Linear(32, 16)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x))) + x


def test_dim_specialises_a_dynamic_batch_before_lowering(tmp_path, capsys):
    from memplan.runtimes.pt2 import load_exported, symbolic_dims

    torch.manual_seed(0)
    batch = torch.export.Dim("batch", min=1, max=64)
    path = tmp_path / "dyn.pt2"
    torch.export.save(torch.export.export(_DynamicBatch().eval(), (torch.randn(4, 16),),
                                          dynamic_shapes=({0: batch},)), path)
    (symbol,) = symbolic_dims(load_exported(path)).values()
    assert (symbol.input, symbol.axis, symbol.lower, symbol.upper) == ("x", 0, 1, 64)
    totals = {}
    for dims in ([], ["--dim", f"{symbol.name}=8"]):
        assert main(["plan", str(path), "--json", *dims]) == 0
        document = json.loads(capsys.readouterr().out)
        totals[bool(dims)] = sum(a["memplan"] for a in document["arenas"])
        pinned = any("dynamic shapes planned at their upper bounds" in n
                     for n in document["notes"])
        assert pinned != bool(dims)
    # Pinned at 8 rows of 64 a planned at ExecuTorch's upper bound of 64.
    assert totals[True] * 8 <= totals[False] * 2 and totals[True] < totals[False]
    assert main(["plan", str(path), "--dim", "batch=8"]) == 2
    assert f"--dim batch: no input dimension of the program is that symbol (its: " \
        f"{symbol.name} (x dim 0))" in capsys.readouterr().err
    assert main(["plan", str(path), "--dim", f"{symbol.name}=65"]) == 2
    assert "outside the range the program was exported for ([1, 64])" in capsys.readouterr().err
