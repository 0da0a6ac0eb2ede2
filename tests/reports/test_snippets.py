"""``inspector.integrations.snippets``: every snippet runs, in a subprocess against
``sample_corpus/``, and gives the chunks the page shows."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from inspector.reports.snippets import snippets_for
from tests.support.paths import ROOT

pytest.importorskip("langchain_text_splitters")
pytest.importorskip("chonkie")
pytest.importorskip("llama_index.core")
SPEC = "structured:800+address"


def run(code: str, data) -> str:
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "CHUNK_INSPECTOR_DATA": str(data)})
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_each_snippet_gives_the_chunks_of_the_view(sample_markdown, isolated_app):
    ours = sample_markdown.chunks(SPEC)
    found = {s.title.split(" (")[0].split(",")[0]: s for s in snippets_for(SPEC, "sample_corpus", floors={"code": 0.5})}
    assert set(found) == {"Python", "LangChain", "LlamaIndex", "Chonkie",
                          "Command line: the chunks as JSONL"}
    python = run(found["Python"].code, isolated_app).splitlines()
    assert [line.split()[0] for line in python] == [c.id for c in ours]
    langchain = run(found["LangChain"].code, isolated_app).splitlines()
    assert [line.split() for line in langchain] == [[c.id, str(c.start), str(c.end)] for c in ours]
    llamaindex = run(found["LlamaIndex"].code, isolated_app).splitlines()
    assert [line.split() for line in llamaindex] == [[c.id, str(c.start), str(c.end)] for c in ours]
    chonkie = run(found["Chonkie"].code, isolated_app).splitlines()
    assert [line.split()[:3] for line in chonkie] == [[c.doc_id, str(c.start), str(c.end)] for c in ours]
    export, check = found["Command line: the chunks as JSONL"].code.splitlines()
    assert check.endswith("--min code=0.5")
    done = subprocess.run(export.replace("-o chunks.jsonl", "").split(), cwd=ROOT, capture_output=True, text=True,
                          env={"PATH": f"{sys.prefix}/bin:/usr/bin:/bin", "CHUNK_INSPECTOR_DATA": str(isolated_app)})
    assert [json.loads(line)["chunk_id"] for line in done.stdout.splitlines()] == [c.id for c in ours]


def test_chunks_made_elsewhere_get_only_the_library_and_command_line_snippets():
    titles = [s.title for s in snippets_for("imported:0123456789abcdef", "docs")]
    assert titles[0].startswith("Python") and titles[-1].startswith("Command line") and len(titles) == 2
    (seed,) = [s for s in snippets_for("fixed:800", "my docs", mode="seed") if s.language == "bash"]
    assert "'my docs'" in seed.code and "--atoms seed" in seed.code


def test_the_check_floors_are_the_survival_now_rounded_down(sample_markdown):
    from inspector.reports.snippets import check_floors

    summary = sample_markdown.summarize("fixed:800")
    floors = check_floors(summary)
    assert set(floors) <= {"code", "table", "row", "num", "cite"} and floors
    for kind, floor in floors.items():
        assert floor <= summary.kept(kind) < floor + 0.01
