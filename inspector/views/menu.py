"""How the sidebar's splitter menu names its choices: splitter kinds, other libraries'
splitters (``ext-``) and the chunk sets stored on this server (by their spec, ``imported:ID``).
"""

from __future__ import annotations

from collections.abc import Mapping

from ..chunks.sets import ChunkSetInfo
from ..errors import SpecError
from ..spec import IMPORTED, SplitterSpec
from .state import AppState


def chunk_set_of(text: str) -> str:
    """The id of the chunk set a menu value or spec string names, else ``""``."""
    try:
        return SplitterSpec.parse(text).chunk_set
    except SpecError:
        return ""  # a bare kind such as "structured" is no spec


def menu_value(state: AppState) -> str:
    """The menu's value for these settings: the kind, or the chosen chunk set's spec."""
    return str(SplitterSpec.imported(state.chunk_set)) if state.kind == IMPORTED else state.kind


def menu_choice(value: str) -> tuple[str, str]:
    """A menu value as ``(kind, chunk set id)`` (the id is empty for every other kind)."""
    chunk_set = chunk_set_of(value)
    return (IMPORTED, chunk_set) if chunk_set else (value, "")


def chunk_set_title(spec: SplitterSpec | str, sets: Mapping[str, ChunkSetInfo]) -> str | None:
    """How tables and menus name imported chunks (``imported: FILE``, from ``sets``: the stored
    sets by spec), or None when ``spec`` names no chunk set."""
    chunk_set = spec.chunk_set if isinstance(spec, SplitterSpec) else chunk_set_of(spec)
    if not chunk_set:
        return None
    info = sets.get(str(SplitterSpec.imported(chunk_set)))
    return f"imported: {info.name}" if info else SplitterSpec.imported(chunk_set).label


def menu_label(value: str, sets: Mapping[str, ChunkSetInfo]) -> str:
    """What the menu shows for a value: a stored set's title and size, a set named by a link
    that this server lacks, or the kind itself."""
    if value in sets:
        return sets[value].title
    chunk_set = chunk_set_of(value)
    return f"imported: {chunk_set} (not on this server)" if chunk_set else value
