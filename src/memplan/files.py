"""Outputs are written whole or not at all, together, and never over an input.

A command claims every output path before it starts working (so a bad path is
bad input before anything is computed), provides each output's content as it
is produced, and commits them all at the end of a successful run. Commit
writes every regular file to a temporary file in its own folder first and
moves them into place only when all were written; a character device or FIFO
the user names (`-o /dev/stdout`, a pipe) is written straight, never replaced.
A new file gets the mode the umask allows, an existing one keeps its mode, and
a symlink keeps pointing where it did (its target is written). A read-only
file is refused at claim, as `cp` refuses it without `-f`. SIGTERM and SIGHUP
while staging remove the temporary files (`Terminated`, an interruption like
Ctrl-C); during the final renames they wait until the renames are done.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from .errors import InputError

if TYPE_CHECKING:
    # Loaded where a path is claimed, not by a run that writes no file: pathlib brings
    # urllib.parse and ipaddress (3 ms of every start-up).
    from pathlib import Path

Writer = Callable[[IO[bytes]], None]

# Signals that end a run from outside (`kill`, a closed terminal) besides Ctrl-C.
_ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Terminated(KeyboardInterrupt):
    """SIGTERM or SIGHUP arrived while outputs were staged: handled as Ctrl-C is (the
    temporary files removed, "interrupted; nothing written", exit 2)."""


@dataclass
class _Output:
    given: str  # as the user wrote it, for messages
    real: Path  # where the bytes go (a symlink resolved)
    what: str
    stream: bool  # a character device or FIFO: written straight
    writer: Writer | None = None


class Outputs:
    """The files one run writes: claimed up front, committed together on success."""

    def __init__(self, inputs: Iterable[str | Path] = ()):
        self.inputs = [os.fspath(p) for p in inputs]
        self._outputs: dict[str, _Output] = {}

    def claim(self, path: str | Path | None, what: str, flag: str = "-o") -> None:
        """Check now that `path` can be written and is no input; None claims nothing."""
        if path is None:
            return
        given = str(path)
        if not given:
            raise InputError(flag, f"an empty path names no file for the {what}")
        if given in self._outputs:
            raise InputError(given, f"named twice as an output ({self._outputs[given].what} "
                             f"and {what})")
        real, stream = _destination(given)
        for source in self.inputs:
            if _same_file(real, source):
                named = "" if source == given else f" {source}"
                raise InputError(given, f"refusing to overwrite the input file{named}; "
                                 "choose another path")
        for other in self._outputs.values():
            if _same_file(real, other.real):
                raise InputError(given, f"names the same file as {other.given}")
        self._outputs[given] = _Output(given, real, what, stream)

    def provide(self, path: str | Path | None, writer: Writer, what: str | None = None
                ) -> None:
        """The content of a claimed output, written at commit by `writer(binary_file)`;
        `what` renames it when the run learnt what it is (e.g. the runtime's own output)."""
        if path is None:
            return
        output = self._outputs[str(path)]
        output.writer = writer
        if what is not None:
            output.what = what

    def provide_text(self, path: str | Path | None, text: str) -> None:
        data = text.encode("utf-8")
        self.provide(path, lambda f: f.write(data))

    def abandon(self, reason: str, quiet: bool = False) -> None:
        """The run failed: say on stderr that the claimed outputs were not written, and why."""
        if self._outputs and not quiet:
            names = ", ".join(self._outputs)
            print(f"memplan: nothing written to {names}: {reason}", file=sys.stderr)

    def commit(self, quiet: bool = False) -> list[str]:
        """Write every provided output, all or none; one line per file on stderr."""
        ready = [o for o in self._outputs.values() if o.writer is not None]
        # What the run printed goes out first: stdout on a full device then fails the run
        # before any file changes, instead of after every file was replaced.
        sys.stdout.flush()
        staged: list[tuple[_Output, Path]] = []
        mask = None
        try:
            with _ending_signals_interrupt():
                for out in ready:
                    if not out.stream:
                        _stage(out, staged)
                for out in ready:
                    if out.stream:
                        _write_stream(out)
                mask = _block_ending_signals()
            # From here a signal waits until every rename is done (one between two would
            # leave some outputs new and some old), then does what it did before.
            for out, tmp in staged:
                try:
                    os.replace(tmp, out.real)
                except OSError as err:
                    raise InputError(out.given, f"cannot write output: {err.strerror}") \
                        from None
        finally:
            for _, tmp in staged:
                tmp.unlink(missing_ok=True)
            _unblock(mask)
        lines = [f"memplan: wrote {o.what} to {o.given}" for o in ready]
        if not quiet:
            for line in lines:
                print(line, file=sys.stderr)
        return lines


@contextlib.contextmanager
def _ending_signals_interrupt() -> Iterator[None]:
    """SIGTERM and SIGHUP raise `Terminated` inside the block, so `finally` clauses remove
    what was staged; the previous handlers come back after it. Python runs handlers in
    the main thread only: elsewhere the block changes nothing."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(signum: int, frame: object) -> None:
        raise Terminated(signal.Signals(signum).name)

    previous = {s: signal.signal(s, interrupt) for s in _ENDING_SIGNALS}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def _block_ending_signals() -> set[signal.Signals] | None:
    """Block SIGTERM and SIGHUP; the mask to restore (None off the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        return None
    return signal.pthread_sigmask(signal.SIG_BLOCK, _ENDING_SIGNALS)


def _unblock(mask: set[signal.Signals] | None) -> None:
    if mask is not None:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


@contextlib.contextmanager
def _ending_signals_held() -> Iterator[None]:
    """SIGTERM and SIGHUP wait until the block ends, then arrive as usual."""
    mask = _block_ending_signals()
    try:
        yield
    finally:
        _unblock(mask)


def _destination(given: str) -> tuple[Path, bool]:
    """Where bytes for `given` go, and whether it is a stream written in place."""
    from pathlib import Path

    path = Path(given)
    try:
        info = path.stat()  # follows symlinks
    except FileNotFoundError:
        info = None
    except OSError as err:
        raise InputError(given, f"cannot write output: {err.strerror}") from None
    if info is not None:
        if stat.S_ISDIR(info.st_mode):
            raise InputError(given, "is a folder; name a file to write")
        if stat.S_ISCHR(info.st_mode) or stat.S_ISFIFO(info.st_mode):
            return path, True
        if not stat.S_ISREG(info.st_mode):
            raise InputError(given, "is neither a regular file, a character device nor a FIFO")
        # cp without -f refuses these too; root may write any file, so the mode decides.
        if not info.st_mode & 0o222 or not os.access(path, os.W_OK):
            raise InputError(given, f"is read-only (mode {stat.S_IMODE(info.st_mode):04o}); "
                             "make it writable or remove it first")
    # A symlink (dangling or not) stays; the file it names is the one written.
    real = Path(os.path.realpath(path))
    if not real.parent.is_dir():
        raise InputError(given, f"cannot write output: folder {real.parent} does not exist")
    if not os.access(real.parent, os.W_OK | os.X_OK):
        raise InputError(given, f"cannot write output: folder {real.parent} is not writable")
    return real, False


def _same_file(a: str | Path, b: str | Path) -> bool:
    with contextlib.suppress(OSError):
        return os.path.samefile(a, b)
    return os.path.realpath(a) == os.path.realpath(b)


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _stage(out: _Output, staged: list[tuple[_Output, Path]]) -> None:
    """Write `out` to a temporary file beside its destination, with its final mode; the
    file is in `staged` from the moment it exists, so whoever unwinds removes it.
    A run killed by SIGKILL cannot remove it: its name (`.NAME.memplan-PID-XXXX.tmp`) says
    whose it is, and the next run writing NAME removes those of processes that are gone."""
    assert out.writer is not None
    try:
        mode = stat.S_IMODE(out.real.stat().st_mode)
    except FileNotFoundError:
        mode = 0o666 & ~_umask()
    except OSError as err:
        raise InputError(out.given, f"cannot write output: {err.strerror}") from None
    import tempfile  # with shutil and three compressors: only when there is a file to write

    try:
        _remove_leftovers(out.real)
        with _ending_signals_held():  # no signal between creating the file and listing it
            fd, name = tempfile.mkstemp(dir=out.real.parent, prefix=_temp_prefix(out.real),
                                        suffix=".tmp")
            tmp = out.real.with_name(os.path.basename(name))
            staged.append((out, tmp))
    except OSError as err:
        raise InputError(out.given, f"cannot write output: {err.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            out.writer(f)
        os.chmod(tmp, mode)
    except OSError as err:
        raise InputError(out.given, f"cannot write output: {err.strerror}") from None


def _write_stream(out: _Output) -> None:
    assert out.writer is not None
    try:
        with open(out.real, "wb") as f:
            out.writer(f)
    except OSError as err:
        raise InputError(out.given, f"cannot write output: {err.strerror}") from None


@contextlib.contextmanager
def atomic_output(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path; its bytes go to `path` only if the block succeeds.

    For library callers writing one file; commands use `Outputs`.
    """
    import tempfile
    from pathlib import Path

    with tempfile.TemporaryDirectory(prefix="memplan-") as folder:
        tmp = Path(folder) / Path(path).name
        yield tmp
        outputs = Outputs()
        outputs.claim(path, "output")
        data = tmp.read_bytes()
        outputs.provide(path, lambda f: f.write(data))
        outputs.commit(quiet=True)


def write_text(path: str | Path, text: str) -> None:
    """Write one file whole (see `Outputs` for the rules)."""
    outputs = Outputs()
    outputs.claim(path, "output")
    outputs.provide_text(path, text)
    outputs.commit(quiet=True)


def refuse_overwriting_input(output: str | Path, inputs: list[str | Path]) -> None:
    """An output that names an input would destroy it; say so instead."""
    Outputs(inputs).claim(output, "output")


def _temp_prefix(destination: Path) -> str:
    return f".{destination.name}.memplan-{os.getpid()}-"


def _remove_leftovers(destination: Path) -> None:
    """Remove the temporary files of earlier runs writing `destination` that were killed
    before they could (their process no longer exists)."""
    import glob

    pattern = f".{glob.escape(destination.name)}.memplan-*-*.tmp"
    for leftover in destination.parent.glob(pattern):
        pid = leftover.name[len(destination.name) + 10:].split("-", 1)[0]
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            leftover.unlink(missing_ok=True)
        except OSError:
            pass  # alive, another user's: not ours to remove
