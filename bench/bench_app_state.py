"""Time the app's script runs as the server performs them (AppTest runs of app.py, no browser).

Run: ``python bench/bench_app_state.py [rounds]``. Reports, best of ``rounds`` where repeated:

* the first run of a session (sample corpus read, one document's atoms, the overlay),
* a rerun after the budget changes on the Document page (what a user waits for while
  dragging the budget; target 500 ms on a 2-core machine),
* the Compare page's first open (seven splitters over the whole corpus) and a reopen (cached),
* ``AppState`` parsed from and written back to the URL (target 1 ms).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from streamlit.testing.v1 import AppTest  # noqa: E402

from inspector.views.state import AppState  # noqa: E402

RERUN_TARGET_S = 0.5
STATE_TARGET_S = 0.001


def _timed(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def main(rounds: int = 3) -> None:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=120)
    print(f"first run (cold)            {_timed(at.run):7.2f} s")
    reruns = []
    for budget in (400, 600, 1000)[:rounds]:
        at.number_input(key="budget").set_value(budget)
        reruns.append(_timed(at.run))
    best = min(reruns)
    assert at.query_params["spec"] == f"structured:{budget}" and not at.exception, "the rerun did not happen"
    print(f"rerun after budget change   {best:7.2f} s  (target {RERUN_TARGET_S} s: "
          f"{'met' if best <= RERUN_TARGET_S else 'MISSED'})")
    at.switch_page("app_pages/compare.py")
    print(f"compare page, first open    {_timed(at.run):7.2f} s")
    assert len(at.dataframe) == 2 and not at.exception, "the Compare page did not draw its tables"
    print(f"compare page, reopen        {min(_timed(at.run) for _ in range(rounds)):7.2f} s")
    params = AppState(kind="fixed", budget=800, overlap=120, compare=("fixed:400", "heading:512")).to_query_params()
    start = time.perf_counter()
    for _ in range(1000):
        AppState.from_query_params(params)[0].to_query_params()
    per_call = (time.perf_counter() - start) / 1000
    print(f"URL state round trip        {per_call * 1e3:7.3f} ms (target {STATE_TARGET_S * 1e3:.0f} ms: "
          f"{'met' if per_call <= STATE_TARGET_S else 'MISSED'})")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 3)
