"""Run every benchmark in this folder, one after another."""

import runpy
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

for script in sorted(HERE.glob("bench_*.py")):
    print(f"\n== {script.name}")
    runpy.run_path(str(script), run_name="__main__")
