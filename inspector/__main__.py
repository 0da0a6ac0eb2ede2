"""Entry point for ``python -m inspector``."""

import gc
import sys

from .cli import main

status = main()
# The run's objects go with the process: a last collection at exit would only scan them (and
# what a frozen cycle holds is not freed at all: ``lengths`` keeps its encodings so).
gc.freeze()
sys.exit(status)
