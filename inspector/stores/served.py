"""The user's vector stores a server offers by name, as named at its start.

An operator names them (``streamlit run app.py -- --store NAME=URI``, repeatable, or
``CHUNK_INSPECTOR_STORES="NAME=URI;NAME=URI"``); a link may pick one by its name only, never a
host or a path. Part of a corpus's services (``measure.services.Services.stores``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ..errors import StoreAddressError
from .address import StoreAddress, parse_store

ENV_STORES = "CHUNK_INSPECTOR_STORES"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")


@dataclass(frozen=True, slots=True)
class ServedStore:
    """A store the server offers, by the name links use."""

    name: str
    """What the sidebar and links call it (letters, digits, ``_ . -``)."""

    address: StoreAddress
    """Where it is; never shown to a visitor beyond its kind and collection."""

    @property
    def title(self) -> str:
        return f"{self.name} ({self.address.kind}, {self.address.collection})"


def served_stores(given: Sequence[str], environ: Mapping[str, str]) -> tuple[tuple[ServedStore, ...], list[str]]:
    """The stores named at start (``NAME=URI`` or a bare ``URI``, named by its collection), and
    the problems of those refused."""
    entries = [e.strip() for e in environ.get(ENV_STORES, "").split(";") if e.strip()] + list(given)
    found: dict[str, ServedStore] = {}
    problems: list[str] = []
    for entry in entries:
        name, equals, uri = entry.partition("=")
        if not equals or "://" in name or ":" in name:
            name, uri = "", entry
        try:
            address = parse_store(uri.strip())
        except StoreAddressError as exc:
            problems.append(f"Store {name or 'given at start'} refused: {exc}")
            continue
        name = name.strip() or address.collection
        if not _NAME.match(name):
            problems.append(f"Store name {name[:40]!r} refused: letters, digits, _ . - only, at most 40")
        elif name in found:
            problems.append(f"Store name {name!r} is given twice; the first is kept")
        else:
            found[name] = ServedStore(name, address)
    return tuple(found.values()), problems
