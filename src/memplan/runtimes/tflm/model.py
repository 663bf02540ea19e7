"""TFLite front end: a `.tflite` flatbuffer as TensorFlow Lite Micro's arena sees it.

TFLM plans one arena per model (`MicroAllocator::CommitStaticMemoryPlan`). Its facts,
reproduced here from `micro_allocation_info.cc` and `micro_allocator.cc`:
- a tensor is planned when it has no constant data, is not a variable and has bytes;
  variables and constants live elsewhere (the persistent tail, the flatbuffer);
- sizes are element count times element size, rounded up to 16 bytes
  (`MicroArenaBufferAlignment()`), and the head of the arena is 16-aligned;
- lifetimes are "allocation scopes": subgraph inputs are created at the scope the
  subgraph is entered, each operator opens a new scope, a control-flow operator (IF,
  WHILE, CALL_ONCE) enters its subgraphs' scopes before its own inputs' last use, and
  subgraph outputs live to the subgraph's last scope; a lifetime is inclusive;
- the offline plan (`OfflineMemoryAllocation` metadata) is one int32 per tensor of every
  subgraph, in subgraph then tensor order, after a three-word header
  `[version, subgraphs, tensors]`; -1 leaves a tensor to TFLM's own (greedy) planner.

In place: TFLM's RESHAPE kernel copies nothing when its input and output have the same
address ("Do nothing for in-place reshape", `kernels/reshape.cc`), but TFLM's own planner
never gives them one (their lifetimes meet at the reshape). An offline plan can: an
output of RESHAPE shares its input's bytes when the input's last use is that reshape.
SQUEEZE and EXPAND_DIMS always `memcpy`, so they are not shared (a copy onto itself is
undefined in C).

Scratch: some kernels ask for scratch buffers in the head when they are prepared
(`RequestScratchBufferInArena`), live for their operator's scope only. TFLM plans them
itself, around an offline plan; a plan that leaves them no room pushes them above its
peak. `SCRATCH` lists what TFLM's reference kernels ask for (read from their Prepare),
so the plan can reserve it; an optimized kernel (CMSIS-NN, Xtensa) asks for more.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...buffers import Part, parts_from_reads
from ...errors import InputError
from ...extras import Extra, MissingExtra
from .scratch import TYPE_BYTES, KernelSet, OpView, ScratchModelError, TensorInfo, scratch_requests

try:  # TFLM's own schema module (object API), shipped by the tflite-micro package
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema
except ImportError:  # pragma: no cover - reported when a .tflite is actually read
    schema = None

ALIGNMENT = 16  # MicroArenaBufferAlignment()
METADATA_NAME = "OfflineMemoryAllocation"
ONLINE = -1  # kOnlinePlannedBuffer: TFLM plans the tensor itself
FILE_IDENTIFIER = b"TFL3"
# Limits on what is read (docs/reliability.md). A flatbuffer addresses at most 2 GiB; TFLM
# counts tensor and arena bytes, and the offline plan its offsets, in 32-bit ints.
MAX_FILE_BYTES = 2**31 - 1
MAX_TENSOR_BYTES = 2**31 - 1
MAX_TENSORS = 1_000_000  # over all subgraphs, counted before the object tree is built
MAX_OPERATORS = 1_000_000
# Operators whose kernel sets its outputs' data pointers in Prepare (var_handle.cc).
KERNEL_OWNED_OUTPUTS = frozenset({"VAR_HANDLE"})


class Role(enum.Enum):
    PLANNED = "planned"  # in the arena's head, at an offset a planner chooses
    CONSTANT = "constant"  # data in the flatbuffer
    VARIABLE = "variable"  # persistent, in the arena's tail
    EMPTY = "empty"  # zero bytes
    UNUSED = "unused"  # never created by any operator TFLM runs: TFLM plans it, if at all
    # Its kernel points it at data of its own in Prepare, before TFLM plans the head, so
    # TFLM never plans it (VAR_HANDLE's output: the resource id in its persistent data).
    KERNEL_OWNED = "kernel-owned"


@dataclass(frozen=True)
class TfliteTensor:
    key: int  # position in the offline plan: tensors of all subgraphs, in order
    subgraph: int
    index: int  # index in its subgraph
    name: str
    dtype: str
    shape: tuple[int, ...]
    nbytes: int
    role: Role
    first: int | None  # first allocation scope it is live in (inclusive)
    last: int | None  # last allocation scope (inclusive)
    scales: int = 0  # quantization scales (more than one: per-channel), for CMSIS-NN's FC

    @property
    def size(self) -> int:
        """Bytes TFLM reserves for it."""
        return _align_up(self.nbytes, ALIGNMENT)


@dataclass(frozen=True)
class TfliteOp:
    subgraph: int
    index: int
    name: str
    scope: int
    inputs: tuple[int, ...]  # tensor keys (omitted optional inputs left out)
    outputs: tuple[int, ...]
    # Input slots as the kernel numbers them (-1: an omitted optional input), and the
    # operator's options: what the scratch sizes of its kernel depend on.
    slots: tuple[int, ...] = field(default=(), compare=False, repr=False)
    options: object = field(default=None, compare=False, repr=False)
    custom: bytes | None = field(default=None, compare=False, repr=False)


@dataclass(frozen=True)
class TfliteModel:
    path: str
    subgraphs: int
    tensors: tuple[TfliteTensor, ...]
    ops: tuple[TfliteOp, ...]
    inputs: tuple[int, ...]  # the model's (subgraph 0) input tensor keys
    outputs: tuple[int, ...]
    shares: dict[int, int]  # output key -> input key of an in-place RESHAPE
    offline_plan: tuple[int, ...] | None  # the plan already in the file, if any
    scratch: tuple[tuple[TfliteOp, int], ...] = ()  # (operator, bytes) in request order
    # input key -> (output key, byte offset) of a zero-copy CONCATENATION (`_joins`)
    joins: dict[int, tuple[int, int]] = field(default_factory=dict)
    # key -> the parts of a tensor read only by slices, released as they are read
    # (`_released`)
    releases: dict[int, tuple[Part, ...]] = field(default_factory=dict)
    # output key -> (input key, byte offset) of a slice that is a view of its input's
    # bytes (`_views`)
    views: dict[int, tuple[int, int]] = field(default_factory=dict)
    # output key in `shares` -> where it starts relative to its input's bytes, when not at
    # them: -d for a windowed operator written d bytes below its input (`window.py`)
    share_offsets: dict[int, int] = field(default_factory=dict)
    # key -> the values of a small constant int32 tensor of subgraph 0 (PAD's paddings)
    small_ints: dict[int, tuple[int, ...]] = field(default_factory=dict)

    def planned(self) -> list[TfliteTensor]:
        return [t for t in self.tensors if t.role is Role.PLANNED]


def load_tflite(path: str | Path) -> TfliteModel:
    return parse_tflite(read_model_bytes(path), str(path))


def read_model_bytes(path: str | Path) -> bytes:
    try:
        size = Path(path).stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError(path, f"{size:,} bytes; a .tflite flatbuffer holds at most "
                             f"{MAX_FILE_BYTES:,}")
        return Path(path).read_bytes()
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror}") from None


def parse_tflite(data: bytes, path: str, kernels: KernelSet = KernelSet.REFERENCE,
                 core: str | None = None) -> TfliteModel:
    """The model as TFLM plans it; `kernels` (and, for CMSIS-NN, the Cortex-M `core`) say
    which of TFLM's kernel implementations the firmware links: their scratch requests."""
    return model_view(_unpack(data, path), path, kernels, core)


def model_view(model, path: str, kernels: KernelSet = KernelSet.REFERENCE,
               core: str | None = None) -> TfliteModel:
    """`parse_tflite` of a model already unpacked (schema's object API `ModelT`)."""
    if not model.subgraphs:
        raise InputError(path, "the model has no subgraphs")
    codes = [_op_name(c) for c in model.operatorCodes or []]
    buffers = model.buffers or []

    first_key = []
    count = 0
    for sg in model.subgraphs:
        first_key.append(count)
        count += len(sg.tensors or [])

    scopes = _Scopes(model, codes, path)
    scopes.mark(0)

    kernel_owned = {key for op in scopes.ops if op.name in KERNEL_OWNED_OUTPUTS
                    for key in op.outputs}
    tensors: list[TfliteTensor] = []
    for s, sg in enumerate(model.subgraphs):
        for i, t in enumerate(sg.tensors or []):
            key = first_key[s] + i
            nbytes = _nbytes(t, path, f"subgraph {s} tensor {i}")
            first, last = scopes.first.get(key), scopes.last.get(key)
            has_data = 0 < t.buffer < len(buffers) and _buffer_len(buffers[t.buffer]) > 0
            if t.isVariable:
                role = Role.VARIABLE
            elif key in kernel_owned:
                role = Role.KERNEL_OWNED
            elif has_data:
                role = Role.CONSTANT
            elif nbytes == 0:
                role = Role.EMPTY
            elif last is None:
                role = Role.UNUSED
            elif first is None:
                # Read but never written (Vela's scratch area): TFLM plans it from scope -1,
                # before anything else is live; scope 0 overlaps the same tensors.
                first, role = 0, Role.PLANNED
            else:
                role = Role.PLANNED
            tensors.append(TfliteTensor(
                key, s, i, _text(t.name) or f"t{key}", _type_name(t.type),
                tuple(int(d) for d in (t.shape if t.shape is not None else ())),
                nbytes, role, first, last, _scale_count(t)))

    ops = tuple(scopes.ops)
    main = model.subgraphs[0]
    inputs = tuple(int(i) for i in (main.inputs if main.inputs is not None else ()))
    outputs = tuple(int(i) for i in (main.outputs if main.outputs is not None else ()))
    shares = _in_place_reshapes(model, tensors, ops, first_key)
    scratch = tuple((op, n) for op in ops
                    for n in _scratch_requests(op, tensors, path, kernels, core)
                    if n > 0)
    joins = _joins(model, tensors, ops, first_key, shares)
    views = _views(model, tensors, ops, {*shares, *shares.values(), *joins})
    return TfliteModel(path, len(model.subgraphs), tuple(tensors), ops, inputs, outputs,
                       shares, _offline_plan(model, count, path), scratch, joins,
                       _released(model, tensors, ops, first_key, {*shares, *shares.values(),
                                                                  *joins, *views}), views,
                       small_ints=_small_ints(model, tensors))


def with_offline_plan(data: bytes, offsets: list[int], path: str) -> bytes:
    """The model with `offsets` as its `OfflineMemoryAllocation` metadata (replacing any
    plan it had); every constant buffer keeps the 16-byte alignment the schema asks."""
    model = _unpack(data, path)
    count = sum(len(sg.tensors or []) for sg in model.subgraphs)
    if len(offsets) != count:
        raise ValueError(f"{len(offsets)} offsets for {count} tensors")
    if max(offsets, default=0) > MAX_TENSOR_BYTES:
        raise InputError(path, f"the plan places a tensor at byte {max(offsets):,}; TFLM's "
                         "OfflineMemoryAllocation holds 32-bit offsets")
    words = np.array([0, len(model.subgraphs), count, *offsets], dtype="<i4")
    blob = np.frombuffer(words.tobytes(), dtype=np.uint8)
    existing = [m for m in model.metadata or [] if _text(m.name) == METADATA_NAME]
    model.buffers = [_AlignedBuffer.of(b) for b in model.buffers or []]
    if existing:
        model.buffers[existing[0].buffer].data = blob
    else:
        buffer = _AlignedBuffer()
        buffer.data = blob
        model.buffers.append(buffer)
        meta = schema.MetadataT()
        meta.name = METADATA_NAME
        meta.buffer = len(model.buffers) - 1
        model.metadata = [*(model.metadata or []), meta]
    return _pack(model, len(data) + 4 * len(words))


def without_offline_plan(data: bytes, path: str) -> bytes:
    """The model as TFLM plans it on its own: any `OfflineMemoryAllocation` removed (its
    buffer emptied). The baseline a new plan is measured against is TFLM's planner, not
    whatever plan the input carried (which may be broken)."""
    model = _unpack(data, path)
    existing = [m for m in model.metadata or [] if _text(m.name) == METADATA_NAME]
    if not existing:
        return data
    model.buffers = [_AlignedBuffer.of(b) for b in model.buffers or []]
    for m in existing:
        if 0 <= m.buffer < len(model.buffers):
            model.buffers[m.buffer].data = None
    model.metadata = [m for m in model.metadata if _text(m.name) != METADATA_NAME]
    return _pack(model, len(data))


def _pack(model, size_hint: int) -> bytes:
    import flatbuffers

    builder = flatbuffers.Builder(size_hint + 1024)
    builder.Finish(model.Pack(builder), file_identifier=FILE_IDENTIFIER)
    return bytes(builder.Output())


# --- reading ------------------------------------------------------------------------

def _unpack(data: bytes, path: str):
    if schema is None:
        raise MissingExtra(Extra.TFLITE, f"{path}: reading .tflite")
    if len(data) < 8:
        raise InputError(path, "not a TFLite flatbuffer (too short)")
    if data[4:8] != FILE_IDENTIFIER:
        raise InputError(path, f"not a TFLite flatbuffer (file identifier {data[4:8]!r}, "
                         f"expected {FILE_IDENTIFIER!r})")
    try:
        _check_counts(schema.Model.GetRootAs(data, 0), path)
        model = schema.ModelT.InitFromPackedBuf(bytearray(data), 0)
    except InputError:
        raise
    except Exception as err:  # a corrupt flatbuffer fails anywhere inside the reader
        raise InputError(path, f"not a readable TFLite flatbuffer ({type(err).__name__})") \
            from None
    if model.subgraphs is None:
        raise InputError(path, "not a readable TFLite flatbuffer (no subgraphs)")
    for b in model.buffers or []:
        if (b.offset or 0) > 1:
            raise InputError(path, "buffers stored outside the flatbuffer (models over 2 GB)"
                             " are not supported")
    return model


def _check_counts(root, path: str) -> None:
    """Tensors and operators counted on the packed buffer, before the object tree (a
    Python object each) is built."""
    tensors = operators = 0
    for s in range(root.SubgraphsLength()):
        sg = root.Subgraphs(s)
        tensors += sg.TensorsLength()
        operators += sg.OperatorsLength()
    for count, limit, what in ((tensors, MAX_TENSORS, "tensors"),
                               (operators, MAX_OPERATORS, "operators")):
        if count > limit:
            raise InputError(path, f"{count:,} {what}; memplan reads at most {limit:,}")


class _Scopes:
    """TFLM's allocation scopes (`AllocationInfoBuilder::MarkAllocationLifetimes`)."""

    def __init__(self, model, codes: list[str], path: str):
        self.model = model
        self.codes = codes
        self.path = path
        self.count = 0
        self.first: dict[int, int] = {}
        self.last: dict[int, int] = {}
        self.ops: list[TfliteOp] = []
        self.base = []
        total = 0
        for sg in model.subgraphs:
            self.base.append(total)
            total += len(sg.tensors or [])
        self.depth = 0

    def _key(self, s: int, i: int) -> int:
        n = len(self.model.subgraphs[s].tensors or [])
        if not 0 <= i < n:
            raise InputError(self.path, f"tensor index {i} out of range (0..{n - 1})",
                             f"subgraph {s}")
        return self.base[s] + i

    def _created(self, key: int) -> None:
        self.first.setdefault(key, self.count)

    def _used(self, key: int) -> None:
        self.last[key] = self.count

    def mark(self, s: int) -> None:
        if not 0 <= s < len(self.model.subgraphs):
            raise InputError(self.path, f"calls subgraph {s}, which does not exist")
        self.depth += 1
        if self.depth > 64:
            raise InputError(self.path, "subgraphs call each other more than 64 deep")
        sg = self.model.subgraphs[s]
        for i in sg.inputs if sg.inputs is not None else ():
            key = self._key(s, int(i))
            self._created(key)
            self._used(key)
        for n, op in enumerate(sg.operators or []):
            self.count += 1
            if not 0 <= op.opcodeIndex < len(self.codes):
                raise InputError(self.path, f"operator {n} has opcode index {op.opcodeIndex}"
                                 f" of {len(self.codes)}", f"subgraph {s}")
            outs = [self._key(s, int(i)) for i in _ints(op.outputs) if i >= 0]
            ins = [self._key(s, int(i)) for i in _ints(op.inputs) if i >= 0]
            for key in outs:
                self._created(key)
            slots = tuple(self._key(s, int(i)) if i >= 0 else -1 for i in _ints(op.inputs))
            custom = bytes(np.asarray(op.customOptions, dtype=np.uint8)) \
                if op.customOptions is not None else None
            self.ops.append(TfliteOp(s, n, self.codes[op.opcodeIndex], self.count,
                                     tuple(ins), tuple(outs), slots, op.builtinOptions,
                                     custom))
            for callee in _called_subgraphs(op, self.codes[op.opcodeIndex]):
                self.count += 1
                self.mark(callee)
            for key in ins:
                self._used(key)
            for key in outs:
                self._used(key)
        for i in sg.outputs if sg.outputs is not None else ():
            key = self._key(s, int(i))
            self._created(key)
            self._used(key)
        self.depth -= 1


def _called_subgraphs(op, name: str) -> list[int]:
    options = op.builtinOptions
    if name == "IF":
        return [options.thenSubgraphIndex, options.elseSubgraphIndex]
    if name == "WHILE":
        return [options.condSubgraphIndex, options.bodySubgraphIndex]
    if name == "CALL_ONCE":
        return [options.initSubgraphIndex]
    return []


def _in_place_reshapes(model, tensors: list[TfliteTensor], ops: tuple[TfliteOp, ...],
                       first_key: list[int]) -> dict[int, int]:
    shares: dict[int, int] = {}
    for op in ops:
        if op.name != "RESHAPE" or not op.inputs or not op.outputs:
            continue
        src, dst = tensors[op.inputs[0]], tensors[op.outputs[0]]
        sg = model.subgraphs[op.subgraph]
        sg_inputs = {first_key[op.subgraph] + int(i) for i in _ints(sg.inputs)}
        sg_outputs = {first_key[op.subgraph] + int(i) for i in _ints(sg.outputs)}
        if (src.role is Role.PLANNED and dst.role is Role.PLANNED
                and src.nbytes == dst.nbytes and src.last == op.scope
                and src.key not in sg_outputs and dst.key not in sg_inputs
                and op.inputs.count(src.key) == 1):
            shares[dst.key] = src.key
    return shares


SLICES = frozenset({"STRIDED_SLICE", "SLICE"})


def _released(model, tensors: list[TfliteTensor], ops: tuple[TfliteOp, ...],
              first_key: list[int], shared: set[int]) -> dict[int, tuple[Part, ...]]:
    """Tensors of subgraph 0 read only by slices of constant bounds (what the patch rewrite
    emits): TFLM's STRIDED_SLICE and SLICE kernels read only the elements inside the
    slice, so each byte is dead once the last slice that reads it has run. Never a
    subgraph output or a tensor sharing bytes with another."""
    sg = model.subgraphs[0]
    outputs = {int(i) for i in _ints(sg.outputs)}
    readers: dict[int, list[TfliteOp]] = {}
    for op in ops:
        for key in op.inputs:
            readers.setdefault(key, []).append(op)
    found: dict[int, tuple[Part, ...]] = {}
    for t in tensors:
        if (t.subgraph != 0 or t.role is not Role.PLANNED or t.index in outputs
                or t.key in shared or t.key not in readers or t.nbytes == 0):
            continue
        reads = []
        for op in readers[t.key]:
            box = _slice_box(model, op, t) if op.name in SLICES and op.subgraph == 0 else None
            if box is None:
                break
            reads += [(op.scope, lo, hi) for lo, hi in _byte_runs(t, box)]
        else:
            # A row of the outermost dimension with more than one index: NHWC's row
            # band, which a patch below it no longer reads.
            outer = next((d for d, n in enumerate(t.shape) if n > 1), len(t.shape) - 1)
            grain = t.nbytes // max(1, int(np.prod(t.shape[:outer + 1])))
            parts = parts_from_reads(t.nbytes, t.first, reads, grain)
            # Reserved bytes past the last element die with the last part.
            if parts and t.size > t.nbytes:
                last = parts[-1]
                parts = (*parts[:-1], Part(last.offset, t.size - last.offset,
                                           max(last.end, t.last + 1)))
            if parts:
                found[t.key] = parts
    return found


def _views(model, tensors: list[TfliteTensor], ops: tuple[TfliteOp, ...],
           shared: set[int]) -> dict[int, tuple[int, int]]:
    """Slices of subgraph 0 whose output is one contiguous byte range of their input (a
    band of whole rows of an NHWC tensor): the output may sit on those bytes, where the
    kernel's copy writes each element onto itself (as a zero-copy CONCATENATION's,
    `_joins`), so the slice costs no bytes. Only an output nobody else writes or shares
    (no subgraph output), at an offset TFLM's alignment keeps."""
    sg = model.subgraphs[0]
    ends = {int(i) for i in (*_ints(sg.inputs), *_ints(sg.outputs))}
    found: dict[int, tuple[int, int]] = {}
    for op in ops:
        if op.name not in SLICES or op.subgraph or len(op.outputs) != 1 or not op.slots:
            continue
        src, out = tensors[op.slots[0]], tensors[op.outputs[0]]
        if (src.role is not Role.PLANNED or out.role is not Role.PLANNED
                or out.key in ends or out.key in shared or src.key in shared
                or src.dtype != out.dtype or src.key in found):
            continue
        box = _slice_box(model, op, src)
        runs = [] if box is None else _byte_runs(src, box)
        if len(runs) == 1 and runs[0][1] - runs[0][0] == out.nbytes \
                and runs[0][0] % ALIGNMENT == 0:
            found[out.key] = (src.key, runs[0][0])
    return found


def _slice_box(model, op: TfliteOp, t: TfliteTensor) -> list[tuple[int, int]] | None:
    """[begin, end) per dimension of what a slice with constant bounds reads of `t` (its
    first input), or None when it reads it otherwise (a mask, a stride, a second use)."""
    if not op.slots or op.slots[0] != t.key or t.key in op.slots[1:]:
        return None
    options = op.options
    if op.name == "STRIDED_SLICE":
        if len(op.slots) != 4 or any(getattr(options, f, 0) for f in (
                "beginMask", "endMask", "ellipsisMask", "newAxisMask", "shrinkAxisMask",
                "offset")):
            return None
        begin, end, strides = (_constant_ints(model, 0, op, k) for k in (1, 2, 3))
        if strides is None or any(s != 1 for s in strides):
            return None
    else:  # SLICE: begin and size, -1 meaning "to the end"
        if len(op.slots) != 3:
            return None
        begin, size = (_constant_ints(model, 0, op, k) for k in (1, 2))
        end = None if begin is None or size is None else [
            d if n == -1 else b + n for b, n, d in zip(begin, size, t.shape, strict=False)]
    if begin is None or end is None or len(begin) != len(t.shape) or len(end) != len(t.shape):
        return None
    box = []
    for b, e, d in zip(begin, end, t.shape, strict=True):
        b, e = b + d if b < 0 else b, e + d if e < 0 else e
        if not 0 <= b <= e <= d:
            return None
        box.append((b, e))
    return box


SMALL_INTS = 16  # elements: an operator's parameters, not data


def _small_ints(model, tensors: list[TfliteTensor]) -> dict[int, tuple[int, ...]]:
    found = {}
    buffers = model.buffers or []
    for t, raw in zip(tensors, model.subgraphs[0].tensors or [], strict=False):
        if (t.role is Role.CONSTANT and t.dtype == "INT32" and 0 < t.nbytes <= 4 * SMALL_INTS
                and buffers[raw.buffer].data is not None):
            data = np.asarray(buffers[raw.buffer].data, dtype=np.uint8).tobytes()
            if len(data) == t.nbytes:
                found[t.key] = tuple(int(v) for v in np.frombuffer(data, dtype="<i4"))
    return found


def _constant_ints(model, s: int, op: TfliteOp, slot: int) -> list[int] | None:
    index = op.slots[slot]  # in subgraph 0, a tensor's key is its index
    tensors = model.subgraphs[s].tensors
    if index < 0 or index >= len(tensors):
        return None
    tensor = tensors[index]
    buffers = model.buffers or []
    if not 0 < tensor.buffer < len(buffers) or buffers[tensor.buffer].data is None:
        return None
    dtype = {schema.TensorType.INT32: "<i4", schema.TensorType.INT64: "<i8"}.get(tensor.type)
    data = np.asarray(buffers[tensor.buffer].data, dtype=np.uint8).tobytes()
    if dtype is None or len(data) % np.dtype(dtype).itemsize:
        return None
    return [int(v) for v in np.frombuffer(data, dtype=dtype)]


def _byte_runs(t: TfliteTensor, box: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The byte ranges of `t` (row-major) inside `box`, each contiguous run once."""
    item = t.nbytes // max(1, int(np.prod(t.shape)))
    mask = np.zeros(t.shape, dtype=bool)
    mask[tuple(slice(b, e) for b, e in box)] = True
    flat = np.concatenate([[False], mask.reshape(-1), [False]])
    edges = np.flatnonzero(flat[1:] != flat[:-1])
    return [(int(lo) * item, int(hi) * item) for lo, hi in zip(edges[::2], edges[1::2],
                                                                  strict=True)]


def _joins(model, tensors: list[TfliteTensor], ops: tuple[TfliteOp, ...],
           first_key: list[int], shares: dict[int, int]) -> dict[int, tuple[int, int]]:
    """CONCATENATIONs whose inputs can be written where their bytes sit in the output, so
    that the kernel's copy is of each region onto itself. TFLM's kernel (every type goes
    through reference_ops::Concatenation, no requantization) does one memcpy per input per
    outer index (the product of the dimensions before the axis): when that product is 1,
    each input is one contiguous range of the output, copied with identical source and
    destination pointers, which leaves the bytes as they are. Only inputs that die there,
    are used once by it and are no subgraph input or output; each at an offset TFLM's
    alignment keeps (a tensor TFLM plans starts on it)."""
    joins: dict[int, tuple[int, int]] = {}
    for op in ops:
        if op.name != "CONCATENATION" or len(op.outputs) != 1 or not op.inputs \
                or getattr(op.options, "fusedActivationFunction", 0):
            continue
        out = tensors[op.outputs[0]]
        axis = int(getattr(op.options, "axis", 0))
        axis = axis + len(out.shape) if axis < 0 else axis
        sg = model.subgraphs[op.subgraph]
        ends = {first_key[op.subgraph] + int(i) for i in (*_ints(sg.inputs), *_ints(sg.outputs))}
        parts = [tensors[k] for k in op.inputs]
        if (out.role is not Role.PLANNED or not 0 <= axis < len(out.shape)
                or any(d != 1 for d in out.shape[:axis])
                or sum(t.nbytes for t in parts) != out.nbytes
                or len(set(op.inputs)) != len(op.inputs)
                or any(t.role is not Role.PLANNED or t.last != op.scope or t.key in ends
                       or t.key in shares or t.dtype != out.dtype for t in parts)):
            continue
        at, placed = 0, {}
        for t in parts:
            placed[t.key] = (out.key, at)
            at += t.nbytes
        if all(offset % ALIGNMENT == 0 for _, offset in placed.values()):
            joins.update(placed)
    return joins


def _scratch_requests(op: TfliteOp, tensors: list[TfliteTensor], path: str,
                      kernels: KernelSet = KernelSet.REFERENCE, core=None) -> list[int]:
    """Bytes of each scratch buffer TFLM's kernel for `op` requests, in order."""
    def info(key: int) -> TensorInfo | None:
        if key < 0:
            return None
        t = tensors[key]
        return TensorInfo(t.dtype, t.shape, t.role is Role.CONSTANT, t.scales)

    view = OpView(op.name, tuple(info(k) for k in op.slots), tuple(info(k) for k in op.outputs),
                  op.options, op.custom)
    try:
        return scratch_requests(view, kernels, core=core)
    except ScratchModelError as err:
        raise InputError(path, str(err), f"subgraph {op.subgraph} operator {op.index}") \
            from None


def _scale_count(tensor) -> int:
    q = tensor.quantization
    return 0 if q is None or q.scale is None else len(q.scale)


def _offline_plan(model, count: int, path: str) -> tuple[int, ...] | None:
    for m in model.metadata or []:
        if _text(m.name) != METADATA_NAME:
            continue
        buffers = model.buffers or []
        if not 0 <= m.buffer < len(buffers) or buffers[m.buffer].data is None:
            raise InputError(path, f"{METADATA_NAME} names buffer {m.buffer}, which has no data")
        raw = bytes(np.asarray(buffers[m.buffer].data, dtype=np.uint8))
        words = np.frombuffer(raw[: len(raw) // 4 * 4], dtype="<i4")
        if len(words) < 3 or words[2] != count or len(words) < 3 + count:
            raise InputError(path, f"{METADATA_NAME} holds {len(words)} words; expected "
                             f"3 + {count} (one offset per tensor)")
        return tuple(int(w) for w in words[3:3 + count])
    return None


_TYPE_BYTES = TYPE_BYTES


def _type_name(code: int) -> str:
    return _enum_name(schema.TensorType, code) or f"type {code}"


def _nbytes(t, path: str, place: str) -> int:
    name = _type_name(t.type)
    if name not in _TYPE_BYTES:
        raise InputError(path, f"element type {name} has no size in TFLM", place)
    shape = t.shape if t.shape is not None else ()
    if any(int(d) < 0 for d in shape):
        raise InputError(path, f"dynamic shape {list(map(int, shape))}: TFLM plans static "
                         "shapes only", place)
    nbytes = _TYPE_BYTES[name]
    for d in shape:  # Python ints: a product of int32 dims can pass 2**63
        nbytes *= int(d)
    if nbytes > MAX_TENSOR_BYTES:
        raise InputError(path, f"shape {list(map(int, shape))} of {name} takes {nbytes:,} "
                         f"bytes; TFLM counts tensor bytes in 32-bit ints (at most "
                         f"{MAX_TENSOR_BYTES:,})", place)
    return nbytes


def _op_name(code) -> str:
    builtin = max(int(code.builtinCode), int(code.deprecatedBuiltinCode))
    if builtin == schema.BuiltinOperator.CUSTOM:
        return f"CUSTOM:{_text(code.customCode) or '?'}"
    return _enum_name(schema.BuiltinOperator, builtin) or f"op {builtin}"


def _enum_name(enum_class, value: int) -> str | None:
    for name, v in vars(enum_class).items():
        if not name.startswith("_") and v == value:
            return name
    return None


def _buffer_len(buffer) -> int:
    return 0 if buffer.data is None else len(buffer.data)


def _ints(values) -> list[int]:
    return [] if values is None else [int(v) for v in values]


def _text(value) -> str:
    if value is None:
        return ""
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else str(value)


def _align_up(value: int, alignment: int) -> int:
    return -(-value // alignment) * alignment


# --- writing ------------------------------------------------------------------------

if schema is not None:
    class _AlignedBuffer(schema.BufferT):
        """A buffer whose data the object API packs 16-aligned, as the schema's
        `force_align: 16` asks (the generated Pack aligns to one byte)."""

        @classmethod
        def of(cls, buffer) -> _AlignedBuffer:
            new = cls()
            new.data, new.offset, new.size = buffer.data, buffer.offset, buffer.size
            return new

        def Pack(self, builder):  # noqa: N802 - the generated API's name
            data = None
            if self.data is not None:
                raw = bytes(np.asarray(self.data, dtype=np.uint8))
                builder.StartVector(1, len(raw), ALIGNMENT)
                builder.head -= len(raw)
                builder.Bytes[builder.head:builder.head + len(raw)] = raw
                data = builder.EndVector()
            schema.BufferStart(builder)
            if data is not None:
                schema.BufferAddData(builder, data)
            schema.BufferAddOffset(builder, self.offset)
            schema.BufferAddSize(builder, self.size)
            return schema.BufferEnd(builder)
