"""What a runtime's native code prints on the C stderr, kept from the user's terminal.

TFLM's interpreter and TVM's C++ destructors write with C stdio on file descriptor 2,
which `sys.stderr` redirection never sees: every runtime folder that calls such code
captures the descriptor with `captured_stderr`.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator


@contextlib.contextmanager
def captured_stderr() -> Iterator[list[str]]:
    """Redirect descriptor 2 to a temporary file for the block; the list gets its text
    (one string) when the block ends."""
    text: list[str] = []
    with tempfile.TemporaryFile() as sink:
        saved = os.dup(2)
        os.dup2(sink.fileno(), 2)
        try:
            yield text
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            text.append(sink.read().decode("utf-8", "replace"))
