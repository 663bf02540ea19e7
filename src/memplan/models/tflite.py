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
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError

try:  # TFLM's own schema module (object API), shipped by the tflite-micro package
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema
except ImportError:  # pragma: no cover - reported when a .tflite is actually read
    schema = None

ALIGNMENT = 16  # MicroArenaBufferAlignment()
METADATA_NAME = "OfflineMemoryAllocation"
ONLINE = -1  # kOnlinePlannedBuffer: TFLM plans the tensor itself
FILE_IDENTIFIER = b"TFL3"


class Role(enum.Enum):
    PLANNED = "planned"  # in the arena's head, at an offset a planner chooses
    CONSTANT = "constant"  # data in the flatbuffer
    VARIABLE = "variable"  # persistent, in the arena's tail
    EMPTY = "empty"  # zero bytes
    UNUSED = "unused"  # never created by any operator TFLM runs: TFLM plans it, if at all


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

    def planned(self) -> list[TfliteTensor]:
        return [t for t in self.tensors if t.role is Role.PLANNED]


def load_tflite(path: str | Path) -> TfliteModel:
    return parse_tflite(read_model_bytes(path), str(path))


def read_model_bytes(path: str | Path) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as err:
        raise InputError(path, f"cannot read: {err.strerror}") from None


def parse_tflite(data: bytes, path: str) -> TfliteModel:
    model = _unpack(data, path)
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

    tensors: list[TfliteTensor] = []
    for s, sg in enumerate(model.subgraphs):
        for i, t in enumerate(sg.tensors or []):
            key = first_key[s] + i
            nbytes = _nbytes(t, path, f"subgraph {s} tensor {i}")
            first, last = scopes.first.get(key), scopes.last.get(key)
            has_data = 0 < t.buffer < len(buffers) and _buffer_len(buffers[t.buffer]) > 0
            if t.isVariable:
                role = Role.VARIABLE
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
                nbytes, role, first, last))

    ops = tuple(scopes.ops)
    main = model.subgraphs[0]
    inputs = tuple(int(i) for i in (main.inputs if main.inputs is not None else ()))
    outputs = tuple(int(i) for i in (main.outputs if main.outputs is not None else ()))
    shares = _in_place_reshapes(model, tensors, ops, first_key)
    scratch = tuple((op, n) for op in ops for n in _scratch_requests(op, tensors) if n > 0)
    return TfliteModel(path, len(model.subgraphs), tuple(tensors), ops, inputs, outputs,
                       shares, _offline_plan(model, count, path), scratch)


def with_offline_plan(data: bytes, offsets: list[int], path: str) -> bytes:
    """The model with `offsets` as its `OfflineMemoryAllocation` metadata (replacing any
    plan it had); every constant buffer keeps the 16-byte alignment the schema asks."""
    model = _unpack(data, path)
    count = sum(len(sg.tensors or []) for sg in model.subgraphs)
    if len(offsets) != count:
        raise ValueError(f"{len(offsets)} offsets for {count} tensors")
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
    import flatbuffers

    builder = flatbuffers.Builder(len(data) + 4 * len(words) + 1024)
    builder.Finish(model.Pack(builder), file_identifier=FILE_IDENTIFIER)
    return bytes(builder.Output())


# --- reading ------------------------------------------------------------------------

def _unpack(data: bytes, path: str):
    if schema is None:
        raise InputError(path, "reading .tflite needs the tflite-micro package "
                         "(pip install tflite-micro)")
    if len(data) < 8:
        raise InputError(path, "not a TFLite flatbuffer (too short)")
    if data[4:8] != FILE_IDENTIFIER:
        raise InputError(path, f"not a TFLite flatbuffer (file identifier {data[4:8]!r}, "
                         f"expected {FILE_IDENTIFIER!r})")
    try:
        model = schema.ModelT.InitFromPackedBuf(bytearray(data), 0)
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
            self.ops.append(TfliteOp(s, n, self.codes[op.opcodeIndex], self.count,
                                     tuple(ins), tuple(outs)))
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


def _scratch_requests(op: TfliteOp, tensors: list[TfliteTensor]) -> list[int]:
    """Bytes of each scratch buffer TFLM's reference kernel for `op` requests, in order."""
    def t(i: int) -> TfliteTensor | None:
        return tensors[op.inputs[i]] if i < len(op.inputs) else None

    def elements(x: TfliteTensor | None) -> int:
        return 0 if x is None else int(np.prod(x.shape, dtype=np.int64))

    out = tensors[op.outputs[0]] if op.outputs else None
    name = op.name
    if name == "TRANSPOSE_CONV":  # inputs: output shape, filter, input, bias
        data, bias = t(2), t(3)
        wide = {"INT8": 4, "INT16": 8}.get(data.dtype if data else "", 0)
        converted = 8 * elements(bias) if data and data.dtype == "INT16" and bias \
            and bias.dtype == "INT16" else 0
        return [converted, wide * elements(out)]
    if name in ("MEAN", "SUM"):
        data, axis = t(0), t(1)
        accumulator = 4 * elements(out) if data and data.dtype in ("INT8", "INT16") else 0
        return [accumulator, 4 * len(data.shape) if data else 0, 4 * elements(axis)]
    if name in ("REDUCE_MAX", "REDUCE_MIN"):
        data, axis = t(0), t(1)
        return [4 * len(data.shape) if data else 0, 4 * elements(axis)]
    if name == "ADD_N" and out is not None and out.dtype in ("FLOAT32", "INT8"):
        return [8 * len(op.inputs)]  # one pointer per input (8 bytes on a 64-bit host)
    if name == "MIRROR_PAD" and t(0) is not None:
        return [4 * len(t(0).shape)] * 2
    if name in ("CONV_2D", "DEPTHWISE_CONV_2D", "FULLY_CONNECTED"):
        weights = t(1)
        return [elements(weights)] if weights is not None and weights.dtype == "INT4" else []
    return []


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


_TYPE_BYTES = {
    "FLOAT16": 2, "BFLOAT16": 2, "FLOAT32": 4, "FLOAT64": 8, "INT16": 2, "INT32": 4,
    "UINT32": 4, "UINT8": 1, "UINT16": 2, "INT8": 1, "INT64": 8, "UINT64": 8, "BOOL": 1,
    "RESOURCE": 4, "COMPLEX64": 8, "COMPLEX128": 16, "INT4": 1,
}  # TfLiteTypeSizeOf in TFLM's memory_helpers.cc (INT4 unpacked: one byte each)


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
    return int(np.prod([int(d) for d in shape], dtype=np.int64)) * _TYPE_BYTES[name]


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
