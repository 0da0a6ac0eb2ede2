"""Splitting: a document and a ``SplitterSpec`` become chunk spans.

``splitters`` holds the entry points. A split cuts the text into pieces (``pieces``, or
``piece_ends`` for the per-document tables the fast path bisects), then packs them under the
budget: ``packing`` (the default packer and the ``Sizer`` that counts spans in a unit),
``packing_fast`` (one bisection per chunk) and ``packing_seed`` (the article's packer).
``prefixes`` writes heading-path, address-stamp (``address``) and table-header prefixes; ``adapters`` runs other
libraries' splitters (``ext-`` specs) and checks their offsets. ``similarity`` and ``llm`` cut
where an embedder or a chat model finds the topic changes; ``answers`` keeps the chat model's answers.
"""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "splitters": ["chunk_spans", "split_document"],
    "address": ["Address"],
    "answers": ["SplitAnswers"],
    "llm": ["SplitAnswersMissing", "replay"],
    "adapters": ["ADAPTERS", "Adapter", "available_adapters", "split_with_adapter"],
})
