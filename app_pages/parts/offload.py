"""The server's pool of worker processes for corpus-wide page computations. Not a page.

``CHUNK_INSPECTOR_PROCESSES`` sets how many (default: one per CPU core, at most 4; 0 computes
in the script thread). One pool per server process, shared by every session, so identical
requests of several sessions share one computation (``inspector.views.offload``).
"""

from __future__ import annotations

import atexit
import os

import streamlit as st

from inspector.scratch import scratch_folder
from inspector.views import Offload, corpus_handle

ENV_PROCESSES = "CHUNK_INSPECTOR_PROCESSES"


@st.cache_resource(show_spinner=False)
def offload() -> Offload:
    """The pool (started on first use, stopped when the server exits)."""
    text = os.environ.get(ENV_PROCESSES, "").strip()
    processes = int(text) if text.isdigit() else min(4, os.cpu_count() or 1)
    pool = Offload(min(processes, 16))
    atexit.register(pool.close)
    return pool


@st.cache_resource(show_spinner=False)
def _corpus_folder() -> str:
    # Where corpora are written once for the workers: this server's own temporary folder.
    return scratch_folder("chunk-inspector-corpora-")


def _handle(ctx):
    return corpus_handle(ctx.corpus, ctx.workspace.mode, _corpus_folder(), ctx.workspace.services,
                         store_credentials=ctx.launch.store_credentials)


def run(ctx, task: str, *args):
    """``task`` over the sidebar's corpus, in a worker process (see ``Offload.run``)."""
    return offload().run(task, ctx.workspace, _handle(ctx), *args)


def each(ctx, task: str, calls):
    """``task`` over the sidebar's corpus with each of ``calls``, in every worker at once: results
    with their call's position as they finish (see ``Offload.each``)."""
    return offload().each(task, ctx.workspace, _handle(ctx), calls)
