"""Where the server keeps what users leave behind: the review store, the chunk sets and the
embedding cache.

One folder, named by ``$CHUNK_INSPECTOR_DATA`` (else ``data/`` in the working folder), so a
team's answers, imported chunk sets and embedded vectors sit side by side and move together.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

#: Environment variable naming the data folder.
ENV_DATA = "CHUNK_INSPECTOR_DATA"
#: The folder used when the variable is unset or empty (relative to the working folder).
DEFAULT_FOLDER = "data"


def data_folder(environ: Mapping[str, str] | None = None) -> Path:
    """``$CHUNK_INSPECTOR_DATA``, else ``data``."""
    environ = os.environ if environ is None else environ
    return Path(environ.get(ENV_DATA) or DEFAULT_FOLDER)
