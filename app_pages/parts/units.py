"""Length units as the app names them: the engine's units (built once per process), tokenizer.json
files uploaded to this server, and a human name for each unit. Not a page.

An uploaded tokenizer is an ``upload:<hash>`` unit in the settings and the URL; the engine knows
it as ``hf:<file>`` in one process-wide folder (``engine_unit`` / ``engine_spec`` translate).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import streamlit as st

from inspector import Length, SplitterSpec, get_length
from inspector.scratch import scratch_folder
from inspector.views import UPLOAD_UNIT

UNIT_LABELS = {"chars": "characters", "o200k": "o200k tokens (GPT-4o)", "cl100k": "cl100k tokens (GPT-4)",
               "upload": "tokens of an uploaded tokenizer.json", "minilm": "all-MiniLM-L6-v2 word pieces"}


@st.cache_resource(max_entries=8, show_spinner="Loading the tokenizer…")
def length_for(unit: str) -> Length:
    """The engine's length unit (tokenizers are slow to build, so built once)."""
    return get_length(unit)


@st.cache_resource
def tokenizer_dir() -> str:
    """The folder that holds this server's uploaded tokenizer files."""
    # Uploaded tokenizers live as files because the engine names units by path; this
    # process-wide folder is the only place an ``upload:`` unit can point to.
    return scratch_folder("chunk-inspector-tokenizers-")


def uploaded_units() -> list[str]:
    """The ``upload:<hash>`` units this server holds."""
    return ["upload:" + p.stem for p in sorted(Path(tokenizer_dir()).glob("*.json"))]


def engine_unit(unit: str) -> str:
    """A state unit as the engine knows it (``upload:<hash>`` -> ``hf:<file>``)."""
    if UPLOAD_UNIT.match(unit):
        return "hf:" + str(Path(tokenizer_dir()) / (unit.split(":", 1)[1] + ".json"))
    return unit


def engine_spec(spec: SplitterSpec | str) -> SplitterSpec:
    """A spec as the engine runs it."""
    spec = SplitterSpec.parse(spec) if isinstance(spec, str) else spec
    return replace(spec, unit=engine_unit(spec.unit)) if UPLOAD_UNIT.match(spec.unit) else spec


def unit_label(unit: str) -> str:
    """Human name of a state unit (uploaded tokenizers told apart by their hash)."""
    if UPLOAD_UNIT.match(unit):
        return f"tokens of the uploaded tokenizer.json ({unit.split(':', 1)[1][:8]})"
    return UNIT_LABELS.get(unit, unit)
