"""`memplan targets [NAME]`: the shipped target descriptions."""

from __future__ import annotations

import argparse
import json

EXIT_1 = None  # a listing: no budget to break


def add_command(commands: argparse._SubParsersAction) -> None:
    p = commands.add_parser("targets", help="list target descriptions or show one",
                            description="List the shipped target descriptions, or show one "
                            "(a preset name or a .toml file) in detail.")
    p.add_argument("target", nargs="?", help="preset name or path to a target .toml file")
    p.add_argument("--json", action="store_true", help="print JSON instead of text")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from ..report.target_report import format_target, format_target_list, target_json
    from ..targets import list_presets, load_target

    targets = [load_target(args.target)] if args.target else [
        load_target(name) for name in list_presets()]
    if args.json:
        print(json.dumps([target_json(t) for t in targets], indent=2))
    elif args.target:
        print(format_target(targets[0]), end="")
    else:
        print(format_target_list(targets), end="")
    return 0
