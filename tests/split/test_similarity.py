"""``inspector.split.similarity``: the semantic and cluster chunkers. Their programme against a
brute force and Chroma's own reward, breaks where the meaning changes, atoms kept only when
asked, and the span invariants of every splitter on generated markdown."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import Document, SplitterSpec, analyze, get_length, split_document
from inspector.kinds.cluster import ClusterOptions
from inspector.kinds.semantic import SemanticOptions
from inspector.measure.survival import survival
from inspector.split import similarity
from inspector.split.packing import Piece, Sizer
from inspector.split.similarity import cluster_ends, semantic_groups, sentences
from tests.support.chunks import check_span_invariants
from tests.support.strategies import markdown_document


def _chroma_reward(matrix: np.ndarray, start: int, end: int) -> float:
    """Chroma's reward: the sum of the sub-matrix of similarities less their mean, diagonal zeroed."""
    return float(np.sum(matrix[start:end + 1, start:end + 1]))


def _chroma_matrix(vectors: np.ndarray) -> np.ndarray:
    matrix = vectors @ vectors.T
    matrix = matrix - np.mean(matrix[np.triu_indices(matrix.shape[0], k=1)])
    np.fill_diagonal(matrix, 0)
    return matrix


def _best_by_brute_force(vectors, most, fits):
    """Every segmentation into runs of at most ``most`` pieces that fit, scored by Chroma's reward."""
    n = len(vectors)
    matrix = _chroma_matrix(vectors)
    best = None
    for cuts in itertools.product([False, True], repeat=n - 1):
        ends = [i + 1 for i, cut in enumerate(cuts) if cut] + [n]
        runs = list(zip([0, *ends], ends))
        if any(b - a > most or not fits(a, b) for a, b in runs):
            continue
        score = sum(_chroma_reward(matrix, a, b - 1) for a, b in runs)
        if best is None or score > best[0] + 1e-9:
            best = (score, ends)
    return best


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 9), most=st.integers(1, 5), dims=st.integers(2, 6), seed=st.integers(0, 10_000),
       budget=st.integers(1, 40))
def test_the_programme_finds_the_best_clustering_by_chromas_reward(n, most, dims, seed, budget):
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(n, dims))
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    widths = rng.integers(1, 10, size=n)
    bounds = np.concatenate([[0], np.cumsum(widths)]).tolist()
    pieces = [Piece(a, b) for a, b in zip(bounds, bounds[1:])]
    sizer = Sizer("x" * bounds[-1])
    fits = lambda a, b: b - a == 1 or bounds[b] - bounds[a] <= budget
    ends = cluster_ends(pieces, vectors, budget, most, sizer)
    score, _ = _best_by_brute_force(vectors, most, fits)
    matrix = _chroma_matrix(vectors)
    runs = list(zip([0, *ends], ends))
    assert ends[-1] == n and all(b > a for a, b in runs)
    assert all(b - a <= most and fits(a, b) for a, b in runs), "no chunk over its cap"
    assert sum(_chroma_reward(matrix, a, b - 1) for a, b in runs) == pytest.approx(score, abs=1e-9)


def test_similar_neighbours_cluster_together_and_a_topic_change_separates_them():
    topic = [np.array([1.0, 0.0]), np.array([0.0, 1.0])]
    vectors = np.array([topic[0]] * 3 + [topic[1]] * 3)
    pieces = [Piece(i, i + 1) for i in range(6)]
    assert cluster_ends(pieces, vectors, 100, 4, Sizer("x" * 6)) == [3, 6]


def test_the_semantic_chunker_breaks_where_the_windows_drift_apart():
    text = "Cats purr. Cats nap. Cats hunt. Rates rise. Rates fall. Rates hold. "
    pieces = [Piece(a, b) for a, b in sentences(text, 0, len(text))]
    assert len(pieces) == 6

    def embed(texts):  # a window is "about" cats and rates by how many of each it names
        return np.array([[t.count("Cats"), t.count("Rates")] for t in texts], dtype=float)

    groups = semantic_groups(text, pieces, 80, embed)
    assert [text[g[0].start:g[-1].end] for g in groups] == [text[:text.index("Rates")], text[text.index("Rates"):]]


def test_sentences_end_at_punctuation_before_whitespace_and_tile_the_text():
    text = "One. Two? Three!  Four e.g.x five"
    spans = sentences(text, 0, len(text))
    assert [text[a:b] for a, b in spans] == ["One. ", "Two? ", "Three!  ", "Four e.g.x five"]


FENCE = "```\nfirst(). second(). third().\nfourth(). fifth().\n```\n"
TABLE = "| a | b |\n|---|---|\n| 1. x | 2. y |\n| 3. z | 4. w |\n"


def _cut_everywhere(monkeypatch):
    """An embedder under which the chunkers cut wherever they may: pieces alternate between two
    orthogonal vectors (no two neighbours belong together), windows are far apart at random
    (every gap above the first percentile breaks)."""
    class Alternating:
        def embed(self, texts):
            if texts and texts[0].count(".") > 1:  # the semantic chunker's windows
                return np.random.default_rng(len(texts)).normal(size=(len(texts), 16))
            return np.array([[1.0, 0.0] if i % 2 else [0.0, 1.0] for i in range(len(texts))])

    monkeypatch.setattr(similarity, "similarity_embedder", lambda model: Alternating())


@pytest.mark.parametrize("spec", ["semantic:400;threshold=1", "cluster:400;piece=12"])
def test_atoms_are_cut_by_default_and_kept_whole_with_the_atoms_flag(monkeypatch, spec):
    _cut_everywhere(monkeypatch)
    text = "Intro words here. More words. " * 3 + "\n\n" + FENCE + "\nMiddle. Text.\n\n" + TABLE + "\nEnd. Done.\n"
    doc = Document("d.md", text)
    analysis = analyze(text)
    plain = split_document(doc, spec, analysis)
    kept = split_document(doc, spec.replace(";", "+atoms;", 1), analysis)
    cut = survival(analysis.atoms, [(c.start, c.end) for c in plain.chunks])
    whole = survival(analysis.atoms, [(c.start, c.end) for c in kept.chunks])
    assert cut["code"] == (0, 1) and cut["table"] == (0, 1)
    assert whole["code"] == (1, 1) and whole["table"] == (1, 1)


def test_on_the_sample_the_atoms_flag_keeps_every_fence_and_table_that_fits():
    from inspector.corpus import SAMPLE_CORPUS, load_corpus
    from inspector.measure import Workspace

    workspace = Workspace(load_corpus(SAMPLE_CORPUS).documents)
    plain = workspace.summarize(SplitterSpec.parse("semantic:800"))
    kept = workspace.summarize(SplitterSpec.parse("semantic:800+atoms"))
    assert plain.survival_fit["code"][0] < plain.survival_fit["code"][1]
    for kind in ("code", "table", "row"):
        survived, total = kept.survival_fit[kind]
        assert survived == total, kind


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdown_document(), kind=st.sampled_from(["semantic", "cluster"]), budget=st.integers(8, 300),
       atoms=st.booleans(), path=st.booleans(), threshold=st.integers(0, 99),
       mode=st.sampled_from(["markdown", "seed"]))
def test_similarity_chunks_tile_the_text_within_budget_in_characters(text, kind, budget, atoms, path, threshold, mode):
    options = SemanticOptions(atoms, threshold=threshold) if kind == "semantic" else ClusterOptions(atoms)
    spec = SplitterSpec(kind, budget, heading_prefix=path or None, options=options)
    check_span_invariants(text, spec, split_document(Document("d.md", text), spec, analyze(text, mode)))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdown_document(), kind=st.sampled_from(["semantic", "cluster"]), budget=st.integers(6, 120),
       atoms=st.booleans(), unit=st.sampled_from(["o200k", "cl100k"]))
def test_similarity_chunks_hold_token_budgets_in_real_tokens(text, kind, budget, atoms, unit):
    options = SemanticOptions(atoms) if kind == "semantic" else ClusterOptions(atoms)
    spec = SplitterSpec(kind, budget, unit, options=options)
    check_span_invariants(text, spec, split_document(Document("d.md", text), spec, length=get_length(unit)))


def test_the_same_text_gives_the_same_chunks():
    text = "Alpha beta. Gamma delta. " * 40 + "\n\n" + FENCE + "Epsilon. Zeta eta theta. " * 30
    doc = Document("d.md", text)
    for spec in ("semantic:300", "cluster:300t+atoms"):
        assert split_document(doc, spec).chunks == split_document(doc, spec).chunks
