"""``inspector.retrieval.vectors``: each text embedded once, on disk between runs and processes."""

from __future__ import annotations

import multiprocessing
import os
import sqlite3

import numpy as np
import pytest

from inspector.retrieval.ranking import DenseRetriever, Question
from inspector.retrieval.retriever_spec import RetrieverSpec
from inspector.retrieval.vectors import STORE_NAME, Vectors, VectorStore, digest_of, open_store
from tests.support.at_once import at_once
from tests.support.embedding import CountingEmbedder


def test_vectors_are_unit_length_and_each_text_is_embedded_once():
    embedder = CountingEmbedder()
    vectors = Vectors(embedder)
    out = vectors.of(["alpha", "beta", "alpha"])
    assert out.shape == (3, 8) and np.allclose(np.linalg.norm(out, axis=1), 1.0)
    assert np.array_equal(out[0], out[2])
    assert embedder.texts == ["alpha", "beta"]
    vectors.of(["beta", "gamma"])
    assert embedder.texts == ["alpha", "beta", "gamma"] and vectors.embedded == 3
    assert vectors.of([]).shape == (0, 8)


def test_a_zero_vector_stays_zero():
    class Zero(CountingEmbedder):
        def embed(self, texts):
            return np.zeros((len(texts), 4), dtype=np.float32)

    assert not Vectors(Zero()).of(["x"]).any()


def test_a_second_run_embeds_nothing_it_has_seen(tmp_path, sample_markdown):
    pool = sample_markdown.pool("structured:800")
    first = CountingEmbedder()
    store, warning = open_store(tmp_path)
    assert warning == "" and (tmp_path / STORE_NAME).is_file()
    DenseRetriever(RetrieverSpec.parse("dense"), Vectors(first, store)).rank([Question.of("ports")], pool, 5)
    assert len(first.texts) == len(set(pool.texts())) + 1

    again = CountingEmbedder()
    retriever = DenseRetriever(RetrieverSpec.parse("dense"), Vectors(again, open_store(tmp_path)[0]))
    retriever.rank([Question.of("ports")], pool, 5)
    assert again.texts == [], "chunks and the question come from the store"

    resplit = sample_markdown.pool("structured:600")
    retriever.rank([Question.of("ports")], resplit, 5)
    new = set(resplit.texts()) - set(pool.texts())
    assert set(again.texts) == new and len(again.texts) == len(new), "a re-split embeds only its new chunks"


def test_the_cache_keys_by_model_and_by_exactly_what_was_embedded(tmp_path):
    store = VectorStore(tmp_path / STORE_NAME)
    Vectors(CountingEmbedder("model/a"), store).of(["Ports > Admin\n\nport 7440", "port 7440"])
    other_model = CountingEmbedder("model/b")
    Vectors(other_model, store).of(["port 7440"])
    assert other_model.texts == ["port 7440"]
    assert store.count("model/a") == 2 and store.count("model/b") == 1 and store.count() == 3
    assert digest_of("a\udc80") != digest_of("a"), "lone surrogates are texts too"


def test_rows_of_another_width_are_not_mistaken_for_this_models(tmp_path):
    store = VectorStore(tmp_path / STORE_NAME)
    store.put("m", [(digest_of("x"), np.ones(4, dtype=np.float32))])
    narrow = Vectors(CountingEmbedder("m", width=8), store)
    narrow.of(["y"])  # learns the width 8 from its own embedding
    assert narrow.of(["x"]).shape == (1, 8)


def _embed_in_a_process(folder, texts, queue):
    store, _ = open_store(folder)
    embedder = CountingEmbedder()
    for _ in range(3):
        Vectors(embedder, store).of(texts)
    queue.put(len(embedder.texts))


def test_processes_share_the_store_at_the_same_time(tmp_path):
    texts = [f"text {i}" for i in range(3000)]
    context = multiprocessing.get_context("spawn")
    queue = context.Queue()
    workers = [context.Process(target=_embed_in_a_process, args=(tmp_path, texts[i * 1000:i * 1000 + 2000], queue))
               for i in range(2)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert [w.exitcode for w in workers] == [0, 0]
    embedded = [queue.get(timeout=5) for _ in workers]
    assert all(e <= 2000 for e in embedded), "each process embeds its texts once, however often it asks"
    assert VectorStore(tmp_path / STORE_NAME).count() == 3000


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes through read-only permissions")
def test_a_folder_that_cannot_hold_the_store_leaves_vectors_in_memory(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        store, warning = open_store(locked)
    finally:
        locked.chmod(0o700)
    assert store is None and "kept in memory only" in warning


def test_a_damaged_store_is_reported_and_vectors_stay_in_memory(tmp_path):
    (tmp_path / STORE_NAME).write_bytes(b"this is not a database" * 100)
    store, warning = open_store(tmp_path)
    assert store is None and STORE_NAME in warning and "kept in memory only" in warning
    vectors = Vectors(CountingEmbedder(), store, warning)
    assert vectors.of(["x"]).shape == (1, 8) and vectors.warning == warning


def test_a_file_where_the_folder_should_be_is_reported(tmp_path):
    (tmp_path / "data").write_text("a file")
    store, warning = open_store(tmp_path / "data")
    assert store is None and "could not be opened" in warning


def test_a_store_that_fails_to_write_says_so_and_keeps_the_vectors(tmp_path):
    store = VectorStore(tmp_path / STORE_NAME)

    def refuse(model, items):
        raise sqlite3.OperationalError("disk I/O error")

    store.put = refuse
    vectors = Vectors(CountingEmbedder(), store)
    assert vectors.of(["a", "b"]).shape == (2, 8)
    assert "could not be written" in vectors.warning and vectors.store is None


def test_processes_opening_a_new_store_at_once_all_keep_it(tmp_path):
    """Changing the journal mode does not wait out another process's lock: before it was waited
    for, about one open in ten of four at once fell back to memory."""
    warnings = at_once(lambda round_, _: tmp_path / str(round_), lambda folder: open_store(folder)[1], [0, 1, 2, 3], 12)
    assert warnings == [""] * 48


class _Broken(CountingEmbedder):
    """Answers ``damage(rows)`` to the first call, then as a healthy model would."""

    def __init__(self, damage) -> None:
        super().__init__()
        self.damage = damage

    def embed(self, texts):
        rows = super().embed(texts)
        damage, self.damage = self.damage, None
        return damage(rows) if damage else rows


def _nan(rows):
    rows[0, 3] = np.nan
    return rows


@pytest.mark.parametrize(("damage", "reason"), [
    (_nan, "holding nan"),
    (lambda rows: np.full_like(rows, np.inf), "holding inf"),
    (lambda rows: rows[:, :5], "5 dimensions where it gave 8 before"),
    (lambda rows: rows[:1], r"answered \(1, 8\) for 2 texts"),
    (lambda rows: np.zeros((2, 9_000), dtype=np.float32), "9,000 dimensions"),
])
def test_a_damaged_answer_is_refused_and_never_kept_so_the_fixed_model_gives_the_right_vectors(tmp_path, damage,
                                                                                             reason):
    from inspector.errors import EmbeddingServiceError

    store = VectorStore(tmp_path / STORE_NAME)
    healthy = Vectors(CountingEmbedder()).of(["alpha", "beta"])
    vectors = Vectors(_Broken(None), store)
    if "before" in reason:
        vectors.of(["gamma"])  # the model's width, seen once
    vectors.embedder.damage = damage
    with pytest.raises(EmbeddingServiceError, match=reason):
        vectors.of(["alpha", "beta"])
    assert store.count() == (1 if "before" in reason else 0)
    again = Vectors(vectors.embedder, VectorStore(tmp_path / STORE_NAME))  # the server fixed, a new run
    assert np.array_equal(again.of(["alpha", "beta"]), healthy)


def _embed_counting(folder, texts):
    store, _ = open_store(folder)
    embedder = CountingEmbedder()
    vectors = Vectors(embedder, store).of(texts)
    return len(embedder.texts), vectors.tobytes()


def test_sessions_asking_for_the_same_texts_at_once_embed_each_text_once(tmp_path):
    # Four processes released together on the same 2,000 texts (four batches each): one queue,
    # so each text is embedded by one of them and read by the others, in every round.
    texts = [f"chunk {i} of a corpus" for i in range(2000)]
    for round_ in range(3):
        folder = tmp_path / str(round_)
        results = at_once(lambda r, argument: argument, lambda folder: _embed_counting(folder, texts),
                          [folder] * 4, rounds=1)
        assert sum(embedded for embedded, _ in results) == len(texts), "every text embedded once, by one session"
        assert len({vectors for _, vectors in results}) == 1
        assert VectorStore(folder / STORE_NAME).count() == len(texts)


class _Interleaved:
    """A connection that lets ``between`` run once, right after its first lookup query: another
    session keeping a batch while this one is halfway through its queries."""

    def __init__(self, real, between) -> None:
        self.real, self.between = real, between

    def execute(self, sql, *args):
        answer = self.real.execute(sql, *args)
        if sql.lstrip().startswith("SELECT digest") and self.between is not None:
            between, self.between = self.between, None
            between()
        return answer

    def __getattr__(self, name):
        return getattr(self.real, name)


def test_a_lookup_sees_a_batch_another_session_keeps_meanwhile_whole_or_not_at_all(tmp_path, monkeypatch):
    # Texts left to embed must fall into the batches the other sessions lock: a lookup seeing part
    # of a batch (its first queries before the batch was kept, the rest after) would embed the
    # other part again.
    monkeypatch.setattr("inspector.retrieval.vectors._LOOKUP", 4)
    digests = [digest_of(f"text {i}") for i in range(10)]
    other = VectorStore(tmp_path / STORE_NAME)
    other.count()  # its connection opened before the lookup's is made
    batch = [(d, np.full(3, 0.5, dtype=np.float32)) for d in digests]
    connect = sqlite3.connect
    monkeypatch.setattr(sqlite3, "connect", lambda *a, **k: _Interleaved(connect(*a, **k),
                                                                          lambda: other.put("m", batch)))
    found = VectorStore(tmp_path / STORE_NAME).get("m", digests, None)
    assert len(found) in (0, len(digests)), f"{len(found)} of the batch's {len(digests)} vectors seen"
    assert len(other.get("m", digests, None)) == len(digests), "the other session kept the whole batch"


class _Slow(CountingEmbedder):
    def embed(self, texts):
        import time

        time.sleep(0.05)  # long enough for the other session to find this batch taken
        return super().embed(texts)


def _embed_slowly(folder, texts):
    store, _ = open_store(folder)
    embedder = _Slow()
    Vectors(embedder, store).of(texts)
    return len(embedder.texts)


def test_a_session_finding_a_batch_taken_embeds_another_meanwhile(tmp_path):
    texts = [f"passage {i}" for i in range(8 * 512)]  # eight batches
    embedded = at_once(lambda r, argument: argument, lambda folder: _embed_slowly(folder, texts),
                       [tmp_path] * 2, rounds=1)
    assert sum(embedded) == len(texts), "none embedded twice"
    assert min(embedded) >= 512, f"both sessions did part of the work: {embedded}"
