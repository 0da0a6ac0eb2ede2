"""``inspector.split.llm`` and ``context.splits``: the llm chunker replays kept answers, reads
what a model answers, bounds what a run sends, keeps atoms only when asked, and holds the span
invariants of every splitter whatever the model answers."""

from __future__ import annotations

import pickle

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector import Document, SplitterSpec, analyze, get_length, split_document
from inspector.context.splits import plan_splits, write_splits
from inspector.context.writer import ChatEndpoint
from inspector.data_folder import data_folder, document_hash
from inspector.errors import ContextLineError, SpecError
from inspector.kinds.llm import LlmOptions
from inspector.measure.survival import survival
from inspector.split.answers import SplitAnswers
from inspector.split.llm import TAIL, SplitAnswersMissing, cuts_in, document_run, next_first
from tests.support.chat import ChatServer
from tests.support.chunks import check_span_invariants
from tests.support.strategies import markdown_document


@pytest.fixture(autouse=True)
def data(isolated_app):
    return isolated_app


def test_the_spec_names_its_model_once_and_refuses_what_the_chunker_does_not_take():
    spec = SplitterSpec.parse("llm:400t+atoms;llm=gpt-4o-mini;piece=25")
    assert spec.options == LlmOptions(atoms=True, model="gpt-4o-mini", piece=25) and spec.context_model == ""
    assert spec.options.piece_size(spec) == 25 and spec.options.answered_by == "gpt-4o-mini"
    lined = SplitterSpec.parse("llm:800+context;llm=m")
    assert lined.context_model == lined.options.model == "m" and str(lined.base) == "llm:800;llm=m"
    for text in ("llm:800;llm=m", "llm:400t+atoms;llm=a/b-1.5;piece=40", "llm:800+context;llm=m"):
        assert str(SplitterSpec.parse(text)) == text
    for text, reason in (("llm:800", "needs the chat model"), ("llm:800/100;llm=m", "no overlap"),
                         ("llm:800;llm=m;threshold=90", "threshold belongs to the semantic chunker"),
                         ("llm:100;llm=m;piece=100", "smaller than the budget")):
        with pytest.raises(SpecError, match=reason):
            SplitterSpec.parse(text)


def test_an_answer_is_read_for_the_cuts_inside_its_window():
    assert cuts_in("split after: 3, 5", 0, 8) == [3, 5]
    assert cuts_in("Sure!\nsplit_after: 7,2, 2\nthanks 1", 0, 8) == [2, 7], "sorted, once each, its line only"
    assert cuts_in("split after: 0, 4, 8, 99", 2, 8) == [4], "the window's first and last pieces end nothing"
    assert cuts_in("after 5 and 6", 0, 8) == [5, 6], "no line says split after: every number"
    assert cuts_in("no idea", 0, 8) == [] and cuts_in("9" * 40, 0, 8) == []


def test_each_window_moves_on_at_least_half_a_window():
    assert next_first(10, 20, []) == 20, "no cut: the next window starts after this one"
    assert next_first(10, 20, [12]) == 15 and next_first(10, 20, [18]) == 18 and next_first(10, 11, [10]) == 11


def _text(paragraphs: int) -> str:
    return "".join(f"# Part {i}\n\n" + f"Sentence {i} about topic {i} goes on. " * 12 + "\n\n"
                   for i in range(paragraphs))


def _answers_by(answer_of):
    """A run's answers when ``answer_of(ask)`` answers every prompt."""
    return lambda document, spec, analysis: document_run(document, spec, analysis, get_length(spec.unit), {},
                                                         answer_of)


def test_a_missing_answer_is_refused_with_the_command_that_writes_it():
    doc = Document("d.md", _text(8))
    with pytest.raises(SplitAnswersMissing, match=r"chunk-inspector context CORPUS --spec 'llm:300;llm=m'") as caught:
        split_document(doc, "llm:300;llm=m")
    assert isinstance(caught.value, ContextLineError) and "not kept for d.md (0 prompts answered" in str(caught.value)
    again = pickle.loads(pickle.dumps(caught.value))  # as a worker process sends it back
    assert type(again) is SplitAnswersMissing and str(again) == str(caught.value)
    assert len(split_document(Document("d.md", "Short. Text."), "llm:300;llm=m").chunks) == 1, \
        f"{TAIL} pieces or fewer: nothing to ask"


def _write(doc, spec, answer_of) -> None:
    run = _answers_by(answer_of)(doc, SplitterSpec.parse(spec), analyze(doc.text))
    store = SplitAnswers(data_folder())
    for ask, answer in run.asked:
        store.put(SplitterSpec.parse(spec).options.model, document_hash(doc.text), ask.digest, answer)


def test_the_chunks_start_where_the_kept_answers_cut_and_each_part_is_packed_under_the_budget():
    doc = Document("d.md", _text(8))
    every_twelfth = lambda ask: "split after: " + ", ".join(
        str(k) for k in range(ask.first + 1, ask.last) if k % 12 == 0)
    _write(doc, "llm:2000;llm=m;piece=60", every_twelfth)
    run = _answers_by(every_twelfth)(doc, SplitterSpec.parse("llm:2000;llm=m;piece=60"), analyze(doc.text))
    n = len(run.pieces)
    assert run.ends[:-1] == list(range(12, n, 12)) and run.ends[-1] == n
    result = split_document(doc, "llm:2000;llm=m;piece=60")
    assert [c.start for c in result.chunks] == [0, *(run.pieces[k].start for k in run.ends[:-1])]
    _write(doc, "llm:300;llm=m;piece=60", every_twelfth)
    small = split_document(doc, "llm:300;llm=m;piece=60")
    assert len(small.chunks) > len(result.chunks) and not small.oversized, "parts over 300 characters packed again"
    assert {c.start for c in result.chunks} <= {c.start for c in small.chunks}


def test_atoms_are_cut_by_default_and_kept_whole_with_the_atoms_flag():
    fence = "```\n" + "".join(f"line_{i}()\n" for i in range(30)) + "```\n"
    text = "Intro words. " * 20 + "\n\n" + fence + "\nAfter the fence. " * 20
    doc = Document("d.md", text)
    every = lambda ask: "split after: " + ", ".join(map(str, range(ask.first + 1, ask.last)))
    for spec in ("llm:300;llm=m;piece=40", "llm:300+atoms;llm=m;piece=40"):
        _write(doc, spec, every)
    analysis = analyze(text)
    plain = split_document(doc, "llm:300;llm=m;piece=40", analysis)
    kept = split_document(doc, "llm:300+atoms;llm=m;piece=40", analysis)
    assert survival(analysis.atoms, [(c.start, c.end) for c in plain.chunks])["code"] == (0, 1)
    assert survival(analysis.atoms, [(c.start, c.end) for c in kept.chunks])["code"] == (1, 1)


_answer = st.lists(st.integers(-3, 400), max_size=6).map(lambda ns: "split after: " + ", ".join(map(str, ns)))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=markdown_document(), budget=st.integers(8, 300), atoms=st.booleans(), path=st.booleans(),
       piece=st.integers(0, 7), unit=st.sampled_from(["chars", "o200k"]), answers=st.data())
def test_llm_chunks_tile_the_text_within_budget_whatever_the_model_answers(text, budget, atoms, path, piece, unit,
                                                                           answers):
    spec = SplitterSpec("llm", budget, unit, heading_prefix=path or None,
                        options=LlmOptions(atoms, "m", piece if piece < budget else 0))
    doc = Document("d.md", text)
    analysis = analyze(text)
    fewest = len(_answers_by(lambda ask: "")(doc, spec, analysis).asked)
    most = len(_answers_by(lambda ask: f"split after: {ask.first + 1}")(doc, spec, analysis).asked)
    drawn = _answers_by(lambda ask: answers.draw(_answer))(doc, spec, analysis)
    assert fewest <= len(drawn.asked) <= most, "the plan's bounds hold whatever the model answers"
    assert drawn.ends == sorted(set(drawn.ends)) and (not drawn.ends or drawn.ends[-1] == len(drawn.pieces))
    store = SplitAnswers(data_folder())
    for ask, answer in drawn.asked:
        store.put("m", document_hash(text), ask.digest, answer)
    check_span_invariants(text, spec, split_document(doc, spec, analysis, get_length(unit)))


def test_a_run_is_planned_between_bounds_written_once_and_resumed_where_it_failed(monkeypatch):
    docs = [Document(f"d{i}.md", f"Document {i}.\n\n" + _text(6 + i)) for i in range(3)] + \
        [Document("short.md", "Short. Text.")]
    analyses = [analyze(d.text) for d in docs]
    spec = SplitterSpec.parse("llm:200t;llm=tiny")
    store = SplitAnswers(data_folder())
    plan = plan_splits(docs, analyses, spec, store)
    assert plan.jobs == (0, 1, 2) and plan.documents == 4 and 3 <= plan.fewest <= plan.most
    assert plan.fewest_tokens < plan.most_tokens and plan.cost(None) is None
    assert plan.cost(1.0, 10.0) == pytest.approx((plan.most_tokens + plan.most * 15 * 10) / 1e6)
    failing = {"on": True}
    refuse = lambda prompt: (500, {"error": {"message": "down"}}) if failing["on"] and "topic 7" in prompt else None
    with ChatServer(refuse) as server:
        endpoint = ChatEndpoint(server.url, "tiny", attempts=1, first_pause=0)
        run = write_splits(plan, docs, analyses, endpoint, store)
        assert run.finished == 2 and [f.doc_id for f in run.failures] == ["d2.md"] and "HTTP 500" in \
            run.failures[0].reason
        assert plan.fewest <= run.sent <= plan.most
        again = plan_splits(docs, analyses, spec, store)
        assert again.jobs == (2,), "the failed document alone is left"
        failing["on"] = False
        assert write_splits(again, docs, analyses, endpoint, store).finished == 1
        assert len(server.prompts) - len(set(server.prompts)) == 1, "only the failed prompt was sent again"
        assert plan_splits(docs, analyses, spec, store).jobs == ()
    for doc, analysis in zip(docs, analyses):
        check_span_invariants(doc.text, spec, split_document(doc, spec, analysis))


def test_a_run_for_another_model_or_kind_is_refused():
    docs = [Document("d.md", _text(6))]
    plan = plan_splits(docs, [analyze(docs[0].text)], SplitterSpec.parse("llm:300;llm=a"), SplitAnswers(
        data_folder()))
    with pytest.raises(ContextLineError, match="the plan is for a"):
        write_splits(plan, docs, [analyze(docs[0].text)], ChatEndpoint("http://127.0.0.1:9/v1", "b"),
                     SplitAnswers(data_folder()))
    with pytest.raises(ContextLineError, match="not an llm chunker"):
        plan_splits(docs, [analyze(docs[0].text)], SplitterSpec.parse("recursive:300"),
                    SplitAnswers(data_folder()))


def test_a_damaged_answer_is_asked_for_again(tmp_path):
    store = SplitAnswers(tmp_path)
    store.put("m", "doc", "p1", "split after: 3")
    import sqlite3

    with sqlite3.connect(store.path) as connection:
        connection.execute("UPDATE answers SET answer = 'split after: 4'")
    assert store.answers("m", "doc") == {} and store.count() == 0
