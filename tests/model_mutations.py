"""Mutated model files (.tflite, .onnx, .pt2) and a child process that plans them.

Shared by tests/test_fuzz_models.py (a few seeded cases) and benchmarks/hostile_models.py
(thousands). Every mutation is derived from a seeded `random.Random`, so a case is the same
on every run. `run_cases` plans every case in one child Python process (the libraries are
imported once) through `memplan.cli.main`, and returns per case the exit code, what was
printed and whether its folder changed, with the child's peak resident memory.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pt2_craft

REPO = Path(__file__).resolve().parents[1]
SEEDS = {
    ".tflite": [REPO / "tests" / "data" / "tiny_cnn_int8.tflite",
                REPO / "tests" / "data" / "tiny_attention_f32.tflite"],
    ".onnx": [REPO / "tests" / "data" / "small_cnn.onnx"],
    ".pt2": [REPO / "examples" / "tiny_resnet.pt2"],
    ".py": [REPO / "examples" / "tvm_mlp.py"],
}
# Python that creates MARKER in the working folder if anything evaluates it.
PAYLOADS = [
    "__import__('pathlib').Path('MARKER').touch()",
    "__import__('os').system('touch MARKER')",
    "open('MARKER', 'w')",
    "exec(\"open('MARKER', 'w')\")",
    "T.external_kernel.Path('MARKER').touch()",
    "I.entry.parse(\"open('MARKER', 'w')\")",
    # Second round: no module named, Python reached from what TVMScript allows.
    "[c for c in ().__class__.__mro__[1].__subclasses__() if c.__name__ == 'Popen'][0]"
    "(['touch', 'MARKER'])",
    "T.evaluate.__globals__['__builtins__']['open']('MARKER', 'w')",
    "getattr(T, 'external_kernel').Path('MARKER').touch()",
    "T.meta_var(__import__('pathlib').Path('MARKER').touch())",
    "'{0.__globals__[os].system}'.format(T.evaluate)",
    "str(1).format(T.evaluate)",
    "T.int32(0).show()",
    # Hangs and memory while TVM folds constants in Python.
    "max(range(10**18))",
    "len([0] * 10**9)",
    "((((10**64)**64)**64)**64)**64 > 1",
]
HUGE = [2**31 - 1, 2**31 - 16, 2**30, 0, -3, 1 << 20]


@dataclass(frozen=True)
class Case:
    name: str
    data: bytes
    suffix: str
    marker: bool = False  # the file holds a payload that creates MARKER if unpickled


def bit_flips(data: bytes, rng: random.Random) -> bytes:
    out = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        i = rng.randrange(len(out))
        out[i] ^= 1 << rng.randrange(8)
    return bytes(out)


def truncated(data: bytes, rng: random.Random) -> bytes:
    return data[:rng.randrange(len(data))]


def tflite_huge_dim(data: bytes, rng: random.Random) -> bytes:
    import flatbuffers
    from tflite_micro.tensorflow.lite.micro.python import schema_py_generated as schema

    model = schema.ModelT.InitFromPackedBuf(bytearray(data), 0)
    tensors = [t for sg in model.subgraphs for t in sg.tensors if t.shape is not None
               and len(t.shape)]
    for _ in range(rng.randint(1, 3)):
        t = rng.choice(tensors)
        t.shape[rng.randrange(len(t.shape))] = rng.choice(HUGE)
    builder = flatbuffers.Builder(len(data) + 1024)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def onnx_huge_dim(data: bytes, rng: random.Random) -> bytes:
    import onnx

    model = onnx.load_from_string(data)
    values = [v for v in [*model.graph.input, *model.graph.value_info, *model.graph.output]
              if v.type.tensor_type.shape.dim]
    for _ in range(rng.randint(1, 2)):
        dims = rng.choice(values).type.tensor_type.shape.dim
        dims[rng.randrange(len(dims))].dim_value = rng.choice([2**62, 2**63 - 1, 2**40, 2**31])
    return model.SerializeToString()


def static_onnx(data: bytes) -> bytes:
    """The model with its symbolic input dimensions set to 1 (no --dim needed)."""
    import onnx

    model = onnx.load_from_string(data)
    for value in model.graph.input:
        for dim in value.type.tensor_type.shape.dim:
            if dim.HasField("dim_param"):
                dim.dim_value = 1
    return model.SerializeToString()


def pt2_huge_dim(data: bytes, rng: random.Random) -> bytes:
    def change(members: dict[str, bytes]) -> None:
        program = json.loads(members["models/model.json"])
        values = list(program["graph_module"]["graph"]["tensor_values"].values())
        sizes = rng.choice([v for v in values if v["sizes"]])["sizes"]
        sizes[rng.randrange(len(sizes))] = {"as_int": rng.choice([2**62, 2**40, 0, -1, 3])}
        members["models/model.json"] = json.dumps(program).encode()
    return _rewritten(data, change)


def pt2_weight_meta(data: bytes, rng: random.Random) -> bytes:
    """A weight's strides, sizes or offset changed: zero strides, huge sizes, negatives."""
    def change(members: dict[str, bytes]) -> None:
        name = "data/weights/model_weights_config.json"
        config = json.loads(members[name])
        meta = rng.choice([e for e in config["config"].values()
                           if e["tensor_meta"]["sizes"]])["tensor_meta"]
        field = rng.choice(["sizes", "strides"])
        meta[field][rng.randrange(len(meta[field]))] = {"as_int": rng.choice([0, -1, 2**40])}
        members[name] = json.dumps(config).encode()
    return _rewritten(data, change)


def pt2_op_args(data: bytes, rng: random.Random) -> bytes:
    """An integer list argument of an operator (strides, padding, dims) made zero or
    negative."""
    def change(members: dict[str, bytes]) -> None:
        program = json.loads(members["models/model.json"])
        args = [i["arg"] for node in program["graph_module"]["graph"]["nodes"]
                for i in node["inputs"] if i["arg"].get("as_ints")]
        ints = rng.choice(args)["as_ints"]
        ints[rng.randrange(len(ints))] = rng.choice([0, -1, -7, 2**40])
        members["models/model.json"] = json.dumps(program).encode()
    return _rewritten(data, change)


def pt2_json_fields(data: bytes, rng: random.Random) -> bytes:
    """One field anywhere in `models/model.json` (a symbolic size's expression, a node's
    target, a name, a number, a list) replaced by a payload string, a huge or negative
    number, a wrong type or a deep list (issue 31: fields, not only bytes)."""
    def change(members: dict[str, bytes]) -> None:
        program = json.loads(members["models/model.json"])
        holder, key = rng.choice(list(_slots(program)))
        holder[key] = rng.choice([
            rng.choice(PAYLOADS), rng.choice(PAYLOADS) + " + 1", "torch.save", "os.system",
            2**64 + 1, -(2**63) - 1, 10**400 if rng.random() < 0.1 else -1, None, True, 1.5e308,
            {"as_expr": {"expr_str": rng.choice(PAYLOADS)}}, [[[[[[]]]]]] * 3, "",
            "x" * 100_000])
        members["models/model.json"] = json.dumps(program).encode()
    return _rewritten(data, change)


def _slots(value):
    """(container, key) of every value in a JSON tree."""
    pending = [value]
    while pending:
        node = pending.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node) \
            if isinstance(node, list) else ()
        for key, child in items:
            yield node, key
            pending.append(child)


def script_mutant(data: bytes, rng: random.Random) -> bytes:
    """TVMScript with a payload in one of the places a script evaluates (a statement, an
    attribute value, an annotation, a decorator argument, an assignment) or a token
    changed."""
    lines = data.decode().splitlines()
    payload = rng.choice(PAYLOADS)
    body = [i for i, line in enumerate(lines) if line.startswith(" " * 8) and line.strip()
            and not line.strip().startswith(("#", "@", "def ", "return"))]
    i = rng.choice(body)
    indent = lines[i][:len(lines[i]) - len(lines[i].lstrip())]
    how = rng.randrange(6)
    if how == 0:
        lines.insert(i, indent + payload)
    elif how == 1:
        lines.insert(i, indent + f"T.func_attr({{'a': {payload}}})")
    elif how == 2:
        lines.insert(i, indent + f"x_{i}: {payload} = 1")
    elif how == 3:
        lines[i] = lines[i].replace("R.", f"({payload}) or R.", 1)
    elif how == 4:
        decorated = [j for j, line in enumerate(lines) if line.lstrip().startswith("@")]
        j = rng.choice(decorated)
        lines.insert(j, lines[j][:len(lines[j]) - len(lines[j].lstrip())] + f"@({payload})")
    else:
        words = lines[i].split()
        if words:
            words[rng.randrange(len(words))] = rng.choice(
                ["(", "]", "R.call_tir", "T.int64(2**70)", "1e999", "x" * 10_000, payload])
            lines[i] = indent + " ".join(words)
    return ("\n".join(lines) + "\n").encode()


def _rewritten(data: bytes, change) -> bytes:
    with tempfile.TemporaryDirectory() as folder:
        src, dst = Path(folder) / "in.pt2", Path(folder) / "out.pt2"
        src.write_bytes(data)
        return pt2_craft.rewrite(dst, change, src).read_bytes()


MUTATIONS = {
    ".tflite": [bit_flips, truncated, tflite_huge_dim],
    ".onnx": [bit_flips, truncated, onnx_huge_dim],
    ".pt2": [bit_flips, truncated, pt2_huge_dim, pt2_weight_meta, pt2_op_args,
             pt2_json_fields],
    ".py": [script_mutant],
}
# The markers a payload of these mutations would create if it ran.
MARKED = {pt2_json_fields, script_mutant}
# Hostile values of the options every front end takes (issue 31: the CLI options too).
OPTIONS = [["--dim", "x=-1"], ["--dim", "x=" + "9" * 30], ["--dim", "=3"],
           ["--time-limit", "-1"], ["--time-limit", "nan"], ["--time-limit", "1e308"],
           ["--budget", "-5"], ["--budget", "9" * 50], ["--target", "no-such-target"],
           ["--target", "/dev/zero"], ["--kernels", "cmsis-nn", "--core", "z80"],
           ["--c-header", "{out}.h", "--plot", "{out}.svg"], ["--json"]]


def cases(suffix: str, count: int, seed: int) -> list[Case]:
    """`count` mutants of the seed files of one format; for .pt2 also the crafted ones."""
    rng = random.Random(seed)
    made = []
    for i in range(count):
        source = rng.choice(SEEDS[suffix])
        mutation = rng.choice(MUTATIONS[suffix])
        data = source.read_bytes()
        if suffix == ".onnx":
            data = static_onnx(data)
        made.append(Case(f"{source.stem}-{mutation.__name__}-{i}", mutation(data, rng),
                         suffix, mutation in MARKED))
    if suffix == ".pt2":
        with tempfile.TemporaryDirectory() as name:
            folder = Path(name)
            marker = Path("MARKER")  # relative: created in the child's working folder
            made += [
                Case("pickled-weight",
                     pt2_craft.with_pickled_weight(folder / "a.pt2", marker).read_bytes(),
                     suffix, True),
                Case("pickled-sample-inputs",
                     pt2_craft.with_pickled_sample_inputs(folder / "b.pt2", marker).read_bytes(),
                     suffix, True),
                Case("deflate-bomb",
                     pt2_craft.with_deflate_bomb(folder / "c.pt2", 64 << 20).read_bytes(), suffix),
            ]
    return made


# The child: plans each case in its own folder (also its working folder, where a payload
# would create MARKER) and reports what happened.
_CHILD = r"""
import contextlib, io, json, os, sys, tempfile
from memplan.cli import main

results = []
for case in json.loads(sys.stdin.read()):
    os.chdir(case["folder"])
    before = sorted(os.listdir("."))
    out, err = io.StringIO(), io.StringIO()
    with tempfile.TemporaryFile() as native:  # what libraries print on the C stderr
        saved = os.dup(2)
        os.dup2(native.fileno(), 2)
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(case["argv"])
        except SystemExit as exited:  # argparse refusing an option: a user sees its code
            code = exited.code
        except BaseException as escaped:  # what would be a traceback for a user
            code = f"escaped {type(escaped).__name__}: {escaped}"
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
        native.seek(0)
        native_text = native.read().decode("utf-8", "replace")
    results.append({"code": code, "stderr": err.getvalue(), "native": native_text,
                    "stdout_tail": out.getvalue()[-200:], "before": before,
                    "after": sorted(os.listdir("."))})
# VmHWM restarts at exec; wait4's ru_maxrss would include the parent's memory at fork.
hwm = next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"results": results, "peak_kib": int(hwm.split()[1])}))
"""


@dataclass(frozen=True)
class Outcome:
    case: str
    argv: tuple[str, ...]
    code: int | str
    stderr: str
    native: str
    changed: bool  # the folder's listing changed
    payload_ran: bool


@dataclass(frozen=True)
class Batch:
    outcomes: list[Outcome]
    crashed: list[tuple[str, tuple[str, ...], int]]  # (case, argv, signal) of a dead child
    peak_rss_kib: int  # the largest child's
    stderr: str  # the children's own stderr (what escaped every capture)


PLAN = ("plan", "{model}", "--summary", "--time-limit", "0")


def run_cases(made: list[Case], folder: Path, variants: list[list[str]],
              one_child_each: bool = False, command: tuple[str, ...] = PLAN) -> Batch:
    """Run `command` (`{model}` the case's file; default: plan it) on every case with each
    extra argument list of `variants` (`{out}` stands for a path in the case's folder) in
    one child process, or one child per run when a run may crash natively (TFLM under
    --check-run)."""
    jobs, labels = [], []
    for case in made:
        for v, extra in enumerate(variants):
            home = folder / f"{case.name}-{v}"
            home.mkdir()
            model = home / f"model{case.suffix}"
            model.write_bytes(case.data)
            out = {".pt2": "out.pte", ".py": "out.so"}.get(case.suffix, "out" + case.suffix)
            argv = [a.replace("{model}", str(model)).replace("{out}", str(home / out))
                    for a in command] + [a.replace("{out}", str(home / out)) for a in extra]
            jobs.append({"folder": str(home), "argv": argv})
            labels.append((case, tuple(argv), home))
    groups = [[i] for i in range(len(jobs))] if one_child_each else [list(range(len(jobs)))]
    outcomes, crashed, peak, errors = [], [], 0, []
    for group in groups:
        results, code, rss, err = _child([jobs[i] for i in group])
        peak = max(peak, rss)
        errors.append(err)
        if code != 0:
            case, argv, _ = labels[group[0]]
            crashed.append((case.name, argv, code))
            continue
        for i, r in zip(group, results, strict=True):
            case, argv, home = labels[i]
            outcomes.append(Outcome(case.name, argv, r["code"], r["stderr"], r["native"],
                                    r["before"] != r["after"], (home / "MARKER").exists()))
    return Batch(outcomes, crashed, peak, "".join(errors))


def _child(jobs: list[dict]) -> tuple[list[dict], int, int, str]:
    """Results, exit status (negative: the signal), peak RSS in KiB (0 when it died), and
    stderr of one child."""
    env = dict(os.environ, PYTHONPATH=str(REPO / "src"))
    with tempfile.TemporaryFile("w+") as stdout, tempfile.TemporaryFile("w+") as stderr:
        child = subprocess.Popen([sys.executable, "-c", _CHILD], stdin=subprocess.PIPE,
                                 stdout=stdout, stderr=stderr, text=True, env=env)
        child.stdin.write(json.dumps(jobs))
        child.stdin.close()
        code = child.wait()
        stdout.seek(0)
        stderr.seek(0)
        text, errors = stdout.read(), stderr.read()
    if code != 0:
        return [], code, 0, errors
    report = json.loads(text)
    return report["results"], code, report["peak_kib"], errors


def failures(outcome: Outcome) -> list[str]:
    """What a run did wrong, by the rules of docs/reliability.md (empty: nothing)."""
    wrong = []
    lines = [line for line in outcome.stderr.strip().splitlines()
             if not line.startswith("memplan: wrote ")]
    if outcome.code not in (0, 1, 2):
        wrong.append(f"exit {outcome.code}")
    if "Traceback" in outcome.stderr or "internal error" in outcome.stderr:
        wrong.append("a traceback or internal error")
    if len(lines) > (0 if outcome.code == 0 else 2):  # exit 1 may add "nothing written to"
        wrong.append(f"{len(lines)} lines on stderr")
    if outcome.native.strip():
        wrong.append("a library printed on the C stderr")
    if outcome.payload_ran:
        wrong.append("THE PAYLOAD RAN")
    if outcome.code != 0 and outcome.changed:
        wrong.append("wrote on failure")
    return wrong
