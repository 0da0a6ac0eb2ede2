"""The field's table on a Chroma-format corpus and question set: recursive 200/400/800 tokens,
fixed 800/400 tokens (OpenAI's default), the semantic and cluster chunkers (and, given a chat
model, the llm chunker), their top-5 span recall, precision, precision-Ω and IoU in Chroma's
layout, and what each costs at index time.

    python bench/bench_field.py [CORPUS QUESTIONS] [--retriever SPEC] [--full] [--llm MODEL [--yes]]

Default: the bundled sample and its Chroma-format paraphrase questions, ranked by ``dense:minilm``,
over the documents the questions point into (CI-sized: a few minutes on two cores); ``--full``
measures every document. Chroma's own corpora and ``questions_df.csv`` work as they are.
``--llm MODEL`` adds ``llm:400t;llm=MODEL``: the cuts it needs are planned and priced first and
written by ``chunk-inspector context CORPUS --spec 'llm:400t;llm=MODEL' --yes`` (every document of
the corpus, through the chat endpoint of ``CHUNK_INSPECTOR_CONTEXT_URL`` or ``OPENAI_BASE_URL``)
only with ``--yes``; without them the row is left out.
"""

from __future__ import annotations

import argparse
import time

from common import SAMPLE, record

from inspector import Workspace, load_corpus
from inspector.measure.cost import IndexCost, index_cost
from inspector.reports.field_table import FIELD_SPECS, field_rows, format_field
from inspector.reports.golden_table import golden_section
from inspector.spec import parse_spec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", nargs="?", default=str(SAMPLE))
    parser.add_argument("questions", nargs="?", default=str(SAMPLE / "golden-paraphrase.csv"))
    parser.add_argument("--retriever", default="dense:minilm")
    parser.add_argument("--full", action="store_true", help="every document, not only those the questions cite")
    parser.add_argument("--llm", metavar="MODEL", help="add the llm chunker, its cuts written by this chat model")
    parser.add_argument("--yes", action="store_true", help="send the prompts the llm chunker's plan prices")
    given = parser.parse_args()
    workspace = Workspace(load_corpus(given.corpus))
    golden = workspace.load_golden(given.questions)
    if not given.full:
        cited = {location[0] for item in golden.items for quote in item.quotes for location in quote.locations}
        workspace = workspace.subset(cited)
        golden = workspace.load_golden(given.questions)
    retriever = workspace.retriever(given.retriever)
    specs = [parse_spec(s) for s in FIELD_SPECS]
    if given.llm and _cuts_written(workspace, given.corpus, parse_spec(f"llm:400t;llm={given.llm}"), given.yes):
        specs.append(parse_spec(f"llm:400t;llm={given.llm}"))
    start = time.perf_counter()
    section = golden_section(workspace, golden, specs, retriever)
    seconds = time.perf_counter() - start
    costs = {str(s): IndexCost.total(workspace.per_part("cost", index_cost, str(s), given.retriever)) for s in specs}
    print(f"{len(workspace.documents)} documents, {workspace.characters:,} characters; measured in {seconds:.0f} s")
    print("\n".join(format_field(section)))
    print(f"\n{'spec':20s}{'split s':>8s}{'splitter embeds':>16s}{'chunks embedded':>16s}{'their tokens':>13s}"
          f"{'LLM prompts':>12s}{'their tokens':>13s}")
    for spec, cost in costs.items():
        print(f"{spec:20s}{cost.seconds:8.2f}{cost.chunker_texts:16,d}{cost.embedded_texts:16,d}"
              f"{cost.embedded_tokens:13,d}{cost.llm_calls:12,d}{cost.llm_input_tokens:13,d}")
    record("field", {"corpus": given.corpus if given.corpus != str(SAMPLE) else "sample_corpus",
                     "documents": len(workspace.documents), "questions": section["questions"],
                     "retriever": given.retriever, "seconds": round(seconds, 1),
                     "rows": [{k: v for k, v in row.items() if k != "intervals"} for row in field_rows(section)],
                     "cost": {spec: cost.as_dict() for spec, cost in costs.items()}})


def _cuts_written(workspace: Workspace, corpus: str, spec, send: bool) -> bool:
    """Whether every cut ``spec`` needs is kept, after ``chunk-inspector context`` wrote the
    missing ones (over the whole corpus) when ``send``."""
    from inspector.cli import main as command
    from inspector.split.llm import SplitAnswersMissing

    try:
        workspace.split(spec)
        return True
    except SplitAnswersMissing:
        pass
    argv = ["context", corpus, "--spec", str(spec)]
    if not send:
        command(argv + ["--dry-run"])
        print("not sent (--yes sends it): the llm chunker's row is left out")
        return False
    return command(argv + ["--yes"]) == 0


if __name__ == "__main__":
    main()
