"""Target descriptions: which memory spaces a target has and what they hold.

Policy lives in data (TOML files), not in code: one file per target, shipped
in `presets/`, or a user file given by path.
"""

from .load import list_presets, load_target, target_of
from .model import Heap, Pool, StackSpace, Target, WorkgroupSpace

__all__ = [
    "Heap", "Pool", "StackSpace", "Target", "WorkgroupSpace", "list_presets", "load_target",
    "target_of",
]
