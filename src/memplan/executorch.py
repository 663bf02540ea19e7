"""memplan as ExecuTorch's memory planner: the plug-in for a user's own lowering.

    from executorch.exir import ExecutorchBackendConfig, to_edge
    from memplan.executorch import planning_pass

    edge = to_edge(torch.export.export(model, inputs))
    program = edge.to_executorch(ExecutorchBackendConfig(memory_planning_pass=planning_pass()))

or the algorithm alone, for a `MemoryPlanningPass` of one's own:

    from executorch.exir.memory_planning import MemoryPlanningAlgorithmSuite
    from memplan.executorch import MemplanAlgorithm

    suite = MemoryPlanningAlgorithmSuite(algo_list=[MemplanAlgorithm()])

With a target's pools (fastest first), tensors spread over them by memplan's placement:
`planning_pass(pools=pools_from_target("cortex-m55+ethos-u55"))`. Each arena is planned
by the same driver as `memplan plan MODEL.pt2` (docs/runtimes/executorch.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .extras import Extra, import_optional
from .targets import Target, target_of

_JOB = "memplan.executorch"
import_optional("executorch", Extra.EXECUTORCH, _JOB)

from .runtimes.executorch import planning as _planning  # noqa: E402
from .runtimes.executorch.front_end import memplan_planner  # noqa: E402
from .runtimes.executorch.front_end import planning_pass as _planning_pass  # noqa: E402

ArenaPool = _planning.ArenaPool


def pools_from_target(target: Target | str) -> tuple[ArenaPool, ...]:
    """A target's pools (a preset name, a .toml file or a `Target`) as ExecuTorch arenas,
    fastest first, mem_ids from 1."""
    return _planning.pools_from_target(target_of(target))


def planning_pass(*, time_limit: float | None = 10.0, pools: Sequence[ArenaPool] = (),
                  **pass_options: Any) -> Any:
    """ExecuTorch's `MemoryPlanningPass` whose algorithm is memplan's; options go to the
    pass (`alloc_graph_input`, `alignment`, ...). `.memory_planning_algo.algo_list[0]` is
    the algorithm, whose `arenas` and `spills` tell what it did."""
    return _planning_pass(time_limit=time_limit, pools=tuple(pools), **pass_options)


class MemplanAlgorithm(_planning.MemplanAlgorithm):
    """The algorithm for `MemoryPlanningAlgorithmSuite(algo_list=[MemplanAlgorithm()])`,
    each call planned by memplan's model driver."""

    def __init__(self, *, time_limit: float | None = 10.0,
                 pools: Sequence[ArenaPool] | None = None) -> None:
        pools = tuple(pools or ())
        super().__init__(time_limit=time_limit, pools=pools,
                         planner=memplan_planner(pools, time_limit))


__all__ = ["ArenaPool", "MemplanAlgorithm", "planning_pass", "pools_from_target"]
