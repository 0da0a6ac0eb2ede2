"""A process's scratch folders are removed when it exits, not when a process it forked does."""

from __future__ import annotations

import os
import subprocess
import sys

from tests.support.paths import ROOT

SCRIPT = """
import os, sys
from pathlib import Path
from inspector.scratch import scratch_folder

folder = Path(scratch_folder("chunk-inspector-test-"))
(folder / "corpus.pickle").write_bytes(b"x" * 1000)
child = os.fork()
if child == 0:
    sys.exit(0)  # a forked process ending as Python does: through the exit handlers it inherited
os.waitpid(child, 0)
print(folder, (folder / "corpus.pickle").exists(), flush=True)
"""


def test_a_scratch_folder_outlives_a_forked_child_and_goes_with_its_process(tmp_path):
    shown = subprocess.run([sys.executable, "-c", SCRIPT], cwd=ROOT, capture_output=True, text=True, timeout=60,
                           env=dict(os.environ, TMPDIR=str(tmp_path)))
    assert shown.returncode == 0, shown.stderr
    folder, kept = shown.stdout.split()
    assert folder.startswith(str(tmp_path)) and kept == "True", "the forked child's exit left it alone"
    assert list(tmp_path.iterdir()) == [], "the process's exit removed it"
