"""Outputs: never an input, all or none, devices and FIFOs written in place (issue 16)."""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from memplan.errors import InputError
from memplan.files import Outputs, write_text

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_no_output_may_be_an_input_by_any_name(tmp_path):
    source = tmp_path / "in.mlir"
    source.write_text("keep")
    target = tmp_path / "t.toml"
    target.write_text("keep too")
    (tmp_path / "link.mlir").symlink_to(source)
    os.link(target, tmp_path / "hard.toml")
    for name in ("in.mlir", "t.toml", "link.mlir", "hard.toml", "./in.mlir"):
        with pytest.raises(InputError, match="refusing to overwrite the input file"):
            Outputs([source, target]).claim(str(tmp_path / name), "IR")
    assert source.read_text() == "keep" and target.read_text() == "keep too"


@pytest.mark.parametrize(("name", "reason"), [
    ("", "an empty path names no file"),
    (".", "is a folder"),
    ("missing/x.csv", "does not exist"),
])
def test_bad_output_paths_are_refused_at_claim(tmp_path, monkeypatch, name, reason):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match=reason):
        Outputs().claim(name, "plan")


def test_the_same_file_twice_is_refused(tmp_path):
    outputs = Outputs()
    outputs.claim(str(tmp_path / "a.csv"), "plan")
    with pytest.raises(InputError, match="names the same file"):
        outputs.claim(f"{tmp_path}/./a.csv", "plot")


def test_all_or_nothing_when_a_writer_fails(tmp_path):
    first, second = tmp_path / "a.csv", tmp_path / "b.svg"
    first.write_text("old")
    outputs = Outputs()
    outputs.claim(first, "plan")
    outputs.claim(second, "plot")
    outputs.provide_text(first, "new")

    def broken(f):
        f.write(b"half")
        raise OSError(28, "No space left on device")

    outputs.provide(second, broken)
    with pytest.raises(InputError, match="No space left on device"):
        outputs.commit(quiet=True)
    assert first.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]


def test_commit_says_where_each_output_went(tmp_path, capsys):
    outputs = Outputs()
    outputs.claim(tmp_path / "a.csv", "plan")
    outputs.claim(tmp_path / "b.csv", "unused")  # claimed, never provided: not written
    outputs.provide_text(tmp_path / "a.csv", "x\n")
    outputs.commit()
    assert capsys.readouterr().err == f"memplan: wrote plan to {tmp_path / 'a.csv'}\n"
    assert not (tmp_path / "b.csv").exists()


def test_existing_mode_kept_and_new_files_honour_the_umask(tmp_path):
    old = tmp_path / "old.csv"
    old.write_text("x")
    old.chmod(0o644)
    mask = os.umask(0o027)
    try:
        write_text(old, "y")
        write_text(tmp_path / "new.csv", "z")
    finally:
        os.umask(mask)
    assert stat.S_IMODE(old.stat().st_mode) == 0o644 and old.read_text() == "y"
    assert stat.S_IMODE((tmp_path / "new.csv").stat().st_mode) == 0o640


def test_symlinks_stay_and_their_target_is_written(tmp_path):
    dangling = tmp_path / "out.csv"
    dangling.symlink_to("real.csv")
    write_text(dangling, "plan")
    assert dangling.is_symlink() and (tmp_path / "real.csv").read_text() == "plan"


def test_char_device_is_written_in_place():
    before = os.stat("/dev/null")
    write_text("/dev/null", "discarded")
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


def test_fifo_is_written_in_place(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    write_text(fifo, "through the pipe")
    reader.join(timeout=10)
    assert received == [b"through the pipe"]
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


# A commit whose second output's writer stops half way until the process is signalled.
_SLOW_COMMIT = """
import sys, time
from memplan.files import Outputs

folder = sys.argv[1]
outputs = Outputs()
outputs.claim(folder + "/a.csv", "plan")
outputs.claim(folder + "/b.csv", "plot")
outputs.provide_text(folder + "/a.csv", "new")

def slow(f):
    f.write(b"half")
    f.flush()
    print("staging", flush=True)
    time.sleep(60)

outputs.provide(folder + "/b.csv", slow)
try:
    outputs.commit()
except KeyboardInterrupt as err:  # what the CLI reports as "interrupted; nothing written"
    print(type(err).__name__, err, file=sys.stderr)
    sys.exit(2)
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_while_staging_removes_the_temporary_files(tmp_path, sig):
    (tmp_path / "a.csv").write_text("old")
    child = subprocess.Popen([sys.executable, "-c", _SLOW_COMMIT, str(tmp_path)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout.readline().strip() == "staging"
    assert len(list(tmp_path.glob(".*.tmp"))) == 2  # both staged, neither in place
    child.send_signal(sig)
    _, err = child.communicate(timeout=30)
    assert child.returncode == 2
    assert err.strip() == f"Terminated {sig.name}"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]
    assert (tmp_path / "a.csv").read_text() == "old"


def test_a_read_only_destination_is_refused(tmp_path):
    dest = tmp_path / "plan.csv"
    dest.write_text("keep")
    dest.chmod(0o444)
    with pytest.raises(InputError, match=r"is read-only \(mode 0444\)"):
        Outputs().claim(dest, "plan")
    assert dest.read_text() == "keep"


def test_stdout_on_a_full_device_is_one_line_and_writes_nothing(tmp_path):
    out = tmp_path / "plan.csv"
    with open("/dev/full", "w") as full:
        done = subprocess.run([sys.executable, "-m", "memplan", "pack",
                               str(EXAMPLES / "mobilenet_blocks.294912.csv"), "--summary",
                               "-o", str(out)], stdout=full, stderr=subprocess.PIPE, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "memplan: cannot write: No space left on device (the device is full); nothing written"]
    assert not out.exists()


def test_a_killed_runs_temporary_file_is_removed_by_the_next_run(tmp_path):
    # Issue 31: SIGKILL while staging leaves the temporary file; its name says whose it is.
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    out = tmp_path / "plan.csv"
    dead = tmp_path / f".plan.csv.memplan-{gone.stdout.strip()}-abc123.tmp"
    alive = tmp_path / f".plan.csv.memplan-{os.getppid()}-def456.tmp"
    other = tmp_path / ".plan.csv.abc.tmp"  # not memplan's name: left alone
    for path in (dead, alive, other):
        path.write_text("partial")
    outputs = Outputs()
    outputs.claim(str(out), "plan")
    outputs.provide_text(str(out), "x\n")
    outputs.commit(quiet=True)
    assert out.read_text() == "x\n"
    assert not dead.exists() and alive.exists() and other.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        [out.name, alive.name, other.name])
