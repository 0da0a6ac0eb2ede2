"""Whether what a chat model writes for a spec is there for this corpus before a page measures it:
an ``llm`` chunker's cuts are written beforehand (``chunk-inspector context``), never by a page."""

from __future__ import annotations

from ..errors import ContextLineError
from ..spec import SplitterSpec


def cuts_problem(workspace, spec: SplitterSpec) -> str | None:
    """Why ``spec``'s chunks cannot be made on ``workspace``'s documents (an answer of its model
    not kept), or None; made, they stay in the workspace for the page."""
    if not spec.needs_answers:
        return None
    try:
        workspace.split(spec)
    except ContextLineError as exc:
        return f"the llm chunker cannot cut this corpus yet: {exc}"
    return None
