"""An Orphan Test round drawn from what the user's own store answers for their questions: the
store asked itself (questions embedded by the embeddings server the test starts), its answers the
round's pool, the stored text what reviewers read; a round naming a store the server lacks, or
drawn on other chunks, refused with the reason."""

from __future__ import annotations

import pytest

from inspector import Workspace, load_corpus
from inspector.errors import ReviewInputError
from inspector.measure import Services
from inspector.retrieval.questions import load_questions
from inspector.retrieval.ranking import Question
from inspector.retrieval.spending import SpendPolicy
from inspector.review.rounds import ReviewRound, draw
from inspector.stores import parse_store
from inspector.stores.address import StoreCredentials
from inspector.stores.served import ServedStore
from inspector.views.stores import IndexSearch, read_index
from tests.support import stores
from tests.support.embedding import EmbeddingServer
from tests.support.paths import SAMPLE

QUESTIONS = b'{"question": "Which port does replication use?"}\n{"question": "How long is parental leave?"}\n' \
            b'{"question": "What does the on-call rota pay?"}\n'


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    chunks = stores.app_chunks()
    uri = stores.fill_qdrant(tmp_path_factory.mktemp("rounds") / "q", chunks)
    return ServedStore("handbook", parse_store(uri)), chunks


@pytest.fixture
def server():
    with EmbeddingServer(width=stores.WIDTH) as started:
        yield started


@pytest.fixture
def workspace(server, tmp_path):
    return Workspace(load_corpus(SAMPLE), services=Services.in_folder(tmp_path, embeddings_url=server.url))


@pytest.fixture
def search(served, workspace):
    # The server allows the embeddings model a round names; its address is the server's own.
    return IndexSearch([served[0]], StoreCredentials(), SpendPolicy(embed_models=("test-embed",))).on(workspace)


def test_a_round_drawn_from_what_your_index_answers(workspace, served, search):
    asked = load_questions(QUESTIONS, name="mine.jsonl")
    workspace.question_store.put(asked)
    found = read_index(served[0], workspace, StoreCredentials())
    review_round = ReviewRound.create(workspace, found.spec, source="questions", questions=asked.id,
                                      retriever="dense:openai:test-embed", index="handbook", k=3, size=5, seed=1)
    chunks = draw(review_round, workspace, search)
    searcher = search("handbook", found.spec, "dense:openai:test-embed")
    pool = workspace.pool(found.spec)
    answered = searcher.rank([Question.of(q.text) for q in asked.items], pool, 3)
    texts = pool.texts()
    allowed = {texts[j] for top in answered for j in top}
    assert len(chunks) == 5 and {c.text for c in chunks} <= allowed, "every chunk is one the store answered"
    assert {c.text for c in chunks} <= {c.page_content for c in served[1]}, "read exactly as stored"
    assert ReviewRound.from_query_params(review_round.to_query_params()) == review_round
    assert review_round.to_query_params()["rindex"] == "handbook" and "asked of handbook" in review_round.label
    plain = ReviewRound.create(workspace, found.spec, source="questions", questions=asked.id,
                               retriever="dense:openai:test-embed", k=3, size=5, seed=1)
    assert plain.id != review_round.id and "index" not in plain.to_dict()


def test_a_round_asking_an_index_is_refused_when_it_cannot_be(workspace, search):
    asked = load_questions(QUESTIONS, name="mine.jsonl")
    workspace.question_store.put(asked)
    with pytest.raises(ReviewInputError, match="only a round drawn from your questions asks your index"):
        ReviewRound.create(workspace, "structured:800", index="handbook")
    with pytest.raises(ReviewInputError, match="needs the embedder your pipeline uses"):
        ReviewRound.create(workspace, "structured:800", source="questions", questions=asked.id, index="handbook")
    with pytest.raises(ReviewInputError, match="letters, digits"):
        ReviewRound.create(workspace, "structured:800", source="questions", questions=asked.id, index="../x",
                           retriever="dense")
    other = ReviewRound.create(workspace, "structured:800", source="questions", questions=asked.id,
                               retriever="dense:openai:test-embed", index="handbook")
    with pytest.raises(ReviewInputError, match=r"the round's chunks are structured:800, not handbook's"):
        draw(other, workspace, search)
    missing = ReviewRound.create(workspace, "structured:800", source="questions", questions=asked.id,
                                 retriever="dense:openai:test-embed", index="elsewhere")
    with pytest.raises(ReviewInputError, match="no index named 'elsewhere'"):
        draw(missing, workspace, search)
    unallowed = ReviewRound.create(workspace, "structured:800", source="questions", questions=asked.id,
                                   retriever="dense:openai:their-model", index="handbook")
    with pytest.raises(ReviewInputError, match="their-model"):
        draw(unallowed, workspace, search)
    with pytest.raises(ReviewInputError, match="this server offers no index"):
        draw(missing, workspace)


def test_a_golden_set_is_a_question_file_for_a_round_on_your_index(workspace, served, search, server):
    golden = load_questions(SAMPLE / "golden-paraphrase.csv")
    assert len(golden.items) == 25 and not golden.problems, "both golden formats read as questions"
    workspace.question_store.put(golden)
    found = read_index(served[0], workspace, StoreCredentials())
    review_round = ReviewRound.create(workspace, found.spec, source="questions", questions=golden.id,
                                      retriever="dense:openai:test-embed", index="handbook", k=2, size=10)
    chunks = draw(review_round, workspace, search)
    assert len(chunks) == 10 and server.requests[-1]["input"] == [q.text for q in golden.items]
