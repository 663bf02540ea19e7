"""A TIR pipeline for `tvm.compile` / `tvm.tirx.build` that bounds each function's frame.

TVM 0.27 builds TIR as `pipeline(mod)`, then `finalize_host_passes()` on the host
functions, whose first pass is `LowerTVMBuiltin`. The pipeline registered here
(`tvm.tirx.compilation_pipeline.register_tir_pipeline`) is TVM's default one
with `StackPolicy` in front of `LowerTVMBuiltin`, which applies memplan's
decisions (`stack_policy.plan_frame`) to each host function:

- a buffer memplan keeps on the stack that TVM would not (1 KiB or more) is
  annotated `disable_lower_builtin`, so LowerTVMBuiltin leaves it an alloca;
- a buffer under 1 KiB memplan sends to the workspace gets the statements
  LowerTVMBuiltin itself emits for a large one: `TVMBackendAllocWorkspace`, a
  null check raising the last error, and `TVMBackendFreeWorkspace` (checked) at
  the end of the scope LowerTVMBuiltin would free it in (loop body, branch,
  attribute body, function body);
- every other buffer is left to TVM's rule, which already agrees.

`build` builds with it and proves the result: each function's frame read from the
machine code (`built_frames`: the assembly on LLVM targets, the target's C compiler's
stack usage on C targets) is within the target's `max_frame`. The budget for buffers is the frame
less what the function needs besides them; that is only known once built, so
`build` starts from none and, while a function's frame is over, reserves for that
function what its frame holds besides the buffers it keeps, and builds again (a few
rounds at most: a reserve only grows). A private function the compiler inlined into
its callers has no frame of its own: its buffers are in its callers' frames, so when
a caller keeps no buffer and is still over, the inlined functions keep none either.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ...errors import BudgetError
from ...targets import Target
from .stack_policy import FramePlan, FramePolicy, Home, plan_frame
from .targets import tvm_target_of
from .tir import DISABLE_LOWER_BUILTIN, allocation_record, function_name, map_scopes

PIPELINE_PREFIX = "memplan"
MAX_ROUNDS = 5


def stack_policy_pass(policy: FramePolicy, plans: list[FramePlan] | None = None,
                      per_function: dict[str, FramePolicy] | None = None) -> Any:
    """The module pass applying memplan's decisions; appends each function's plan to
    `plans` when given (what was decided is what the report shows). `per_function`:
    the policy of a function whose own differs from `policy`."""
    import tvm

    @tvm.transform.module_pass(opt_level=0, name="memplan.StackPolicy")
    def _pass(mod: Any, _ctx: Any) -> Any:
        updates = {}
        for gv, func in mod.functions.items():
            if not isinstance(func, tvm.tirx.PrimFunc):
                continue
            name = function_name(gv, func)
            own = (per_function or {}).get(name, policy)
            new, plan = apply_policy(func, name, own)
            if plans is not None:
                plans.append(plan)
            updates[gv] = new
        for gv, func in updates.items():
            mod[gv] = func
        return mod

    return _pass


def apply_policy(func: Any, name: str, policy: FramePolicy) -> tuple[Any, FramePlan]:
    """`func` with memplan's decisions applied, and the plan."""
    from .tir import device_type_of, walk_allocations

    # A pass gets the module TVM lowered: the same walk as `tir.allocations`.
    found = list(walk_allocations(func.body, device_type_of(func)))
    stmts = [s for s, _ in found]
    records = [allocation_record(name, s, dev) for s, dev in found]
    if not has_error_path(func):
        # No workspace without a way to fail: keep each buffer on the stack.
        records = [dataclasses.replace(r, pinned=True) for r in records]
    plan = plan_frame(name, records, policy)
    # Python wrappers of TVM nodes are made afresh on each access: match by buffer.
    by_buffer = [(s.buffer, d) for s, d in zip(stmts, plan.decisions, strict=True)]
    pending: list[list[Any]] = []

    def decision_of(stmt: Any) -> Any:
        return next(d for buf, d in by_buffer if buf.same_as(stmt.buffer))

    def rewrite(stmt: Any, dev: dict[str, Any]) -> list[Any]:
        d = decision_of(stmt)
        if d.memplan is d.tvm:
            return [stmt]
        if d.memplan is Home.STACK:
            annotations = dict(stmt.annotations or {})
            # LowerTVMBuiltin reads this as `Downcast<Bool>`: a plain Python 1 becomes an
            # FFI integer, which that downcast refuses (a TypeError inside TVM).
            annotations[DISABLE_LOWER_BUILTIN] = _true()
            return [_alloc_buffer(stmt.buffer, annotations)]
        alloc, check, free = workspace_statements(stmt.buffer, dev, d.allocation.device_type)
        pending[-1].append(free)
        return [alloc, check]

    def close() -> list[Any]:
        return list(reversed(pending.pop()))

    body = map_scopes(func.body, rewrite, close, lambda: pending.append([]))
    return func.with_body(body), plan


def has_error_path(func: Any) -> bool:
    """Whether `func` can report a failed workspace allocation: the statements
    LowerTVMBuiltin emits end in `tvm_throw_last_error`, a `return -1`, so only a function
    returning int32 (a packed-API one) has them. A private helper a kernel calls returns
    nothing: a workspace buffer there is IR LLVM refuses ("returns non-void in Function of
    void return type"), and TVM's own pipeline refuses a large buffer in one too ("Unknown
    device id")."""
    return func.ret_type is not None and str(func.ret_type) == "int32"


def _true() -> Any:
    from tvm import tirx

    return tirx.IntImm("bool", 1)


def _alloc_buffer(buffer: Any, annotations: dict[str, Any]) -> Any:
    from tvm import tirx

    return tirx.AllocBuffer(buffer, annotations=annotations)


def workspace_statements(buffer: Any, dev: dict[str, Any], device_type: int) -> tuple:
    """What LowerTVMBuiltin emits for a workspace buffer: the allocation bound to the
    buffer, the null check, and the checked free."""
    from tvm import tirx

    i32 = "int32"
    dev_type = tirx.Cast(i32, dev.get("device_type", tirx.IntImm(i32, device_type)))
    dev_id = tirx.Cast(i32, dev.get("device_id", tirx.IntImm(i32, 0)))
    dtype = buffer.dtype
    nbytes = tirx.IntImm("uint64", (dtype.bits * dtype.lanes + 7) // 8)
    for extent in buffer.shape:
        nbytes = nbytes * tirx.Cast("uint64", extent)
    call = tirx.call_intrin
    data = call("handle", "tirx.TVMBackendAllocWorkspace", dev_type, dev_id, nbytes,
                tirx.IntImm(i32, int(dtype.type_code)), tirx.IntImm(i32, int(dtype.bits)))
    throw = tirx.Evaluate(call(i32, "tirx.tvm_throw_last_error"))
    alloc = tirx.DeclBuffer(buffer, data=data)
    check = tirx.IfThenElse(tirx.isnullptr(buffer.data), throw, None)
    freed = call(i32, "tirx.TVMBackendFreeWorkspace", dev_type, dev_id, buffer.data)
    free = tirx.IfThenElse(tirx.NE(freed, tirx.IntImm(i32, 0)), throw, None)
    return alloc, check, free


def register_pipeline(policy: FramePolicy, plans: list[FramePlan] | None = None,
                      base: str = "s_tir",
                      per_function: dict[str, FramePolicy] | None = None) -> str:
    """Register TVM's `base` pipeline with `StackPolicy` before `LowerTVMBuiltin`; the name
    to pass as `tvm.compile(..., tir_pipeline=NAME)` or `tvm.tirx.build(..., pipeline=NAME)`."""
    import tvm
    from tvm.tirx.compilation_pipeline import get_tir_pipeline, register_tir_pipeline

    name = f"{PIPELINE_PREFIX}:{policy.budget}:{policy.max_allocation}:{policy.alignment}"
    if plans is not None or per_function:
        name += f":{id(plans)}:{id(per_function)}"

    def factory() -> tuple:
        pipeline, finalize_host, finalize_device = get_tir_pipeline(base)

        def host_passes() -> Any:
            return tvm.ir.transform.Sequential([
                stack_policy_pass(policy, plans, per_function), finalize_host()])

        return pipeline, host_passes, finalize_device

    register_tir_pipeline(name, factory)
    return name


def pipeline_for(target: Target, reserve: int = 0) -> str:
    """The registered name of memplan's TIR pipeline for `target`:
    `tvm.compile(mod, tvm_target, tir_pipeline=pipeline_for(load_target("cortex-m4")))`.
    `reserve`: bytes of each frame kept for what is not a buffer (`build` finds it)."""
    return register_pipeline(FramePolicy.of(target, reserve))


@dataclass(frozen=True)
class BuiltFrame:
    function: str
    frame: int | None  # bytes, read from the machine code; None: not constant, or unmeasured
    plan: FramePlan
    inlined: bool = False  # no code of its own: inlined into its callers (frame None)


@dataclass(frozen=True)
class StackBuild:
    module: Any  # the runtime module tvm.tirx.build returned
    frames: tuple[BuiltFrame, ...]
    max_frame: int | None
    reserve: int  # the largest of `reserves` (what check's note passes to tir_pipeline)
    code: str  # the assembly (LLVM targets) or the C (C targets) the frames were read from
    measured_by: str  # where the frames come from (the assembly, or the C compiler's command)
    unmeasured: str | None = None  # why the frames could not be read, when they could not
    reserves: tuple[tuple[str, int], ...] = ()  # per function: bytes kept for non-buffers

    @property
    def within_budget(self) -> bool:
        """Every frame read and within `max_frame` (False when a frame is unknown); a
        function inlined into its callers is in their frames."""
        return self.max_frame is None or all(
            f.inlined or f.frame is not None and f.frame <= self.max_frame
            for f in self.frames)


def build_rounds(mod: Any, target: Target, *, reserve: int = 0,
                 tvm_target: Any = None, name: str = "<kernels>") -> StackBuild:
    """`build`'s rounds: the last build, within the budget or not."""
    import tvm

    from .built_frames import read_frames

    rounds = MAX_ROUNDS if tvm_target is None else 1
    tvm_target = tvm.target.Target(tvm_target or tvm_target_of(target))
    max_frame = target.stack.max_frame if target.stack else None
    reserves: dict[str, int] = {}
    for _ in range(rounds):
        plans: list[FramePlan] = []
        policy = FramePolicy.of(target, reserve)
        own = {f: FramePolicy.of(target, r) for f, r in reserves.items()}
        pipeline = register_pipeline(policy, plans, per_function=own)
        lib = tvm.tirx.build(mod, target=tvm_target, pipeline=pipeline)
        read = read_frames(lib, tvm_target, target, [p.function for p in plans], name)
        frames = tuple(BuiltFrame(p.function, read.frames[p.function], p,
                                  p.function in read.inlined) for p in plans)
        used = {f.function: reserves.get(f.function, reserve) for f in frames}
        result = StackBuild(lib, frames, max_frame, max(used.values(), default=reserve),
                            read.code, read.measured_by, read.unmeasured,
                            tuple(sorted(used.items())))
        over = [f for f in frames
                if max_frame is not None and f.frame is not None and f.frame > max_frame]
        if not over or read.unmeasured:
            return result
        for f in over:
            # What the frame holds besides the buffers kept: registers, spills, alignment,
            # and the buffers of functions inlined into it. At least the excess more.
            besides = f.frame - f.plan.memplan_frame
            reserves[f.function] = max(used[f.function] + f.frame - max_frame, besides)
            if f.plan.memplan_frame == 0:
                for g in frames:
                    if g.inlined:
                        reserves[g.function] = max_frame
    return result


def build(mod: Any, target: Target, *, reserve: int = 0, tvm_target: Any = None) -> StackBuild:
    """Build `mod` for `target` through memplan's pipeline, and read every frame back from
    the machine code (`built_frames`).

    `tvm_target` builds the code for another machine under `target`'s policy and
    `reserve`, in one round (to run it here: `run.compare_with_tvm`). Where the frames
    cannot be read (a C target whose compiler is not installed) the build is returned
    after one round, `unmeasured` saying why.

    Raises `BudgetError` when no reserve brings each frame within `max_frame` (the
    buffers pinned to the stack, or the rest of the frame, are too big on their own).
    """
    result = build_rounds(mod, target, reserve=reserve, tvm_target=tvm_target)
    over = [f for f in result.frames if result.max_frame is not None and f.frame is not None
            and f.frame > result.max_frame]
    if not over or tvm_target is not None:
        return result
    worst = max(over, key=lambda f: f.frame or 0)
    raise BudgetError(f"@{worst.function}: frame of {worst.frame} bytes after {MAX_ROUNDS} "
                      f"rounds, over {target.name}'s {result.max_frame}-byte max_frame")
