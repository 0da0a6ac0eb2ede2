"""``report --json`` on the bundled corpus, byte for byte, in both atom modes.

The golden files were written by the command line before the library was reorganised into
subpackages; any change to a number, a key or the key order shows up here.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).parent / "golden" / "report"


@pytest.mark.parametrize("mode", ["markdown", "seed"])
def test_report_json_is_byte_identical_to_the_golden_file(mode):
    shown = subprocess.run([sys.executable, "-m", "inspector", "report", "sample_corpus", "--atoms", mode, "--json",
                            "--quiet"], cwd=ROOT, capture_output=True, check=True)
    assert shown.stdout == (GOLDEN / f"sample_corpus_{mode}.json").read_bytes()
