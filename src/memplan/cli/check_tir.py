"""`memplan check KERNELS.py --target T`: the TIR stack policy of a TVMScript module."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from .. import api
    from ..errors import InputError
    from ..report.json_text import dumps_indented
    from .check import _print_diagnostics as print_diagnostics

    if getattr(args, "dump", False):
        raise InputError(args.file, "--dump reads MLIR pass dumps, not TVMScript")
    check = api.check_kernels(args.file, args.target)
    if args.json:  # the diagnostics are in the document
        print(dumps_indented(check.to_json()))
    else:
        print(check.format())
        print_diagnostics(check.format_diagnostics())
    return 1 if check.errors else 0
