"""Read a `torch.export.save`d program (.pt2) without running anything it holds.

A .pt2 is a zip archive. `torch.export.load` unpickles with no restriction in five
places, each of which runs whatever code the file's author put there:
- a weight or tensor constant whose payload config says `use_pickle`
  (`torch.load(..., weights_only=False)` in `pt2_archive/_package.py`);
- a constant named `opaque_obj_*` (`pickle.loads`) or `custom_obj_*` (TorchScript's
  unpickler, which builds script objects);
- the legacy layouts `data/weights/MODEL.pt` and `data/constants/MODEL.pt`, and the sample
  inputs, through `serde.deserialize_torch_artifact`, which retries with
  `weights_only=False` when the safe load fails;
- the archive format before `archive_format` existed (the same fallback);
- `data/aotinductor/`: compiled shared libraries, loaded and so executed.

`check_archive` reads the zip's directory and the payload configs itself, before torch
sees the file, and refuses each of these with one line saying which member and why. It
also bounds what torch would read: every member by its declared size against the file
(stored members) and the deflate ratio (compressed ones, whose declared size is what
torch's reader allocates and the most it inflates), their total, each weight's extent
against the bytes its record holds (an empty record makes torch allocate the declared
shape as zeros), and each graph tensor's bytes. `load_exported` then loads with every
unpickling entry point of torch's loader held to `weights_only=True`: a path this module
did not foresee is refused, not run. docs/reliability.md states the trust model.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import warnings
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import InputError
from ..limits import MAX_VALUE

# Total bytes of the archive's members once inflated: torch holds all of them at once.
MAX_ARCHIVE_BYTES = 2**32
MAX_MEMBERS = 100_000
# Deflate's own limit is about 1,032:1. torch.export.save stores every member uncompressed;
# an archive someone recompressed stays far below this ratio, a bomb far above.
MAX_DEFLATE_RATIO = 100
# JSON members (the graph, the payload configs) are parsed whole, in memory.
MAX_JSON_BYTES = 512 << 20

# Names inside the archive, after the top folder (torch's reader strips it).
_FORMAT, _VERSION = "archive_format", "archive_version"
_MODELS, _WEIGHTS, _CONSTANTS = "models/", "data/weights/", "data/constants/"
_AOTI = "data/aotinductor/"
_WEIGHTS_CONFIG = "data/weights/{}_weights_config.json"
_CONSTANTS_CONFIG = "data/constants/{}_constants_config.json"
_PICKLED_OBJECT_PREFIXES = ("custom_obj_", "opaque_obj_")


@dataclass(frozen=True)
class Member:
    name: str  # inside the archive's top folder
    entry: str  # the zip entry's own name
    size: int  # declared, inflated
    compressed: int


@dataclass(frozen=True)
class Archive:
    path: str
    members: dict[str, Member]
    models: tuple[str, ...]  # names of the exported programs (models/NAME.json)


class _Refused(BaseException):
    """Raised from inside torch's loader when it asks to unpickle without restriction.
    A BaseException so that torch's own `except Exception` fallbacks cannot swallow it."""


def quiet_torch() -> None:
    """Silence torch's and ExecuTorch's own logging and warnings for this process: memplan
    reports their failures itself, in one line. Call before ExecuTorch is imported (its
    import logs a deprecation through torch's logger)."""
    import torch  # noqa: F401 - importing torch installs the handler silenced here

    for name in ("torch", "executorch", "torchao"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    for module in ("torch", "executorch", "torchao"):
        warnings.filterwarnings("ignore", module=module)


def check_archive(path: str | Path) -> Archive:
    """The archive's members, or an InputError naming the member that cannot be read safely."""
    shown = str(path)
    try:
        size = os.stat(path).st_size
        with zipfile.ZipFile(path) as archive:
            infos = archive.infolist()
            if len(infos) > MAX_MEMBERS:
                raise InputError(shown, f"{len(infos):,} archive members; memplan reads at "
                                 f"most {MAX_MEMBERS:,}")
            members = _members(shown, infos, size)
            models = _check_layout(shown, members)
            for model in models:
                _check_payloads(shown, archive, members, model, _WEIGHTS_CONFIG, _WEIGHTS)
                _check_payloads(shown, archive, members, model, _CONSTANTS_CONFIG, _CONSTANTS)
                _check_graph(shown, _json(shown, archive, members, f"{_MODELS}{model}.json"))
    except FileNotFoundError:
        raise InputError(shown, "no such file") from None
    except zipfile.BadZipFile as err:
        raise InputError(shown, f"not a torch.export program (a .pt2 is a zip archive: "
                         f"{err})") from None
    except OSError as err:
        raise InputError(shown, f"cannot read: {err.strerror or err}") from None
    return Archive(shown, members, models)


def load_exported(path: str | Path) -> Any:
    """The `torch.export.ExportedProgram` in a checked archive; a bad file is an InputError."""
    import torch

    check_archive(path)
    quiet_torch()
    try:
        with _no_unrestricted_unpickling():
            exported = torch.export.load(str(path))
    except _Refused as refused:
        raise InputError(str(path), f"refused: torch would unpickle {refused} without "
                         "restriction, which can run code; memplan never does") from None
    except Exception as err:  # torch raises many kinds; the user needs one line
        while err.__cause__ or err.__context__:  # torch's outer message points at its log
            err = err.__cause__ or err.__context__
        reason = " ".join(str(err).split())[:200] or type(err).__name__
        if "warnings above" in reason:  # the log we silenced: say what it means
            reason = "the archive holds no exported program torch can read"
        raise InputError(str(path), f"not a torch.export program ({reason})") from None
    check_program(str(path), exported)
    return exported


def check_program(path: str, exported: Any) -> None:
    """The loaded program is consistent: each weight has the shape and dtype the graph
    expects of it, and the graph passes torch's own shape checks on fake tensors (a
    corrupted operator argument, such as a zero stride or negative padding, fails there,
    before ExecuTorch lowers it)."""
    import torch
    from torch._guards import detect_fake_mode
    from torch.export.graph_signature import InputKind
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp

    placeholders = {n.name: n for n in exported.graph.nodes if n.op == "placeholder"}
    stored = {**exported.state_dict, **exported.constants}
    for spec in exported.graph_signature.input_specs:
        if spec.kind not in (InputKind.PARAMETER, InputKind.BUFFER, InputKind.CONSTANT_TENSOR):
            continue
        tensor = stored.get(spec.target)
        node = placeholders.get(getattr(spec.arg, "name", ""))
        val = node.meta.get("val") if node is not None else None
        if not isinstance(tensor, torch.Tensor) or not isinstance(val, torch.Tensor):
            continue
        if tensor.dtype != val.dtype or list(tensor.shape) != list(val.shape):
            raise InputError(path, f"weight '{_short(spec.target)}' is {tensor.dtype} "
                             f"{list(tensor.shape)}; the graph uses it as {val.dtype} "
                             f"{list(val.shape)}")
    values = [n.meta.get("val") for n in placeholders.values()]
    mode = detect_fake_mode([v for v in values if isinstance(v, torch.Tensor)])
    try:
        FakeTensorProp(exported.graph_module, mode).propagate_dont_convert_inputs(*values)
    except Exception as err:  # any operator's own check: the program, not memplan
        text = str(err).strip()
        node = re.search(r"While executing %(\S+)", text)
        where = f" at node {node.group(1)}" if node else ""
        first = text.splitlines()[0][:200] if text else type(err).__name__
        raise InputError(path, f"the graph fails torch's shape checks{where}: {first}") \
            from None


# --- the archive's directory ----------------------------------------------------------

def _members(path: str, infos: list[zipfile.ZipInfo], file_size: int) -> dict[str, Member]:
    """Each member by its name under the top folder, its sizes checked against the file."""
    members: dict[str, Member] = {}
    top = None
    total = 0
    for info in infos:
        name = info.filename
        if info.is_dir():
            continue
        folder, _, inner = name.partition("/")
        if not inner:
            raise InputError(path, "not a torch.export program (the archive holds no exported "
                             f"program: member '{_short(name)}' is outside a top folder, "
                             "where torch.export.save puts every member)")
        if top is None:
            top = folder
        elif folder != top:
            raise InputError(path, f"archive member '{_short(name)}' is outside the top "
                             f"folder '{_short(top)}'")
        if inner in members:
            raise InputError(path, f"archive member '{_short(name)}' appears twice")
        if info.compress_type == zipfile.ZIP_STORED:
            if info.file_size != info.compress_size:
                raise InputError(path, f"archive member '{_short(name)}' is stored with "
                                 f"{info.compress_size:,} bytes but declares {info.file_size:,}")
        elif info.compress_type == zipfile.ZIP_DEFLATED:
            if info.file_size > MAX_DEFLATE_RATIO * max(info.compress_size, 1):
                raise InputError(path, f"archive member '{_short(name)}' inflates "
                                 f"{info.compress_size:,} bytes to {info.file_size:,} (more "
                                 f"than {MAX_DEFLATE_RATIO}:1: a zip bomb, not a model)")
        else:
            raise InputError(path, f"archive member '{_short(name)}' uses compression method "
                             f"{info.compress_type}; torch reads stored and deflated members")
        if info.header_offset + info.compress_size > file_size:
            raise InputError(path, f"archive member '{_short(name)}' ends past the end of the "
                             "file (truncated?)")
        total += info.file_size
        if total > MAX_ARCHIVE_BYTES:
            raise InputError(path, f"the archive's members hold more than "
                             f"{MAX_ARCHIVE_BYTES:,} bytes; memplan reads at most that")
        members[inner] = Member(inner, name, info.file_size, info.compress_size)
    return members


def _check_layout(path: str, members: dict[str, Member]) -> tuple[str, ...]:
    """The archive is torch.export's current format, with nothing torch would execute."""
    if _FORMAT not in members:
        raise InputError(path, "not a torch.export program of torch 2.8 or later (no "
                         "archive_format member; older archives are loaded by unpickling)")
    for name in members:
        if name.startswith(_AOTI):
            raise InputError(path, f"refused: '{_short(name)}' is AOTInductor compiled code, "
                             "which loading would run; memplan runs no code from a model")
        for folder in (_WEIGHTS, _CONSTANTS):
            if name.startswith(folder) and name.endswith(".pt") and "/" not in name[len(folder):]:
                raise InputError(path, f"refused: '{_short(name)}' is a pickled payload of "
                                 "the legacy layout, which torch unpickles without "
                                 "restriction; re-save the program with torch.export.save")
    models = tuple(sorted(name[len(_MODELS):-len(".json")] for name in members
                          if name.startswith(_MODELS) and name.endswith(".json")))
    if not models:
        raise InputError(path, "not a torch.export program (the archive holds no exported "
                         "program: no models/*.json member)")
    return models


def _check_payloads(path: str, archive: zipfile.ZipFile, members: dict[str, Member],
                    model: str, config_name: str, folder: str) -> None:
    """No pickled payload, and every tensor within the bytes of its record."""
    name = config_name.format(model)
    if name not in members:
        return  # torch refuses the archive itself, naming the missing config
    config = _json(path, archive, members, name)
    entries = config.get("config") if isinstance(config, dict) else None
    if not isinstance(entries, dict):
        raise InputError(path, f"'{name}': no payload config")
    for fqn, entry in entries.items():
        if not isinstance(entry, dict):
            raise InputError(path, f"'{name}': entry '{_short(fqn)}' is not an object")
        record = str(entry.get("path_name", ""))
        if entry.get("use_pickle") or record.startswith(_PICKLED_OBJECT_PREFIXES):
            raise InputError(path, f"refused: '{_short(fqn)}' ({folder}{_short(record)}) is a "
                             "pickled payload, which torch unpickles without restriction and "
                             "which can run code; memplan reads tensors only")
        member = members.get(folder + record)
        if member is None:
            continue  # torch names the missing record
        needed = _tensor_extent(entry.get("tensor_meta"))
        if needed is None:
            raise InputError(path, f"'{name}': '{_short(fqn)}' has no readable tensor_meta "
                             "(integer sizes, strides and storage offset, a known dtype)")
        if needed > member.size:
            raise InputError(path, f"'{_short(fqn)}' spans {needed:,} bytes but its record "
                             f"{folder}{_short(record)} holds {member.size:,}")


def _tensor_extent(meta: Any) -> int | None:
    """Bytes from the storage's start to the tensor's last element; None if unreadable."""
    if not isinstance(meta, dict):
        return None
    itemsize = _itemsize(meta.get("dtype"))
    sizes = _ints(meta.get("sizes"))
    strides = _ints(meta.get("strides"))
    offset = _ints([meta.get("storage_offset")])
    if itemsize is None or sizes is None or strides is None or offset is None \
            or len(sizes) != len(strides) or any(v < 0 for v in (*sizes, *strides, *offset)):
        return None
    if 0 in sizes:
        return 0
    last = offset[0] + sum((n - 1) * s for n, s in zip(sizes, strides, strict=True))
    return (last + 1) * itemsize


def _check_graph(path: str, program: Any) -> None:
    """Every tensor of every graph (nested ones too) within memplan's byte limit."""
    stack = [program]
    while stack:
        value = stack.pop()
        if isinstance(value, list):
            stack.extend(value)
        elif isinstance(value, dict):
            tensors = value.get("tensor_values")
            if isinstance(tensors, dict):
                for name, meta in tensors.items():
                    _check_tensor(path, name, meta)
            stack.extend(value.values())


def _check_tensor(path: str, name: str, meta: Any) -> None:
    if not isinstance(meta, dict):
        return
    itemsize = _itemsize(meta.get("dtype")) or 1
    count = 1
    for i, dim in enumerate(meta.get("sizes") or ()):
        value = dim.get("as_int") if isinstance(dim, dict) else None
        if not isinstance(value, int):
            continue  # symbolic: bounded by the program's range constraints
        if value < 0:
            raise InputError(path, f"tensor '{_short(name)}': dimension {i} is {value}")
        count *= value
        if count * itemsize > MAX_VALUE:
            raise InputError(path, f"tensor '{_short(name)}' takes more than 2**40 bytes "
                             f"(dimension {i} is {value:,}); memplan plans at most that")


def _json(path: str, archive: zipfile.ZipFile, members: dict[str, Member], name: str) -> Any:
    member = members[name]
    if member.size > MAX_JSON_BYTES:
        raise InputError(path, f"'{name}' is {member.size:,} bytes; memplan reads JSON members "
                         f"of at most {MAX_JSON_BYTES:,}")
    try:
        return json.loads(archive.read(member.entry))
    except (ValueError, RecursionError) as err:
        raise InputError(path, f"'{name}' is not readable JSON ({type(err).__name__})") \
            from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError) as err:
        raise InputError(path, f"'{name}' cannot be read from the archive ({err})") from None


def _itemsize(code: Any) -> int | None:
    if not isinstance(code, int) or isinstance(code, bool):
        return None
    return _ITEMSIZE.get(code)


# Bytes per element of torch.export's serialized `ScalarType` (torch/_export/serde/schema.py),
# kept here so that a file is checked, and a hostile one refused, without importing torch.
_ITEMSIZE = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 2, 7: 4, 8: 8, 9: 4, 10: 8, 11: 16, 12: 1, 13: 2,
             28: 2, 29: 1, 30: 1, 31: 1, 32: 1, 33: 1, 34: 4, 35: 8}


def _ints(values: Any) -> list[int] | None:
    if not isinstance(values, list):
        return None
    out = []
    for v in values:
        n = v.get("as_int") if isinstance(v, dict) else None
        if not isinstance(n, int) or isinstance(n, bool):
            return None
        out.append(n)
    return out


def _short(text: str, width: int = 80) -> str:
    return text if len(text) <= width else text[:width] + "..."


# --- loading ----------------------------------------------------------------------------

@contextlib.contextmanager
def _no_unrestricted_unpickling() -> Iterator[None]:
    """While torch loads: `torch.load` only with `weights_only=True`, and the loader's
    other unpicklers (`pickle.loads`, TorchScript's, AOTInductor's library loader)
    refused. `check_archive` refuses every archive that reaches them; this holds for a
    path it did not foresee."""
    import torch
    from torch.export.pt2_archive import _package

    safe_load = torch.load

    def load(f: Any, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("weights_only") is False:
            raise _Refused("a payload")
        kwargs["weights_only"] = True
        return safe_load(f, *args, **kwargs)

    def refuse(what: str) -> Any:
        def refused(*args: Any, **kwargs: Any) -> Any:
            raise _Refused(what)
        return refused

    class _NoPickle:
        loads = staticmethod(refuse("an opaque object"))

    saved = (torch.load, torch._C._pickle_load_obj, _package.pickle, _package._load_aoti)
    torch.load = load
    torch._C._pickle_load_obj = refuse("a script object")
    _package.pickle = _NoPickle
    _package._load_aoti = refuse("AOTInductor compiled code")
    try:
        yield
    finally:
        torch.load, torch._C._pickle_load_obj, _package.pickle, _package._load_aoti = saved
