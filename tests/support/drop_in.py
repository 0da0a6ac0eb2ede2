"""What every drop-in splitter (LangChain, LlamaIndex) is held to: each built-in kind at 800
characters, token budgets, an overlap and a prefix, on every sample document."""

from __future__ import annotations

from inspector import split_document
from inspector.spec import KINDS

SPECS = [f"{kind}:800" for kind in KINDS] + ["heading:256t", "structured:300t:cl100k", "fixed:400/80",
                                              "recursive:600+path"]


def our_chunks(workspace, spec: str):
    """Each document of ``workspace`` with its chunks under ``spec``, as this project splits it."""
    for document in workspace.documents:
        yield document, split_document(document, spec, workspace.analysis(document)).chunks
