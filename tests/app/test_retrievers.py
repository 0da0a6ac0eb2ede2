"""The retriever choice under AppTest: kept in the link, honoured by Compare, Budget sweep, Import
and the Orphan Test's probe rounds; what this server does not allow is refused with the reason."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from inspector import Workspace, load_corpus
from inspector.review.rounds import ReviewRound, draw
from inspector.views.retrievers import ENV_MODELS
from tests.support.app import app, assert_clean, plain
from tests.support.embedding import write_tiny_model2vec
from tests.support.paths import ROOT, SAMPLE

WORKSPACE = Workspace(load_corpus(ROOT / "sample_corpus"))


@pytest.fixture(autouse=True)
def data_folder(isolated_app, monkeypatch):
    monkeypatch.delenv(ENV_MODELS, raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    return isolated_app


def warnings(at: AppTest) -> list[str]:
    return [plain(w.value) for w in at.warning]


def probe_table(at: AppTest):
    return next(d.value for d in at.dataframe if "answer@5" in d.value.columns and "rank miss" in d.value.columns)


def test_compare_ranks_table_b_with_the_retriever_in_the_link(data_folder):
    at = app({"retriever": "hybrid", "cmp": ["fixed:800", "structured:800"]})
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)
    assert at.selectbox(key="retriever").value == "hybrid"
    assert any("queries, ranked by hybrid" in c.value for c in at.caption)
    hybrid = probe_table(at)
    at.selectbox(key="retriever").set_value("bm25").run()
    assert_clean(at)
    assert "retriever" not in at.query_params
    lexical = probe_table(at)
    assert list(hybrid["answer@5"]) != list(lexical["answer@5"])
    at.selectbox(key="retriever").set_value("dense").run()
    assert at.query_params["retriever"] == "dense"
    assert (data_folder / "embeddings.sqlite3").is_file(), "vectors are kept in the data folder"


@pytest.mark.parametrize(("value", "reason"), [
    ("dense:model2vec:/etc", "this server reads no model folders"),
    ("dense:openai:text-embedding-3-small", "this server calls no embeddings server"),
    ("colbert", "cannot read retriever 'colbert'"),
    ("dense:openai:" + "x" * 2000, "a retriever spec is at most 1000 characters"),
    ("x" * 5000, "more than the 4,096 a setting may have"),
])
def test_a_retriever_the_server_does_not_allow_is_ignored_with_the_reason(value, reason):
    at = app({"retriever": value})
    at.switch_page("app_pages/sweep.py").run()
    assert_clean(at)
    assert any(reason in w for w in warnings(at)), warnings(at)
    assert at.selectbox(key="retriever").value == "bm25"


def test_a_model_folder_under_the_servers_model_roots_is_offered(monkeypatch, tmp_path):
    model = write_tiny_model2vec(tmp_path / "models" / "tiny")
    monkeypatch.setenv(ENV_MODELS, str(tmp_path / "models"))
    spec = f"dense:model2vec:{model}"
    at = app({"retriever": spec})
    at.switch_page("app_pages/sweep.py").run()
    assert_clean(at)
    assert spec in at.selectbox(key="retriever").options or at.selectbox(key="retriever").value == spec
    assert at.query_params["retriever"] == spec
    assert not warnings(at)


def test_compare_says_how_many_chunks_the_embedder_cut_at_its_cap(monkeypatch, tmp_path):
    from inspector.retrieval.onnx_folder import OnnxFolder
    from tests.support.onnx_model import write_tiny_onnx_model

    model = write_tiny_onnx_model(tmp_path / "models" / "tiny", cap=128)
    monkeypatch.setenv(ENV_MODELS, str(tmp_path / "models"))
    monkeypatch.setenv("CHUNK_INSPECTOR_PROCESSES", "0")
    spec = f"dense:onnx:{model}"
    at = app({"retriever": spec, "cmp": ["fixed:200", "fixed:1600"]})
    at.switch_page("app_pages/compare.py").run()
    assert_clean(at)
    said = next(plain(c.value) for c in at.caption if "reads only the start of a chunk" in plain(c.value))
    embedder = OnnxFolder(model)
    counts = {s: sum(embedder.over_cap(WORKSPACE.pool(s).texts())) for s in ("fixed:200", "fixed:1600")}
    assert counts["fixed:1600"] > counts["fixed:200"]
    assert f"fixed 1600 {counts['fixed:1600']:,} of {len(WORKSPACE.pool('fixed:1600').texts()):,}" in said


def test_the_import_page_scores_the_paraphrase_set_with_the_chosen_retriever():
    at = app({"retriever": "dense"})
    at.switch_page("app_pages/import_chunks.py").run()
    at.button(key="golden_paraphrase").click().run()
    assert_clean(at)
    recall = next(d.value for d in at.dataframe if "recall (any quote)" in d.value.columns)
    assert set(recall["questions"]) == {25}
    spans = next(d.value for d in at.dataframe if "span recall" in d.value.columns)
    assert set(spans["retrieved"]) == {"top 5", "2000 o200k", "4000 o200k"}
    assert any("ranked by dense" in c.value for c in at.caption)


def test_an_orphan_round_drawn_from_a_dense_probe_keeps_its_retriever_in_the_link():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["spec"] = "structured:800"
    at.run()
    at.switch_page("app_pages/orphan_test.py").run()
    at.radio(key="orphan_source").set_value("probe").run()
    at.selectbox(key="retriever").set_value("hybrid").run()
    assert_clean(at)
    expected = ReviewRound.create(WORKSPACE, "structured:800", source="probe", retriever="hybrid")
    assert at.query_params["rret"] == "hybrid" and at.query_params["round"] == expected.id
    lexical = ReviewRound.create(WORKSPACE, "structured:800", source="probe")
    assert expected.id != lexical.id
    assert [c.chunk.id for c in draw(expected, WORKSPACE)] != [c.chunk.id for c in draw(lexical, WORKSPACE)]

    colleague = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    colleague.query_params.update({"spec": "structured:800", **expected.to_query_params()})
    colleague.run()
    colleague.switch_page("app_pages/orphan_test.py").run()
    assert_clean(colleague)
    held = " ".join(m.value for m in colleague.sidebar.markdown)  # opened from its link: its settings fixed
    assert "hybrid, top 5" in held and "retriever" not in [s.key for s in colleague.selectbox]
    assert colleague.query_params["round"] == expected.id


QUESTIONS = ("\n".join([
    '{"question": "How long is parental leave?", "retrieved": [{"doc_id": "handbook/parental-leave.md", '
    '"text": "Every eligible parent receives **18 weeks of fully paid parental leave**"}]}',
    '"Which port does the admin listener use?"']) + "\n").encode()


def test_an_orphan_round_drawn_from_the_users_questions_travels_by_link(data_folder):
    from inspector.retrieval.questions import load_questions

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["spec"] = "structured:800"
    at.run()
    at.switch_page("app_pages/orphan_test.py").run()
    at.radio(key="orphan_source").set_value("questions").run()
    assert_clean(at)
    assert any("Upload your questions or a golden set" in i.value for i in at.info)
    golden = (SAMPLE / "golden-paraphrase.csv").read_bytes()
    at.file_uploader(key="orphan_questions_upload").set_value(("golden.csv", golden, "text/csv")).run()
    assert_clean(at)
    assert any("25 questions read from golden.csv" in plain(s.value) for s in at.success)
    assert at.query_params["rq"] == load_questions(golden, name="golden.csv").id
    at.file_uploader(key="orphan_questions_upload").set_value(("mine.jsonl", QUESTIONS, "application/json")).run()
    assert_clean(at)
    asked = load_questions(QUESTIONS, name="mine.jsonl")
    assert (data_folder / "question-sets" / f"{asked.id}.json").is_file()
    assert at.query_params["rfrom"] == "questions" and at.query_params["rq"] == asked.id
    expected = ReviewRound.create(WORKSPACE, "structured:800", source="questions", questions=asked.id)
    assert at.query_params["round"] == expected.id
    assert any("2 questions read from mine.jsonl" in plain(s.value) for s in at.success)

    colleague = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    colleague.query_params.update({"spec": "structured:800", **expected.to_query_params()})
    colleague.run()
    colleague.switch_page("app_pages/orphan_test.py").run()
    assert_clean(colleague)
    assert colleague.query_params["round"] == expected.id

    at.button(key="orphan_theirs").click().run()
    assert_clean(at)
    assert at.query_params["spec"].startswith("imported:")
    assert at.radio(key="orphan_source").value == "sample" and "rq" not in at.query_params
    assert any("Reviewing the chunks your system retrieved" in plain(s.value) for s in at.success)


def test_compare_ranks_chunks_read_late_by_a_model_under_the_roots(monkeypatch, tmp_path):
    from tests.support.onnx_model import write_tiny_onnx_model

    folder = write_tiny_onnx_model(tmp_path / "models" / "tiny", cap=256)
    monkeypatch.setenv(ENV_MODELS, str(tmp_path / "models"))
    late = f"dense:onnx:{folder}|late"
    at = app({"retriever": late, "cmp": ["fixed:800", "structured:800"]})
    at.switch_page("app_pages/compare.py").run(timeout=120)
    assert_clean(at)
    assert at.selectbox(key="retriever").value == late
    assert "dense (onnx tiny, late chunking)" in at.selectbox(key="retriever").options
    table = probe_table(at)
    expected = WORKSPACE.probe("structured:800", retriever=late)
    assert table["answer@5"].iloc[1] == pytest.approx(expected.answer_rate)
