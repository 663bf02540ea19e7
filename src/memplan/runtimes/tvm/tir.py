"""The allocations of each PrimFunc as they reach TVM's `LowerTVMBuiltin`.

That pass is where TVM 0.27 decides stack or workspace, so that is where memplan
looks: the module is lowered by TVM's own default TIR pipeline for the target
(the one `tvm.tirx.build` runs), and the host functions' flat `AllocBuffer`
statements are read with the scope that will hold their free. Buffers
`StorageRewrite` merged are one allocation here, as in the built code.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

# LowerTVMBuiltin's own annotation (transform::kDisableLowerTVMBuiltin): leave
# this allocation alone, which on a CPU keeps it on the stack whatever its size.
DISABLE_LOWER_BUILTIN = "disable_lower_builtin"
KDL_CPU = 1


@dataclass(frozen=True)
class TirAllocation:
    function: str
    name: str
    dtype: str
    shape: tuple[int, ...] | None  # None: a dimension is not a constant
    size: int | None  # bytes; None when the shape is not constant
    scope: str  # storage scope ("global" is what the stack rule looks at)
    device_type: int  # DLPack device type of the code allocating it (1: CPU)
    pinned: bool  # already annotated disable_lower_builtin (stays where it is)
    scalable: bool  # a scalable vector type: LowerTVMBuiltin leaves it alone


def lower_to_builtin(mod: Any, tvm_target: Any) -> Any:
    """The host module `tvm.tirx.build` would hand to `LowerTVMBuiltin` for `tvm_target`."""
    import tvm
    from tvm.tirx.build import split_host_device_mods

    target = tvm.target.Target(tvm_target)
    target = target.with_host(target.host or target)
    prim = tvm.IRModule({gv: f for gv, f in mod.functions.items()
                         if isinstance(f, tvm.tirx.PrimFunc)})
    prim = tvm.tirx.transform.BindTarget(target)(prim)
    pipeline, _, _ = tvm.tirx.get_default_tir_pipeline(target)
    host, _ = split_host_device_mods(pipeline(prim))
    return host


def function_name(gv: Any, func: Any) -> str:  # noqa: ARG001 - one signature for callers
    """The PrimFunc's name in the module (the packed-API symbol is `__tvm_ffi_<name>`)."""
    return gv.name_hint


def allocations(host: Any) -> dict[str, list[TirAllocation]]:
    """Each host PrimFunc's allocations in program order, by function name."""
    out: dict[str, list[TirAllocation]] = {}
    for gv, func in sorted(host.functions.items(), key=lambda kv: kv[0].name_hint):
        name = function_name(gv, func)
        device = device_type_of(func)
        out[name] = [allocation_record(name, s, dev)
                     for s, dev in walk_allocations(func.body, device)]
    return out


def device_type_of(func: Any) -> int:
    target = func.attrs.get("target", None) if func.attrs else None
    return int(target.get_target_device_type()) if target is not None else KDL_CPU


def allocation_record(function: str, stmt: Any, device_type: int) -> TirAllocation:
    buf = stmt.buffer
    dims = [int(d) if hasattr(d, "value") else None for d in buf.shape]
    dtype = buf.dtype
    scalable = bool(getattr(dtype, "is_scalable_vector", False))
    elem = (dtype.bits * dtype.lanes + 7) // 8 if not scalable else None
    shape = tuple(dims) if all(d is not None for d in dims) else None
    size = None
    if shape is not None and elem is not None:
        size = elem
        for d in shape:
            size *= d
    annotations = stmt.annotations or {}
    pinned = DISABLE_LOWER_BUILTIN in annotations and bool(int(annotations[DISABLE_LOWER_BUILTIN]))
    return TirAllocation(function, str(buf.name), str(dtype), shape, size, str(buf.scope()),
                         device_type, pinned, scalable)


def walk_allocations(stmt: Any, device_type: int) -> Iterator[tuple[Any, int]]:
    """Every `AllocBuffer` under `stmt` in program order, with the device type in force
    (the `device_type` attribute MakePackedAPI sets wins over the target's)."""
    from tvm import tirx

    if isinstance(stmt, tirx.AllocBuffer):
        yield stmt, device_type
        return
    if isinstance(stmt, tirx.AttrStmt) and stmt.attr_key == "device_type" \
            and hasattr(stmt.value, "value"):
        device_type = int(stmt.value.value)
    for child in children(stmt):
        yield from walk_allocations(child, device_type)


def children(stmt: Any) -> list[Any]:
    """The statements directly under `stmt` (the nodes that hold statements in 0.27)."""
    from tvm import tirx

    if isinstance(stmt, tirx.SeqStmt):
        return list(stmt.seq)
    if isinstance(stmt, tirx.IfThenElse):
        return [stmt.then_case] + ([stmt.else_case] if stmt.else_case is not None else [])
    if isinstance(stmt, tirx.For | tirx.While | tirx.AttrStmt):
        return [stmt.body]
    return []


def map_scopes(stmt: Any, rewrite: Callable[[Any, dict[str, Any]], list[Any]],
               close: Callable[[], list[Any]], open_: Callable[[], None]) -> Any:
    """Rebuild `stmt`, replacing each `AllocBuffer` by `rewrite(alloc, device)` (`device`:
    the `device_type` / `device_id` expressions in force, as MakePackedAPI set them); every scope
    LowerTVMBuiltin frees in (a loop body, an if branch, an attribute's body) is opened
    with `open_()` and gets `close()`'s statements appended at its end."""
    from tvm import tirx

    device: dict[str, Any] = {}

    def scoped(body: Any) -> Any:
        open_()
        new = visit(body)
        tail = close()
        return tirx.SeqStmt([new, *tail]) if tail else new

    def visit(s: Any) -> Any:
        if isinstance(s, tirx.AllocBuffer):
            out = rewrite(s, dict(device))
            return out[0] if len(out) == 1 else tirx.SeqStmt(out)
        if isinstance(s, tirx.SeqStmt):
            return tirx.SeqStmt([visit(c) for c in s.seq])
        if isinstance(s, tirx.For):
            return tirx.For(s.loop_var, s.min, s.extent, s.kind, scoped(s.body),
                            s.thread_binding, s.annotations, s.step, s.span)
        if isinstance(s, tirx.While):
            return tirx.While(s.condition, scoped(s.body), s.span)
        if isinstance(s, tirx.IfThenElse):
            else_case = scoped(s.else_case) if s.else_case is not None else None
            return tirx.IfThenElse(s.condition, scoped(s.then_case), else_case, s.span)
        if isinstance(s, tirx.AttrStmt):
            saved = dict(device)
            if s.attr_key in ("device_type", "device_id"):
                device[s.attr_key] = s.value
            body = scoped(s.body)
            device.clear()
            device.update(saved)
            return tirx.AttrStmt(s.node, s.attr_key, s.value, body, s.span)
        return s

    return scoped(stmt)
