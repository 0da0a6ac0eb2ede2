"""The splitter kinds: one module each, listed once below.

A kind module holds one ``base.Kind``: its options (``base.KindOptions``) and how they read and
write in the spec string, its defaults, the controls the app draws for them and its split,
written against ``base.Splitting``. To add a kind, write its module and add it to ``KINDS``
(or ``register`` it, as a plug-in or a test does); ``SplitterSpec``, ``split``, the app's menu,
``tune`` and the drop-ins find it here.
"""

from __future__ import annotations

from . import (
    chroma_cluster,
    chroma_fixed,
    chroma_kamradt,
    chroma_recursive,
    cluster,
    fixed,
    heading,
    llm,
    paragraph,
    recursive,
    semantic,
    sentence,
    structured,
)
from .base import Control, Kind, KindOptions, Splitting

#: Every kind, in the order menus and tables list them.
KINDS: dict[str, Kind] = {kind.name: kind for kind in (
    fixed.KIND, paragraph.KIND, sentence.KIND, recursive.KIND, structured.KIND, heading.KIND, semantic.KIND,
    cluster.KIND, llm.KIND, chroma_recursive.KIND, chroma_fixed.KIND,
    chroma_cluster.KIND, chroma_kamradt.KIND,
)}

__all__ = ["KINDS", "Control", "Kind", "KindOptions", "Splitting", "kind_named", "kind_names", "offered_kinds",
           "register", "unregister"]


def kind_named(name: str) -> Kind | None:
    """The kind called ``name``, or None."""
    return KINDS.get(name)


def kind_names() -> tuple[str, ...]:
    """Every kind's name."""
    return tuple(KINDS)


def offered_kinds() -> tuple[str, ...]:
    """The kinds that split with nothing but the text: what menus, ``tune`` and the drop-ins offer."""
    return tuple(name for name, kind in KINDS.items() if kind.offered)


def register(kind: Kind) -> None:
    """Add ``kind`` after the others (a name taken, or one the spec string reserves, is refused)."""
    if kind.name in KINDS:
        raise ValueError(f"a splitter kind named {kind.name!r} is already registered")
    if kind.name == "imported" or kind.name.startswith("ext-"):
        raise ValueError(f"{kind.name!r} names imported chunks or another library's splitter, not a kind")
    KINDS[kind.name] = kind


def unregister(name: str) -> None:
    """Remove a kind ``register`` added."""
    KINDS.pop(name, None)
