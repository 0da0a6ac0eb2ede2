"""What every store reader keeps: the ``StoreReader`` protocol, and the few things all of them do
alike (importing a client, saying why a store cannot be opened)."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Protocol

from ..errors import MissingExtra, StoreError
from ..extras import install_hint
from .address import StoreAddress
from .fields import StoredChunk

#: Rows read per request.
PAGE_SIZE = 1_000


class StoreReader(Protocol):
    """A store's chunks, a page at a time."""

    address: StoreAddress
    ordered: bool
    """Whether chunks come back in the order they were written (placement then puts repeated
    text on the right copy)."""

    note: str
    """What a user should know about how the store was read ("" when nothing)."""

    def count(self) -> int | None: ...

    def pages(self, size: int = PAGE_SIZE) -> Iterator[list[StoredChunk]]: ...

    def close(self) -> None: ...


def client(module: str, extra: str):
    """A store's client module, or ``MissingExtra`` naming the extra that installs it."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise MissingExtra(f"reading a {extra} store needs its client: {install_hint(extra)}") from exc


def reason(exc: BaseException) -> str:
    """An error of a client as one short line."""
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:300] + "…"


def missing(address: StoreAddress, names) -> StoreError:
    """The error for a collection or table the store does not have, listing those it has."""
    listed = ", ".join(sorted(map(str, names))[:10]) or "none"
    return StoreError(f"{address}: no {address.table_word} {address.collection!r} in the store "
                      f"(it has: {listed}); name one with ?{address.table_word}=NAME")


