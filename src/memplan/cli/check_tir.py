"""`memplan check KERNELS.py --target T`: the TIR stack policy of a TVMScript module."""

from __future__ import annotations

import argparse
from pathlib import Path


def run(args: argparse.Namespace) -> int:
    from ..errors import InputError
    from ..report.json_text import dumps_indented
    from ..report.tir_report import format_tir_check, tir_check_json
    from ..targets import load_target
    from ..tvm.frame_check import check_tir

    if getattr(args, "dump", False):
        raise InputError(args.file, "--dump reads MLIR pass dumps, not TVMScript")
    try:
        text = Path(args.file).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise InputError(args.file, f"cannot read: {err}") from None
    check = check_tir(args.file, text, load_target(args.target))
    print(dumps_indented(tir_check_json(check)) if args.json else format_tir_check(check))
    return 1 if any(d.is_error for d in check.diagnostics) else 0
