"""`memplan check KERNELS.py --target T`: the TIR stack policy of a TVMScript module."""

from __future__ import annotations

import argparse


def run(args: argparse.Namespace) -> int:
    from .. import api
    from ..errors import InputError
    from ..report.json_text import dumps_indented

    if getattr(args, "dump", False):
        raise InputError(args.file, "--dump reads MLIR pass dumps, not TVMScript")
    check = api.check_kernels(args.file, args.target)
    print(dumps_indented(check.to_json()) if args.json else check.format())
    return 1 if check.errors else 0
