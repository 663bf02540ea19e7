"""ONNX front end: the activations of an `.onnx` graph as one arena would hold them.

Shapes come from ONNX shape inference over static shapes; a symbolic dimension must be
given a value (`dims`). Execution order is the graph's node order (ONNX requires it to
be topological). Graph inputs are live from step 0; node i runs at step i + 1; graph
outputs stay live to the end. Initializers and `Constant` outputs are constants, not
arena tensors. A view-like op (Reshape, Flatten, Squeeze, Unsqueeze, Identity) may reuse
its input's bytes when the input's last use is that op.

Report only: ONNX Runtime takes no plan from outside, so nothing is written back.
Subgraphs of control-flow nodes (If, Loop, Scan) are not planned; the node is.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ...errors import InputError
from ...extras import Extra, import_optional
from ...limits import MAX_VALUE

ALIGNMENT = 64  # ONNX Runtime's CPU allocator aligns every buffer to 64 bytes
VIEW_OPS = frozenset({"Reshape", "Flatten", "Squeeze", "Unsqueeze", "Identity"})
CONTROL_FLOW_OPS = frozenset({"If", "Loop", "Scan"})
# Limits on what is read (docs/reliability.md): protobuf parses at most 2 GiB; a tensor's
# bytes must fit the packers' arithmetic (2**40, as every size memplan plans).
MAX_FILE_BYTES = 2**31 - 1
MAX_NODES = 1_000_000
# External data (weights in files beside the model) that a reader may load, over all
# tensors: what one protobuf could have held inline.
MAX_EXTERNAL_BYTES = 2**31 - 1


@dataclass(frozen=True)
class OnnxTensor:
    key: int
    name: str
    dtype: str
    shape: tuple[int, ...]
    nbytes: int
    start: int
    end: int  # exclusive
    shares_with: int | None = None

    @property
    def size(self) -> int:
        return -(-self.nbytes // ALIGNMENT) * ALIGNMENT


@dataclass(frozen=True)
class OnnxModel:
    path: str
    tensors: tuple[OnnxTensor, ...]
    nodes: int
    notes: tuple[str, ...]
    # Per node: its label and the keys of the planned tensors it reads and writes (the
    # graph the floor of any order is computed from).
    ops: tuple[tuple[str, str, tuple[int, ...]], ...] = ()


def load_onnx(path: str | Path, dims: dict[str, int] | None = None) -> OnnxModel:
    onnx = import_optional("onnx", Extra.ONNX, f"{path}: reading .onnx")
    try:
        size = Path(path).stat().st_size
        if size > MAX_FILE_BYTES:
            raise InputError(path, f"{size:,} bytes; an ONNX protobuf holds at most "
                             f"{MAX_FILE_BYTES:,}")
        model = onnx.load(str(path), load_external_data=False)
        check_external_data(model, path)
    except FileNotFoundError:
        raise InputError(path, "cannot read: no such file") from None
    except InputError:
        raise
    except Exception as err:  # protobuf's decode errors have no common base we can name
        raise InputError(path, f"not a readable ONNX model ({type(err).__name__})") from None
    if len(model.graph.node) > MAX_NODES:
        raise InputError(path, f"{len(model.graph.node):,} nodes; memplan reads at most "
                         f"{MAX_NODES:,}")
    dims = dims or {}
    _set_dims(model, dims, str(path))
    try:
        inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    except Exception as err:
        raise InputError(path, f"shape inference failed: {str(err).splitlines()[0][:200]}") \
            from None
    return _arena(inferred, str(path), dims)


def _set_dims(model, dims: dict[str, int], path: str) -> None:
    used = set()
    for value in model.graph.input:
        for d in value.type.tensor_type.shape.dim:
            if d.HasField("dim_param") and d.dim_param in dims:
                used.add(d.dim_param)
                d.dim_value = dims[d.dim_param]
    unknown = sorted(set(dims) - used)
    if unknown:
        raise InputError(path, f"--dim {unknown[0]}: no input has a dimension of that name")


def _arena(model, path: str, dims: dict[str, int]) -> OnnxModel:
    from onnx import helper

    graph = model.graph
    constants = {i.name for i in graph.initializer}
    values = {v.name: v for v in [*graph.input, *graph.value_info, *graph.output]}
    outputs = {o.name for o in graph.output}
    nodes = list(graph.node)
    end_step = len(nodes) + 1

    made: dict[str, int] = {}
    last: dict[str, int] = {}
    producer: dict[str, object] = {}
    for value in graph.input:
        if value.name not in constants:
            made[value.name] = 0
            last[value.name] = 0
    notes = []
    for step, node in enumerate(nodes, start=1):
        if node.op_type in CONTROL_FLOW_OPS:
            notes.append(f"node {node.name or step} ({node.op_type}): its subgraphs are not "
                         "planned")
        for name in node.input:
            if name in made:
                last[name] = step
        for name in node.output:
            if not name:
                continue
            if node.op_type == "Constant":
                constants.add(name)
                continue
            made[name] = step
            last[name] = step
            producer[name] = node
    for name in outputs:
        if name in made:
            last[name] = end_step

    keys = {name: k for k, name in enumerate(made)}
    tensors = []
    for name, start in made.items():
        dtype, shape = _type_and_shape(values.get(name), name, path, dims)
        itemsize = helper.tensor_dtype_to_np_dtype(dtype).itemsize if dtype else 0
        nbytes = itemsize
        for d in shape:
            nbytes *= d
        if nbytes > MAX_VALUE:
            raise InputError(path, f"tensor '{name}': shape {list(shape)} takes {nbytes:,} "
                             "bytes; memplan plans at most 2**40")
        shares = None
        node = producer.get(name)
        if node is not None and node.op_type in VIEW_OPS and node.input:
            src = node.input[0]
            if (src in made and src not in outputs and last[src] == made[name]
                    and list(node.input).count(src) == 1):
                shares = keys[src]
        tensors.append(OnnxTensor(keys[name], name, helper.tensor_dtype_to_string(dtype)
                                  .replace("TensorProto.", "") if dtype else "?",
                                  shape, nbytes, start, last[name] + 1, shares))
    ops = tuple((f"{node.op_type} {node.name or step}", node.op_type,
                 tuple(dict.fromkeys(keys[n] for n in (*node.input, *node.output) if n in keys)))
                for step, node in enumerate(nodes, start=1))
    return OnnxModel(path, tuple(tensors), len(nodes), tuple(notes), ops)


def _type_and_shape(value, name: str, path: str, dims: dict[str, int]
                    ) -> tuple[int, tuple[int, ...]]:
    if value is None or not value.type.HasField("tensor_type"):
        raise InputError(path, f"tensor '{name}': shape inference gave it no tensor type")
    ttype = value.type.tensor_type
    if not ttype.HasField("shape"):
        raise InputError(path, f"tensor '{name}': shape inference gave it no shape")
    shape = []
    for i, d in enumerate(ttype.shape.dim):
        if d.HasField("dim_value"):
            if d.dim_value < 0:
                raise InputError(path, f"tensor '{name}': dimension {i} is {d.dim_value}")
            shape.append(int(d.dim_value))
        elif d.HasField("dim_param"):
            raise InputError(path, f"tensor '{name}': dimension {i} is '{d.dim_param}'; "
                             f"give it a value with --dim {d.dim_param}=N")
        else:
            raise InputError(path, f"tensor '{name}': dimension {i} is unknown after shape "
                             "inference")
    return ttype.elem_type, tuple(shape)


def check_external_data(model, path: str | Path) -> int:
    """Check every tensor stored outside the model (`data_location: EXTERNAL`) before
    anything reads it; its bytes in all. Each names a regular file inside the model's
    folder (no absolute path, no `..` or symlink out of it) holding exactly the tensor's
    bytes from its offset: `length`, when given, equals them and ends inside the file;
    without it, ONNX reads to the end of the file, so the file must end there (a 3 GB file
    behind a 4-byte tensor was read whole). The total is at most `MAX_EXTERNAL_BYTES`."""
    import os
    import stat

    from onnx import TensorProto, helper

    folder = Path(path).resolve().parent
    total = 0
    for tensor in _tensors(model):
        if tensor.data_location != TensorProto.EXTERNAL:
            continue
        where = f"tensor '{tensor.name}'"
        entries = {e.key: e.value for e in tensor.external_data}
        location = entries.get("location", "")
        try:
            offset = int(entries.get("offset", "0") or 0)
            length = int(entries["length"]) if entries.get("length") else None
        except ValueError:
            raise InputError(path, f"{where}: external data offset or length is not an "
                             "integer") from None
        target = (folder / location).resolve()
        if not location or Path(location).is_absolute() or not target.is_relative_to(folder):
            raise InputError(path, f"{where}: external data '{location[:80]}' is not a file "
                             "inside the model's folder")
        try:
            info = os.stat(target)
        except OSError as err:
            raise InputError(path, f"{where}: external data '{location[:80]}': "
                             f"{err.strerror}") from None
        if not stat.S_ISREG(info.st_mode):
            raise InputError(path, f"{where}: external data '{location[:80]}' is not a "
                             "regular file")
        try:
            element = helper.tensor_dtype_to_np_dtype(tensor.data_type).itemsize
        except (KeyError, ValueError, TypeError):
            raise InputError(path, f"{where}: external data of element type "
                             f"{tensor.data_type}, which memplan cannot size") from None
        if any(d < 0 for d in tensor.dims):
            raise InputError(path, f"{where}: negative dimension")
        count = 1
        for d in tensor.dims:
            count *= d
        nbytes = count * element
        if helper.tensor_dtype_to_string(tensor.data_type).endswith(("INT4", "FLOAT4E2M1")):
            nbytes = -(-count // 2)
        held = info.st_size - offset if length is None else length
        if offset < 0 or held != nbytes or offset + nbytes > info.st_size:
            raise InputError(path, f"{where}: external data '{location[:80]}' holds "
                             f"{max(held, 0):,} bytes from offset {offset:,} (file of "
                             f"{info.st_size:,}); the tensor has {nbytes:,}")
        total += nbytes
        if total > MAX_EXTERNAL_BYTES:
            raise InputError(path, f"external data of more than {MAX_EXTERNAL_BYTES:,} "
                             "bytes; memplan reads at most that")
    return total


def _tensors(model):
    """Every tensor of the model: initializers, sparse ones, node attributes, subgraphs."""
    graphs = [model.graph]
    while graphs:
        graph = graphs.pop()
        yield from graph.initializer
        for sparse in graph.sparse_initializer:
            yield sparse.values
            yield sparse.indices
        for node in graph.node:
            for attribute in node.attribute:
                if attribute.HasField("t"):
                    yield attribute.t
                yield from attribute.tensors
                if attribute.HasField("sparse_tensor"):
                    yield attribute.sparse_tensor.values
                    yield attribute.sparse_tensor.indices
                if attribute.HasField("g"):
                    graphs.append(attribute.g)
                graphs.extend(attribute.graphs)
