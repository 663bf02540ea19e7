"""GPU workgroup (shared) memory per kernel against the target's limit.

Matches: every census record whose memory space is GPU workgroup memory
(`#gpu.address_space<workgroup>` allocations and `gpu.func` workgroup
attributions); a kernel is any function holding one (a `gpu.func`, or a
`func.func` as IREE writes dispatches). Private and global allocations are
not this check's business.

Decides: the kernel's need is the peak of its simultaneously live workgroup
allocations, packed at offsets with lifetimes (first to last use, through views)
by the planner (so two tiles that are never live together may share bytes), against
`limit_per_kernel`. The bytes are shared only when something packs them: IREE's
`gpu-reuse-shared-memory-allocs` does, behind `--iree-llvmgpu-enable-shared-memory-reuse`
(off by default); its own check otherwise counts every allocation.

Refuses: a kernel whose packed peak is over the limit (one error naming the
total and the limit, with a note per contributing allocation, largest first);
a workgroup allocation of dynamic size without a proven bound; any workgroup
allocation on a target that has no workgroup memory. Warns (`workgroup-needs-reuse`)
when the kernel fits only packed: its allocations summed are over the limit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from iree.compiler import ir

from ..analysis.census import Allocation
from ..diagnostic import Diagnostic, Note
from ..ir import MlirChunk, source_loc
from ..ir.types import WORKGROUP_LOCAL_SPACE, memory_space_name
from ..ir.walk import functions, parent_op, symbol_name, walk
from ..targets import Target
from ..targets.applied import FunctionTargets
from .budgets import Budget, is_workgroup, kernel_budgets


# IREE's CPU workgroup-local memory (`memref.alloc() : memref<..., #iree_codegen.workgroup_local>`):
# one buffer per dispatch that the HAL hands each workgroup, laid out by IREE's
# `iree-llvmcpu-assign-workgroup-local-memory`.
def workgroup_diagnostics(census: Sequence[Allocation], target: Target,
                          kernels: Sequence[Budget] | None = None,
                          targets: FunctionTargets | None = None) -> list[Diagnostic]:
    """Errors for every kernel over budget and every unbounded workgroup allocation; the
    limit is the target's, or what `targets` says for the kernel (the IR, an option)."""
    workgroup = [a for a in census if is_workgroup(a)]
    has_memory = [(targets.of(a.chunk, a.function).target.workgroup if targets is not None
                   else target.workgroup) is not None for a in workgroup]
    diags = [Diagnostic("error", a.location, f"workgroup allocation in @{a.function}, but "
                        f"target '{target.name}' has no workgroup memory",
                        code="workgroup-limit")
             for a, has in zip(workgroup, has_memory, strict=True) if not has]
    diags += [_unbounded(a) for a, has in zip(workgroup, has_memory, strict=True)
              if has and a.bytes_or_bound is None]
    if kernels is None:
        kernels = kernel_budgets(census, target, targets)
    diags += [_over_limit(k, target) for k in kernels if not k.fits]
    diags += [_needs_reuse(k, target) for k in kernels
              if k.fits and k.limit is not None and k.sum_bytes > k.limit]
    return diags


def _needs_reuse(kernel: Budget, target: Target) -> Diagnostic:
    first = min(kernel.allocations, key=lambda a: a.lifetime)
    return Diagnostic(
        "warning", first.location,
        f"kernel @{kernel.function} fits in {kernel.peak} bytes of workgroup memory only when "
        f"allocations that are never live together share bytes: summed they need "
        f"{kernel.sum_bytes}, over the {kernel.limit}-byte limit of "
        f"{kernel.limit_source or f'target {target.name!r}'}",
        [Note(first.location, "IREE shares them with --iree-llvmgpu-enable-shared-memory-reuse "
              "(gpu-reuse-shared-memory-allocs); without it its resource check counts the sum")],
        code="workgroup-needs-reuse")


def _unbounded(a: Allocation) -> Diagnostic:
    return Diagnostic(
        "error", a.location,
        f"workgroup allocation {_type(a)} in @{a.function} has a dynamic size with no proven "
        f"bound: workgroup memory is reserved per kernel at launch, so its size must be static "
        f"or bounded", [Note(a.location, a.unbounded_reason or "unknown size")],
        code="workgroup-unbounded")


def _over_limit(kernel: Budget, target: Target) -> Diagnostic:
    ordered = sorted(kernel.allocations, key=lambda a: -(a.bytes_or_bound or 0))
    notes = [Note(a.location, f"{_type(a)} contributes {a.bytes_or_bound} bytes, live "
                  f"[{a.lifetime[0]}, {a.lifetime[1]})") for a in ordered]
    # The lower bound (bytes live at one moment) says whether any packing could fit.
    message = (f"kernel @{kernel.function} needs {kernel.peak} bytes of workgroup memory "
               f"({len(ordered)} allocation(s) packed, {kernel.packed.lower_bound} bytes live "
               f"at once), "
               f"over the {kernel.limit}-byte limit of "
               f"{kernel.limit_source or f'target {target.name!r}'} "
               f"({kernel.peak / kernel.limit:.1f}x)")
    return Diagnostic("error", ordered[0].location, message, notes, code="workgroup-limit")


def _type(a: Allocation) -> str:
    dims = "".join(f"{'?' if d is None else d}x" for d in a.shape)
    return f"memref<{dims}{a.element_type}>"


# --- CPU workgroup-local memory ------------------------------------------------------------

# The HAL declares a dispatch's workgroup-local memory as a uint16 count of 4096-byte pages
# (runtime/src/iree/hal/local/executable_library.h, `local_memory_pages`).
HAL_LOCAL_PAGE = 4096
HAL_LOCAL_LIMIT = 0xFFFF * HAL_LOCAL_PAGE
# IREE aligns every workgroup-local buffer to at least 16 bytes
# (LLVMCPUAssignWorkgroupLocalMemory.cpp, kMinWorkgroupLocalAlignment).
LOCAL_MIN_ALIGNMENT = 16


@dataclass(frozen=True)
class LocalLayout:
    """One dispatch's workgroup-local buffer as IREE lays it out: every allocation in op
    order at the next offset aligned for it, none sharing bytes (IREE does not reuse them)."""

    chunk: int
    function: str
    placed: tuple[tuple[Allocation, int, int], ...]  # (allocation, offset, bytes)

    @property
    def size(self) -> int:
        return max((offset + size for _, offset, size in self.placed), default=0)

    @property
    def pages(self) -> int:
        return -(-self.size // HAL_LOCAL_PAGE)


def is_workgroup_local(a: Allocation) -> bool:
    return a.memory_space == WORKGROUP_LOCAL_SPACE


def workgroup_local_layouts(census: Sequence[Allocation]) -> list[LocalLayout]:
    """Each dispatch's layout, over the allocations IREE can place (static `memref.alloc`s)."""
    groups: dict[tuple[int, str], list[tuple[Allocation, int, int]]] = {}
    ends: dict[tuple[int, str], int] = {}
    for a in census:
        if not is_workgroup_local(a) or a.op_name != "memref.alloc":
            continue
        size = _footprint_bytes(a)
        if size is None:
            continue
        key = (a.chunk, a.function)
        align = max(LOCAL_MIN_ALIGNMENT, a.alignment or 1, _element_alignment(a))
        offset = -(-ends.get(key, 0) // align) * align
        groups.setdefault(key, []).append((a, offset, size))
        ends[key] = offset + size
    return [LocalLayout(chunk, function, tuple(placed))
            for (chunk, function), placed in groups.items()]


def _element_alignment(a: Allocation) -> int:
    """The element's ABI alignment as LLVM's data layout gives it: its size rounded up to a
    power of two (a vector element's too)."""
    size = max(a.element_bytes, 1)
    return 1 << (size - 1).bit_length()


def _footprint_bytes(a: Allocation) -> int | None:
    """Bytes from the buffer's start to one past its last element: its size for the
    identity layout; for a strided one, the furthest element its strides reach (None when a
    stride or the offset is dynamic, or the shape is)."""
    if a.exact_bytes is None or a.op is None:
        return None
    type_ = ir.MemRefType(a.op.results[0].type)
    strides, offset = type_.get_strides_and_offset()
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    if offset == dynamic or dynamic in strides:
        return None
    if 0 in type_.shape:
        return 0
    last = offset + sum((d - 1) * s for d, s in zip(type_.shape, strides, strict=True))
    return (last + 1) * a.element_bytes


def workgroup_local_diagnostics(census: Sequence[Allocation]) -> list[Diagnostic]:
    """What IREE's assign-workgroup-local-memory refuses, said before it is run, and a
    dispatch whose layout is over what the HAL can declare."""
    diags = []
    for a in census:
        if not is_workgroup_local(a):
            continue
        where = f"workgroup-local allocation {_type(a)} in @{a.function}"
        if a.op_name != "memref.alloc":
            diags.append(Diagnostic(
                "error", a.location, f"{where} is a {a.op_name}: IREE places workgroup-local "
                "memory only for memref.alloc results", code="workgroup-local"))
        elif a.exact_bytes is None:
            note = f"`memplan opt` pads it to its bound ({a.bound_bytes} bytes)" \
                if a.bound_bytes is not None else (a.unbounded_reason or "unknown size")
            diags.append(Diagnostic(
                "error", a.location, f"{where} has a dynamic shape: IREE lays out "
                "workgroup-local memory per dispatch before launch and needs a static one",
                [Note(a.location, note)], code="workgroup-local"))
        elif _footprint_bytes(a) is None:
            diags.append(Diagnostic(
                "error", a.location, f"{where} has a dynamic layout: IREE needs static "
                "strides and offset to size it", code="workgroup-local"))
        elif a.outside_entry_block or a.loop_depth:
            diags.append(Diagnostic(
                "error", a.location, f"{where} is not in the entry block of @{a.function}: "
                "IREE lays out only those (`memplan opt` hoists it there)",
                code="workgroup-local"))
    for layout in workgroup_local_layouts(census):
        if layout.size > HAL_LOCAL_LIMIT:
            first = layout.placed[0][0]
            diags.append(Diagnostic(
                "error", first.location, f"dispatch @{layout.function} needs {layout.size} "
                f"bytes of workgroup-local memory ({layout.pages} pages of {HAL_LOCAL_PAGE}), "
                f"over the {HAL_LOCAL_LIMIT} bytes (65535 pages) the HAL can declare",
                code="workgroup-local"))
    return diags


def workgroup_local_dispatch_diagnostics(chunks: Sequence[MlirChunk],
                                         census: Sequence[Allocation]) -> list[Diagnostic]:
    """IREE's rules on the dispatch around workgroup-local memory, in its executable form
    (a `hal.executable.variant`, where iree-llvmcpu-assign-workgroup-local-memory runs): the
    dispatch's size goes into its `iree_codegen.dispatch_config`, so a function allocating
    it needs one that states no size yet; and a function argument cannot be such memory
    (only `memref.alloc` results are laid out)."""
    diags = []
    for chunk in chunks:
        configs = {ir.FlatSymbolRefAttr(op.attributes["function_ref"]).value: op
                   for op in walk(chunk.module.operation)
                   if op.name == _DISPATCH_CONFIG and "function_ref" in op.attributes}
        for func in functions(chunk.module):
            name = symbol_name(func)
            kind = ir.TypeAttr(func.attributes["function_type"]).value \
                if "function_type" in func.attributes else None
            if not isinstance(kind, ir.FunctionType):
                continue  # an llvm.func: no memref arguments
            for i, type_ in enumerate(ir.FunctionType(kind).inputs):
                if memory_space_name(type_) == WORKGROUP_LOCAL_SPACE:
                    diags.append(Diagnostic(
                        "error", source_loc(func, chunk.path), f"@{name} takes workgroup-local "
                        f"memory as argument #{i} ({type_}): IREE places workgroup-local memory "
                        "only for memref.alloc results", code="workgroup-local"))
        allocs: dict[str, list[Allocation]] = {}
        for a in census:
            if a.chunk == chunk.index and is_workgroup_local(a) and a.op_name == "memref.alloc":
                allocs.setdefault(a.function, []).append(a)
        for name, found in allocs.items():
            func = next((f for f in functions(chunk.module) if symbol_name(f) == name), None)
            if func is None or not _in_executable(func):
                continue
            config = configs.get(name)
            if config is None:
                diags += [Diagnostic(
                    "error", a.location, f"workgroup-local allocation {_type(a)} in @{name}, "
                    f"which has no iree_codegen.dispatch_config: IREE records a dispatch's "
                    "workgroup-local size there, so it cannot lay this one out",
                    code="workgroup-local") for a in found]
            elif "workgroup_local_memory" in config.attributes:
                stated = ir.IntegerAttr(config.attributes["workgroup_local_memory"]).value
                diags.append(Diagnostic(
                    "error", source_loc(config, chunk.path), f"the dispatch_config of @{name} "
                    f"already states {stated} bytes of workgroup-local memory: IREE sets it "
                    f"from @{name}'s allocations and refuses a dispatch that has one",
                    [Note(found[0].location, "a workgroup-local allocation of @" + name)],
                    code="workgroup-local"))
    return diags


_DISPATCH_CONFIG = "iree_codegen.dispatch_config"


def _in_executable(func: ir.Operation) -> bool:
    parent = parent_op(func)
    while parent is not None:
        if parent.name == "hal.executable.variant":
            return True
        parent = parent_op(parent)
    return False


def format_workgroup_local(layouts: Sequence[LocalLayout]) -> str:
    """One line per dispatch: the size IREE's assign-workgroup-local-memory gives it (what it
    writes as the dispatch_config's `workgroup_local_memory`)."""
    return "\n".join(
        f"workgroup-local memory @{layout.function}"
        + (f" (// ----- chunk {layout.chunk + 1})" if layout.chunk else "")
        + f": {layout.size} bytes as IREE lays it out "
        f"({len(layout.placed)} allocation(s), each at the next offset aligned for it, none "
        f"sharing; the HAL declares {layout.pages} page(s) of {HAL_LOCAL_PAGE})"
        for layout in layouts)


def workgroup_local_json(layout: LocalLayout) -> dict[str, object]:
    return {"function": layout.function, "chunk": layout.chunk, "bytes": layout.size,
            "pages": layout.pages, "allocations": len(layout.placed),
            "offsets": [offset for _, offset, _ in layout.placed]}
