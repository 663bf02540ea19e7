"""Typed access to shapes, element sizes and memory spaces.

An element type memplan cannot size is an explicit unknown (None): callers say
so ("element type X has no known size"), never guess a width.
"""

from __future__ import annotations

import math
import re

from iree.compiler import ir

DYNAMIC = ir.ShapedType.get_dynamic_size()
DYNAMIC_STRIDE = ir.ShapedType.get_dynamic_stride_or_offset()


def int_width(type_: ir.Type) -> int | None:
    """Bit width of an integer or index type (index is 64-bit on our targets)."""
    if isinstance(type_, ir.IndexType):
        return 64
    if isinstance(type_, ir.IntegerType):
        return ir.IntegerType(type_).width
    return None


def element_bytes(type_: ir.Type) -> int | None:
    """Storage bytes of one element (i1 takes a byte, as in MLIR's LLVM lowering); None when
    the type has no size memplan knows."""
    if isinstance(type_, ir.IndexType):
        return 8
    if isinstance(type_, ir.IntegerType):
        return (ir.IntegerType(type_).width + 7) // 8
    if isinstance(type_, ir.FloatType):
        return (ir.FloatType(type_).width + 7) // 8
    if isinstance(type_, ir.ComplexType):
        inner = element_bytes(ir.ComplexType(type_).element_type)
        return None if inner is None else 2 * inner
    if isinstance(type_, ir.VectorType):
        vector = ir.VectorType(type_)
        inner = element_bytes(vector.element_type)
        return None if inner is None else inner * math.prod(vector.shape)
    match = _LLVM_ARRAY.fullmatch(str(type_))
    if match:  # `!llvm.array<4 x f32>`, as llvm.alloca holds after the LLVM conversion
        inner = element_bytes(ir.Type.parse(match.group(2), context=type_.context))
        return None if inner is None else int(match.group(1)) * inner
    return None


_LLVM_ARRAY = re.compile(r"!llvm\.array<(\d+) x (.+)>")
# LLVM address spaces the GPU targets agree on (AMDGPU and NVPTX): 3 shared, 5 private.
_LLVM_ADDRESS_SPACES = {"3": "workgroup", "5": "private"}


def llvm_pointer_space(type_: ir.Type) -> str | None:
    """`!llvm.ptr<5>` → "private", `!llvm.ptr<3>` → "workgroup"; None for the default."""
    match = re.fullmatch(r"!llvm\.ptr<(\d+)>", str(type_))
    if match is None or match.group(1) == "0":
        return None
    return _LLVM_ADDRESS_SPACES.get(match.group(1), f"addrspace({match.group(1)})")


def shaped_element_bytes(type_: ir.Type) -> int | None:
    """`element_bytes` of a shaped type's element type."""
    return element_bytes(ir.ShapedType(type_).element_type)


def shape_of(type_: ir.Type) -> tuple[int | None, ...]:
    """Static dims as ints, dynamic dims as None."""
    shaped = ir.ShapedType(type_)
    return tuple(None if d == DYNAMIC else d for d in shaped.shape)


def is_ranked_tensor(value: ir.Value) -> bool:
    return isinstance(value.type, ir.RankedTensorType)


def memory_space_name(type_: ir.Type) -> str | None:
    """`#gpu.address_space<workgroup>` → "workgroup"; an integer space as the LLVM address
    space the GPU targets give it (`memref<4xf32, 3>` → "workgroup", 5 → "private", as
    IREE's own GPU tests write shared memory); other spaces as printed; None = default."""
    if not isinstance(type_, ir.MemRefType):
        return None
    space = ir.MemRefType(type_).memory_space
    if space is None:
        return None
    text = str(space)
    match = re.fullmatch(r"#gpu\.address_space<(\w+)>", text)
    if match:
        return match.group(1)
    number = re.fullmatch(r"(\d+)(?: : i\d+)?", text)
    if number:
        return _LLVM_ADDRESS_SPACES.get(number.group(1), text)
    return text


def has_identity_layout(type_: ir.Type) -> bool:
    memref_type = ir.MemRefType(type_)
    identity = ir.AffineMap.get_identity(memref_type.rank, context=memref_type.context)
    return memref_type.affine_map == identity


# Memory a kernel's launch reserves: GPU workgroup (shared) memory and IREE's CPU
# workgroup-local memory. Its size is fixed by then, so a dynamic size needs a bound.
WORKGROUP_SPACES = frozenset({"workgroup", "#gpu.address_space<workgroup>"})
WORKGROUP_LOCAL_SPACE = "#iree_codegen.workgroup_local"


def reserved_per_launch(space: str | None) -> bool:
    """Memory whose size is fixed when the kernel is launched (GPU shared memory, CPU
    workgroup-local memory): a dynamic size must be padded to a bound before then."""
    return space in WORKGROUP_SPACES or space == WORKGROUP_LOCAL_SPACE

