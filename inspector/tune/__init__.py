"""``tune``: which chunking should this corpus use?

``space`` says what is tried (splitter kinds × budgets × overlap × prefixes × header
repetition, a TOML file or an embedder's cap), ``search`` measures every configuration on the
user's golden sets (or the probe) with successive halving, ranks them with intervals, ties them
by a paired test and recommends the cheapest of the best, ``result`` holds what it found, and
``printed`` prints it.
"""

from ..surface import lazy_surface

__getattr__, __dir__, __all__ = lazy_surface(__name__, {
    "space": ["DEFAULT_KINDS", "Space", "parse_cap"],
    "result": ["Candidate", "EmbeddingShare", "TuneResult"],
    "search": ["Goal", "Rung", "measure_candidate", "measure_space", "one_by_one", "settled", "survivors", "tune"],
    "printed": ["embedding_line", "format_tune"],
})
