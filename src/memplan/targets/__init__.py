"""Target descriptions: which memory spaces a target has and what they hold.

Policy lives in data (TOML files), not in code: one file per target, shipped
in `presets/`, or a user file given by path.
"""

from .model import Heap, Pool, StackSpace, Target, WorkgroupSpace
from .load import list_presets, load_target

__all__ = [
    "Heap", "Pool", "StackSpace", "Target", "WorkgroupSpace", "list_presets", "load_target",
]
