"""``inspector.measure.cost``: what building an index of a configuration costs, counted from what
the splitter, the retriever and the context-line writer would send, summed over parts the same way
by every engine, and priced only where a paid service is involved."""

from __future__ import annotations

import json

import pytest

from inspector import Document, analyze, get_length
from inspector.cli import main
from inspector.context.writer import EXPECTED_OUTPUT_TOKENS, PROMPT
from inspector.errors import ContextLineError
from inspector.measure import Workspace
from inspector.measure.cost import IndexCost, Prices, index_cost
from inspector.spec import SplitterSpec
from inspector.split.packing import Sizer
from inspector.split.similarity import cluster_pieces, semantic_pieces
from tests.support.embedding import EmbeddingServer
from tests.support.paths import SAMPLE

TEXT = ("# Title\n\n" + "Alpha beta gamma. Delta epsilon. " * 30 + "\n\n```\nx = 1\n```\n\n"
        + "Zeta eta theta. Iota kappa. " * 30 + "\n")


def _workspace(*texts: str) -> Workspace:
    return Workspace([Document(f"d{i}.md", text) for i, text in enumerate(texts)])


def test_a_splitter_that_embeds_nothing_costs_only_its_seconds_under_bm25():
    cost = index_cost(_workspace(TEXT), "structured:200", "bm25")
    assert cost.seconds > 0 and cost.chunks > 1
    assert (cost.chunker_texts, cost.embedded_texts, cost.llm_calls) == (0, 0, 0)
    assert cost.dollars(Prices()) == 0.0


@pytest.mark.parametrize("spec", ["semantic:200", "cluster:200t+atoms"])
def test_a_similarity_chunker_is_charged_every_text_it_embeds(spec):
    parsed = SplitterSpec.parse(spec)
    analysis = analyze(TEXT)
    length = get_length(parsed.unit)
    sizer = Sizer(TEXT, length)
    make = semantic_pieces if parsed.kind == "semantic" else cluster_pieces
    pieces = make(TEXT, parsed, analysis, sizer, None)  # one window a sentence, or the pieces themselves
    cost = index_cost(_workspace(TEXT), spec, "bm25")
    assert cost.chunker_texts == len(pieces) > 10
    assert cost.chunker_tokens > cost.chunker_texts
    assert cost.dollars(Prices()) == 0.0, "a model in a package costs nothing"


def test_a_dense_retriever_is_charged_the_chunks_it_embeds_in_o200k_tokens():
    workspace = _workspace(TEXT, "Short one.\n")
    texts = workspace.pool("recursive:300").texts()
    cost = index_cost(workspace, "recursive:300", "dense")
    assert (cost.embedded_texts, cost.embedded_tokens) == (len(texts), sum(get_length("o200k").count_many(texts)))
    assert not cost.paid_embeddings and cost.dollars(Prices()) == 0.0


def test_context_lines_are_charged_a_prompt_a_chunk(tmp_path):
    from inspector.context import ContextStore

    workspace = _workspace(TEXT)
    workspace.context_store = ContextStore(tmp_path)  # no line written yet: the prompts are what is to pay
    chunks = workspace.split("recursive:300")[0]
    o200k = get_length("o200k")
    prompts = [o200k.count(PROMPT.format(document="", chunk="")) + o200k.count(TEXT) + o200k.count(TEXT[a:b])
               for a, b in chunks.spans]
    cost = index_cost(workspace, "recursive:300+context;llm=m", "bm25")
    assert cost.llm_calls == len(chunks.chunks)
    assert cost.llm_input_tokens == sum(prompts)
    assert cost.llm_output_tokens == EXPECTED_OUTPUT_TOKENS * cost.llm_calls
    assert cost.dollars(Prices(input=1.0)) is None, "no output price: not a number"
    assert cost.dollars(Prices(input=2.0, output=10.0)) == pytest.approx(
        (sum(prompts) * 2.0 + cost.llm_output_tokens * 10.0) / 1e6)


def test_parts_add_up_to_the_whole():
    halves = [index_cost(_workspace(text), "semantic:300", "dense") for text in (TEXT, TEXT.upper())]
    whole = index_cost(_workspace(TEXT, TEXT.upper()), "semantic:300", "dense")
    total = IndexCost.total(halves)
    assert (total.chunks, total.chunker_texts, total.chunker_tokens, total.embedded_tokens) == (
        whole.chunks, whole.chunker_texts, whole.chunker_tokens, whole.embedded_tokens)
    assert IndexCost.total([]) == IndexCost()


def _cost_block(capsys, *args):
    assert main(["report", str(SAMPLE), "--quiet", "--json", "--budgets", "400", "--cost", *args]) == 0
    return json.loads(capsys.readouterr().out)["cost"]


def test_the_report_prices_a_paid_embeddings_model_and_every_engine_counts_the_same(capsys):
    args = ["--spec", "structured:800", "--spec", "cluster:400t"]
    with EmbeddingServer() as server:
        paid = ["--retriever", "dense:openai:test-embed", "--embeddings-url", server.url]
        priced = _cost_block(capsys, *args, *paid, "--embed-price", "0.02")
        unpriced = _cost_block(capsys, *args, *paid)
    tokens = priced["structured:800"]["embedded_tokens"]
    assert priced["structured:800"]["paid_embeddings"] and tokens > 100_000
    assert priced["structured:800"]["dollars"] == pytest.approx(tokens * 0.02 / 1e6)
    assert unpriced["cluster:400t"]["dollars"] is None
    held = _cost_block(capsys, *args)
    streamed = _cost_block(capsys, *args, "--engine", "stream")
    for block in (held, streamed):
        for cost in block.values():
            cost.pop("seconds")
    assert streamed == held and held["cluster:400t"]["chunker_texts"] > 1000


def test_the_printed_report_shows_the_cost_block_only_when_asked(capsys):
    args = ["report", str(SAMPLE), "--quiet", "--budgets", "400", "--spec", "semantic:800"]
    assert main(args) == 0
    assert "index-time cost" not in capsys.readouterr().out
    assert main([*args, "--cost"]) == 0
    lines = capsys.readouterr().out.splitlines()
    row = lines[lines.index(next(line for line in lines if "index-time cost" in line)) + 3]
    assert row.startswith("semantic 800") and row.split()[-1] == "0.00"


def test_an_llm_chunker_costs_the_prompts_its_kept_answers_answered(isolated_app):
    from inspector.data_folder import document_hash
    from inspector.split.answers import SplitAnswers
    from inspector.split.llm import document_run

    workspace = _workspace(TEXT * 3)
    document = workspace.documents[0]
    spec = SplitterSpec.parse("llm:300;llm=m")
    store = SplitAnswers(isolated_app)
    with pytest.raises(ContextLineError, match="this workspace keeps none"):
        index_cost(workspace, str(spec), "bm25")
    workspace.split_answers = store
    answer = lambda ask: f"split after: {ask.first + 2}"
    run = document_run(document, spec, workspace.analysis(document), get_length("chars"), {}, answer)
    for ask, said in run.asked:
        store.put("m", document_hash(document.text), ask.digest, said)
    cost = index_cost(workspace, str(spec), "bm25")
    o200k = get_length("o200k")
    assert cost.llm_calls == len(run.asked) > 1
    assert cost.llm_input_tokens == sum(o200k.count(ask.prompt) for ask, _ in run.asked)
    assert cost.llm_output_tokens == sum(o200k.count(said) for _, said in run.asked)
    assert cost.dollars(Prices(input=1.0, output=2.0)) == pytest.approx(
        (cost.llm_input_tokens + 2 * cost.llm_output_tokens) / 1e6)
