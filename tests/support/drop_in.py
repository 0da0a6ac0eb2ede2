"""What every drop-in splitter (LangChain, LlamaIndex) is held to: each built-in kind at 800
characters, token budgets, an overlap and a prefix, on every sample document."""

from __future__ import annotations

from inspector import split_document
from inspector.kinds import offered_kinds

SPECS = [f"{kind}:800" for kind in offered_kinds()] + ["heading:256t", "structured:300t:cl100k", "fixed:400/80",
                                              "recursive:600+path"]


def our_chunks(workspace, spec: str):
    """Each document of ``workspace`` with its chunks under ``spec``, as this project splits it."""
    for document in workspace.documents:
        yield document, split_document(document, spec, workspace.analysis(document)).chunks


def without(modules: list[str], use: str) -> str:
    """What ``use`` raises (its type and message) in a fresh interpreter where ``modules``
    cannot be imported, after ``import inspector`` has worked there."""
    import subprocess
    import sys

    from tests.support.paths import ROOT

    hide = "".join(f"sys.modules[{m!r}] = None; " for m in modules)
    code = (f"import sys; {hide}import inspector, inspector.integrations\n"
            f"try:\n    {use}\nexcept ImportError as exc:\n    print(type(exc).__name__, exc)")
    return subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
