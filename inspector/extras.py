"""The optional extras: which packages each optional feature needs, and the one way to say how to
install them.

The pins live in ``pyproject.toml`` (``[project.optional-dependencies]``) and in
``requirements-dev.txt``, which installs every extra for the tests; a test keeps the three in step.
"""

from __future__ import annotations

#: Each extra and the distributions it installs (names as ``pip`` spells them, without pins).
EXTRAS: dict[str, tuple[str, ...]] = {
    "langchain": ("langchain-text-splitters",),
    "llamaindex": ("llama-index-core",),
    "chonkie": ("chonkie",),
    "semantic": ("semantic-text-splitter",),
    "model2vec": ("model2vec",),
    "docling": ("docling-slim",),
    "mlflow": ("mlflow-skinny",),
    "ray": ("ray",),
}


def install_hint(extra: str) -> str:
    """The command that installs ``extra``, as messages print it. Chunk Inspector is installed
    from its folder, not from a package index, where another project could take its name."""
    if extra not in EXTRAS:
        raise KeyError(f"no extra {extra!r}; the extras are {', '.join(EXTRAS)}")
    return f"pip install '.[{extra}]' in Chunk Inspector's folder"
