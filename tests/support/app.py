"""Driving the app under Streamlit's AppTest: open it with a link's parameters, read what it shows."""

from __future__ import annotations

import pathlib
import re

from streamlit.testing.v1 import AppTest

from inspector import Workspace, get_length, load_corpus
from inspector.data_folder import data_folder
from inspector.measure import Services
from inspector.views.first_look import damage
from inspector.views.frames import doc_view
from tests.support.paths import ROOT

SAMPLE = load_corpus(ROOT / "sample_corpus")
FIRST = SAMPLE.documents[0]
#: The document a first look opens on: the one the default splitter cuts most.
OPENED = SAMPLE.by_id(damage(Workspace(SAMPLE), "structured:800").worst)
PAGES = ("app_pages/document.py", "app_pages/compare.py", "app_pages/sweep.py", "app_pages/sizes.py",
         "app_pages/ask.py")
CHARTS = {"app_pages/document.py": 0, "app_pages/compare.py": 2, "app_pages/sweep.py": 2, "app_pages/sizes.py": 1,
          "app_pages/ask.py": 0}
TITLES = {"app_pages/document.py": "Document", "app_pages/compare.py": "Compare splitters",
          "app_pages/sweep.py": "Budget sweep", "app_pages/sizes.py": "Chunk sizes", "app_pages/ask.py": "Ask"}


def app(params: dict | None = None) -> AppTest:
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params.update(params or {})
    return at.run()


def charts(at: AppTest) -> list:
    """Every chart the run drew: plotly's and Vega-Lite's (Compare's)."""
    return [*at.get("plotly_chart"), *at.get("vega_lite_chart")]


def metrics(at: AppTest) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def plain(markdown: str) -> str:
    """Message text with the app's markdown escapes removed."""
    return re.sub(r"\\(.)", r"\1", markdown)


def errors(at: AppTest) -> list[str]:
    return [plain(e.value) for e in at.error]


def warnings(at: AppTest) -> list[str]:
    return [plain(w.value) for w in at.warning]


def drawing(at: AppTest) -> str:
    """The HTML of the overlay (or of the side-by-side lanes)."""
    found = [h.value for h in at.html if 'class="ci-overlay"' in h.value or 'class="ci-lanes"' in h.value]
    assert len(found) == 1
    return found[0]


def assert_clean(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def expected_cuts(spec: str, document=OPENED) -> int:
    """The cut atoms of ``document`` (by default the one a first look opens on) under ``spec`` (an
    llm spec's cuts read from the data folder)."""
    workspace = Workspace(SAMPLE, services=Services.in_folder(data_folder()))
    return len(doc_view(workspace, document, spec, get_length("chars")).cuts)


def write_corpus(folder: pathlib.Path, files: dict[str, bytes]) -> pathlib.Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    return folder
