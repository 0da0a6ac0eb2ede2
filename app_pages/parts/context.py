"""What one run of the app settled on (``Context``, filled by the sidebar, read by the pages) and
the session it runs for. Not a page; imported by the sidebar's helpers without importing the
sidebar.
"""

from __future__ import annotations

from dataclasses import dataclass

from streamlit.runtime.scriptrunner import get_script_run_ctx

from inspector import Corpus, Document, Length, SplitterSpec, Workspace
from inspector.views import AppState, HeldRound, LaunchConfig


@dataclass
class Context:
    """What the sidebar settled on for this run; pages read it and never change it."""

    state: AppState
    launch: LaunchConfig
    corpus: Corpus | None = None
    workspace: Workspace | None = None
    corpus_label: str = ""
    spec: SplitterSpec | None = None
    """The splitter as the engine runs it (an uploaded tokenizer's unit resolved to its file)."""
    length: Length | None = None
    document: Document | None = None
    problem: str | None = None
    """Why nothing can be shown (already displayed as an error), or None."""

    waiting: str | None = None
    """What the reader has yet to give (files, a text) before anything can be shown: a note, not an error."""

    uploaded: tuple[tuple[str, bytes], ...] = ()
    """The uploaded files or the pasted text, ``(name, bytes)``, when that is the corpus."""

    held: HeldRound | None = None
    """The Orphan Test round whose corpus and splitter this run was fixed to, or None."""


def session_id() -> str:
    """The browser session this script run serves."""
    found = get_script_run_ctx()
    return found.session_id if found is not None else ""
