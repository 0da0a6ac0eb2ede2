"""Chunks as tests need them: a chunking by document, chunk records as JSON Lines."""

from __future__ import annotations

import json

from inspector import Workspace


def chunks_of(work: Workspace, spec: str, documents=None) -> dict:
    return {r.doc_id: r.chunks for r in work.split(spec) if documents is None or r.doc_id in documents}


def jsonl(records) -> bytes:
    return ("\n".join(json.dumps(r) for r in records) + "\n").encode()
