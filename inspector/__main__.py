"""Entry point for ``python -m inspector``."""

import sys

from .cli import main

sys.exit(main())
