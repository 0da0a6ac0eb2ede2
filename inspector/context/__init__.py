"""What a chat model writes about documents: context lines (contextual retrieval), one or two
sentences placing each chunk in its document, put before the chunk by ``+context`` specs; and
the answers that place the ``llm`` chunker's cuts (``splits``); and golden sets written from
the corpus (``golden_writer``).

``store`` keeps the lines in the data folder by model, document hash and span, so a line is
asked for once; ``writer`` plans a run (chunks, input tokens, cost) and asks an OpenAI-compatible
chat endpoint for what is missing, one writer a plan at a time (``store.claim``);
``lines_file`` reads lines written elsewhere.
"""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "store": ["ContextStore", "Writing", "document_hash"],
    "writer": ["ChatEndpoint", "ContextFailure", "ContextJob", "ContextPlan", "ContextRun", "plan_key", "plan_lines",
               "prompt_for", "write_lines"],
    "lines_file": ["ImportedLines", "import_lines"],
    "splits": ["SplitFailure", "SplitPlan", "SplitRun", "plan_splits", "write_splits"],
    "golden_writer": ["GoldenPlan", "GoldenRun", "golden_store", "plan_golden", "plan_of", "write_golden"],
})
