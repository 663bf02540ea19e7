"""`python -m memplan`: the same as the `memplan` command."""

import sys

from .cli import main

sys.exit(main())
