"""Running the command line in a test: its exit status and what it printed, and the chat
settings a test clears so that only the endpoint it starts on the loopback address is used."""

from __future__ import annotations

from inspector.cli import main

#: Where the chat endpoint, its model and key are read from, besides the command line.
CHAT_SETTINGS = ("CHUNK_INSPECTOR_CONTEXT_URL", "CHUNK_INSPECTOR_CONTEXT_MODEL", "CHUNK_INSPECTOR_CONTEXT_KEY",
                 "OPENAI_BASE_URL", "OPENAI_API_KEY")


def run(capsys, *args):
    """``chunk-inspector ARGS``: ``(status, stdout, stderr)``."""
    status = main([*args])
    out, err = capsys.readouterr()
    return status, out, err


def without_chat_settings(monkeypatch) -> None:
    for key in CHAT_SETTINGS:
        monkeypatch.delenv(key, raising=False)
