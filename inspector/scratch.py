"""Temporary folders a process keeps for its whole life and removes when it exits.

The app's server writes each corpus it opens (a pickle as large as the corpus) and each uploaded
tokenizer to files its worker processes read, and a process that converts files talks to its
conversion host through a socket in a folder of its own; left behind, every start would add them
to the machine's temporary folder for good.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile


def scratch_folder(prefix: str) -> str:
    """A new folder in the temporary folder, removed when this process exits normally (a server
    stopped by SIGTERM or SIGINT does), not when a process forked from it does."""
    folder = tempfile.mkdtemp(prefix=prefix)
    atexit.register(remove_owned, folder, os.getpid())
    return folder


def remove_owned(folder: str, owner: int) -> None:
    """Remove ``folder`` if this is the process ``owner`` that made it: a forked worker ending
    leaves its parent's folder alone."""
    if os.getpid() == owner:
        shutil.rmtree(folder, ignore_errors=True)
