"""What building an index of one configuration costs: the seconds its splitter takes, what the
splitter and the retriever embed, what a language model is asked, and the dollars of all that at
given prices.

Measured on the documents a workspace holds (a part of a corpus for the streamed and Ray
engines: ``IndexCost.total`` adds the parts up). Tokens are o200k tokens, as the spending
ledger and the context-line plans count them. Seconds are the splitter's own, each document's
atoms found beforehand (once for every configuration) but nothing else kept: tokenizing for a
token budget is the splitter's work. They are measured, so they vary from run to run, which is
why a report prints them only when asked.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, replace

from ..lengths import get_length
from ..spec import parse_spec


@dataclass(frozen=True, slots=True)
class Prices:
    """Dollars per million tokens; None where no price is given."""

    embed: float | None = None
    """Of a paid embeddings model (``dense:openai:MODEL``)."""

    input: float | None = None
    """Of a chat model's input (context lines)."""

    output: float | None = None
    """Of a chat model's output."""


@dataclass(frozen=True, slots=True)
class IndexCost:
    """One configuration's index-time cost over some documents."""

    seconds: float = 0.0
    """Splitting the documents (their analyses made beforehand)."""

    chunks: int = 0

    chunker_texts: int = 0
    """Texts the splitter embedded to decide its cuts (the semantic chunker's sentence windows,
    the cluster chunker's pieces), by a model in its package: no dollars."""

    chunker_tokens: int = 0

    embedded_texts: int = 0
    """Chunks the retriever embeds (none for BM25)."""

    embedded_tokens: int = 0

    paid_embeddings: bool = False
    """Whether the retriever's embedder is a paid service (``dense:openai:MODEL``)."""

    llm_calls: int = 0
    """Prompts a chat model answers (the llm chunker's windows, a context line per chunk)."""

    llm_input_tokens: int = 0

    llm_output_tokens: int = 0
    """The llm chunker's kept answers as counted; ``EXPECTED_OUTPUT_TOKENS`` a context line."""

    @staticmethod
    def total(parts) -> "IndexCost":
        """The sum over parts of a corpus (each part's documents measured once)."""
        rows = [asdict(p) for p in parts]
        if not rows:
            return IndexCost()
        sums = {name: sum(row[name] for row in rows) for name in rows[0] if name != "paid_embeddings"}
        return IndexCost(**sums, paid_embeddings=any(row["paid_embeddings"] for row in rows))

    def dollars(self, prices: Prices) -> float | None:
        """What the paid parts cost at ``prices``; None when a paid part has no price."""
        total = 0.0
        if self.paid_embeddings and self.embedded_tokens:
            if prices.embed is None:
                return None
            total += self.embedded_tokens * prices.embed / 1e6
        if self.llm_calls:
            if prices.input is None or prices.output is None:
                return None
            total += (self.llm_input_tokens * prices.input + self.llm_output_tokens * prices.output) / 1e6
        return total

    def as_dict(self, prices: Prices = Prices()) -> dict:
        """JSON-ready, with the dollars at ``prices`` (None: a paid part has no price)."""
        out = asdict(self)
        out["seconds"] = round(self.seconds, 3)
        out["dollars"] = self.dollars(prices)
        return out


def index_cost(part, spec: str, retriever: str) -> IndexCost:
    """``spec``'s index-time cost over the documents ``part`` holds, its chunks ranked by ``retriever``."""
    # Imported when measured: the command line reads ``Prices`` without loading the splitters.
    from ..context.writer import EXPECTED_OUTPUT_TOKENS, prompt_tokens
    from ..data_folder import document_hash
    from ..retrieval.retriever_spec import parse_retriever
    from ..split.llm import document_run
    from ..split.splitters import chunker_inputs, split_document

    spec, retriever_spec = parse_spec(spec), parse_retriever(retriever)
    o200k = get_length("o200k")
    seconds, inputs, asked = 0.0, [], []
    if not spec.is_imported:  # imported chunks were made elsewhere: no splitting here
        base = spec.base
        length, answers = get_length(base.unit), part.cut_answers(base)
        for document in part.documents:
            analysis = part.analysis(document)
            # An empty memo: what earlier measures kept for this document (its token boundaries,
            # a splitter's pieces) would otherwise make the clock read near zero.
            fresh = replace(analysis, memo={})
            start = time.perf_counter()
            split_document(document, base, fresh, length, answers=answers)
            seconds += time.perf_counter() - start
            if base.embeds_to_split:
                inputs += chunker_inputs(document, base, analysis, length)
            elif base.needs_answers:  # the split above succeeded, so every answer is kept
                kept = answers.answers(base.options.answered_by, document_hash(document.text))
                asked += document_run(document, base, analysis, length, kept).asked
    texts = part.pool(spec).texts()
    dense = retriever_spec.base.kind != "bm25"
    calls = len(asked)
    prompts = sum(o200k.count_many([ask.prompt for ask, _ in asked]))
    answered = sum(o200k.count_many([answer for _, answer in asked]))
    if spec.context:
        for document, result in zip(part.documents, part.split(spec.base)):
            calls += len(result.chunks)
            answered += len(result.chunks) * EXPECTED_OUTPUT_TOKENS
            prompts += prompt_tokens(document, result.spans)
    return IndexCost(
        seconds=seconds, chunks=len(texts), chunker_texts=len(inputs), chunker_tokens=sum(o200k.count_many(inputs)),
        embedded_texts=len(texts) if dense else 0, embedded_tokens=sum(o200k.count_many(texts)) if dense else 0,
        paid_embeddings=dense and retriever_spec.base.embedder == "openai", llm_calls=calls,
        llm_input_tokens=prompts, llm_output_tokens=answered)


def splitter_tokens(part, spec: str, unit: str) -> int:
    """Tokens, in ``unit``, of what ``spec``'s splitter itself embeds over ``part``'s documents
    (the semantic chunker's sentence windows, the cluster chunker's pieces; 0 for the rest)."""
    from ..split.splitters import chunker_inputs

    spec = parse_spec(spec).base
    if not spec.embeds_to_split:
        return 0
    split_length, count_length = get_length(spec.unit), get_length(unit)
    return sum(sum(count_length.count_many(chunker_inputs(document, spec, part.analysis(document), split_length)))
               for document in part.documents)


def embedded_digests(part, spec: str) -> bytes:
    """The key each text a dense retriever embeds for ``spec``'s chunks over ``part``'s documents
    (a chunk's prefix and its span's text) is kept by in the vector store
    (``retrieval.vectors.digest_of``), joined in chunk order: configurations whose chunks read
    alike share their vectors, and these say how many do."""
    from ..retrieval.vectors import digest_of

    return b"".join(digest_of(text) for text in part.pool(spec).texts())
