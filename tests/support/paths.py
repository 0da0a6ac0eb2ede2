"""Where the project, the bundled corpus and the golden files are."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "sample_corpus"
GOLDEN = ROOT / "tests" / "golden"
