"""`memplan passes`: the registered passes, each with its one-line summary."""

from __future__ import annotations

import argparse

EXIT_1 = None  # a listing: no budget to break


def add_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("passes", help="list the passes `memplan opt -p` can run",
                            description="List every registered pass with its summary; the "
                            "default pipeline of `memplan opt` is marked.")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..report.table import format_table
    from ..transforms.passes import DEFAULT_PIPELINE, PASSES

    rows = [(name, "yes" if name in DEFAULT_PIPELINE else "", p.summary)
            for name, p in PASSES.items()]
    print(format_table(["pass", "default", "what it does"], rows))
    return 0
