"""``inspector.retrieval.onnx_folder``: a sentence-transformers folder exported to ONNX, pooled
and normalised as its folder says, cut at its cap and counted, on a tiny model built here."""

from __future__ import annotations

import numpy as np
import pytest

from inspector.errors import RetrieverError
from inspector.retrieval.onnx_folder import OnnxFolder
from inspector.retrieval.opening import embedder_of
from inspector.retrieval.retriever_spec import parse_retriever
from inspector.views.retrievers import ENV_MODELS, checked_retriever, retriever_choices
from tests.support.onnx_model import TABLE, VOCAB, write_tiny_onnx_model


def rows(*words: str) -> np.ndarray:
    return TABLE[[VOCAB[w] for w in ("[CLS]", *words, "[SEP]")]]


def unit(vector: np.ndarray) -> np.ndarray:
    return vector / np.linalg.norm(vector)


def test_mean_pooling_counts_the_real_tokens_only(tmp_path):
    model = OnnxFolder(write_tiny_onnx_model(tmp_path / "m"))
    short, long = model.embed(["alpha beta", "gamma delta alpha beta gamma"])
    np.testing.assert_allclose(short, unit(rows("alpha", "beta").mean(0)), rtol=1e-6)
    np.testing.assert_allclose(long, unit(rows("gamma", "delta", "alpha", "beta", "gamma").mean(0)), rtol=1e-6)
    np.testing.assert_allclose(model.embed(["alpha beta"])[0], short, rtol=1e-6)  # no padding to pay for
    assert model.truncated == 0


@pytest.mark.parametrize(("pooling", "expected"), [
    ("cls", lambda r: r[0]),
    ("max", lambda r: r.max(0)),
])
def test_cls_and_max_pooling_as_the_folder_says(tmp_path, pooling, expected):
    model = OnnxFolder(write_tiny_onnx_model(tmp_path / pooling, pooling=pooling, graph="model.onnx"))
    np.testing.assert_allclose(model.embed(["delta gamma"])[0], unit(expected(rows("delta", "gamma"))), rtol=1e-6)


def test_without_a_normalize_module_the_vectors_stay_as_pooled(tmp_path):
    model = OnnxFolder(write_tiny_onnx_model(tmp_path / "raw", normalise=False))
    np.testing.assert_allclose(model.embed(["beta"])[0], rows("beta").mean(0), rtol=1e-6)
    assert "raw" in model.model_id and model.model_id != OnnxFolder(write_tiny_onnx_model(tmp_path / "n")).model_id


def test_a_text_over_the_cap_is_cut_keeping_its_closing_token_and_counted(tmp_path):
    model = OnnxFolder(write_tiny_onnx_model(tmp_path / "m", cap=4))
    cut, fits = model.embed(["alpha beta gamma delta", "alpha beta"])
    np.testing.assert_allclose(cut, fits, rtol=1e-6)  # [CLS] alpha beta [SEP]: the rest is not read
    assert model.truncated == 1


def test_a_folder_that_is_not_an_onnx_model_is_refused_with_the_reason(tmp_path):
    (tmp_path / "empty").mkdir()
    with pytest.raises(RetrieverError, match="needs tokenizer.json and one of model.onnx, onnx/model.onnx"):
        OnnxFolder(tmp_path / "empty")
    with pytest.raises(RetrieverError, match="no model folder"):
        OnnxFolder(tmp_path / "missing")
    folder = write_tiny_onnx_model(tmp_path / "bad")
    (folder / "onnx" / "model.onnx").write_bytes(b"not a graph")
    with pytest.raises(RetrieverError, match="could not be loaded"):
        OnnxFolder(folder)


def test_dense_onnx_names_a_folder_and_pages_read_it_only_under_the_model_roots(tmp_path):
    folder = write_tiny_onnx_model(tmp_path / "models" / "tiny")
    spec = parse_retriever(f"hybrid:dense:onnx:{folder}")
    assert (spec.embedder, spec.model, str(spec)) == ("onnx", str(folder), f"hybrid:dense:onnx:{folder}")
    assert isinstance(embedder_of(spec), OnnxFolder)
    environ = {ENV_MODELS: str(tmp_path / "models")}
    assert retriever_choices(environ)[3:] == [f"dense:onnx:{folder}", f"hybrid:dense:onnx:{folder}",
                                              f"dense:onnx:{folder}|late"]
    with pytest.raises(RetrieverError, match="reads no model folders"):
        checked_retriever(f"dense:onnx:{folder}", {})
    with pytest.raises(RetrieverError, match="onnx needs a model: dense:onnx:PATH"):
        parse_retriever("dense:onnx")


def test_the_report_says_how_many_chunks_the_embedder_cut_at_its_cap(tmp_path):
    from inspector import Workspace, load_corpus
    from inspector.reports import build_report, format_report
    from tests.support.paths import SAMPLE

    workspace = Workspace(list(load_corpus(SAMPLE).documents[:4]))
    capped = write_tiny_onnx_model(tmp_path / "capped", cap=64)
    report = build_report(workspace, retriever=f"dense:onnx:{capped}", specs=["fixed:200", "fixed:800"])
    cut = report["cut_at_cap"]
    assert cut["cap"] == 64 and cut["model"].startswith("onnx/")
    counts = {spec: tuple(pair) for spec, pair in cut["chunks"].items()}
    texts = {spec: workspace.pool(spec).texts() for spec in ("fixed:200", "fixed:800")}
    model = OnnxFolder(capped)
    assert counts == {spec: (sum(model.over_cap(t)), len(t)) for spec, t in texts.items()}
    assert counts["fixed:800"][0] > counts["fixed:200"][0]  # longer chunks, more of them cut
    said = next(line for line in format_report(report).splitlines() if "reads at most 64 tokens" in line)
    assert f"fixed:800 {counts['fixed:800'][0]}/{counts['fixed:800'][1]}" in said
    roomy = write_tiny_onnx_model(tmp_path / "roomy", cap=100_000)
    assert not any(over for over, _ in build_report(workspace, retriever=f"dense:onnx:{roomy}",
                                                    specs=["fixed:800"])["cut_at_cap"]["chunks"].values())
    assert "cut_at_cap" not in build_report(workspace, specs=["fixed:800"])
