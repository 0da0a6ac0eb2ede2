"""``KeptResults``: what the pages computed, kept in the data folder across sessions and restarts.

A page's table for one configuration (a row of Compare, a budget of the Sweep, a step of the
Fixes, the chunk sizes of some documents) depends on the corpus, the atom mode, the request's
arguments, the servers it was ranked through and the code. The store keeps each result under a
digest of all of them (``RESULTS_VERSION``: every module of the library and the versions of the
packages that compute), so a restarted server reads a table instead of measuring it, and a
changed library reads nothing stale.

Only requests whose arguments are values are kept: strings, numbers, tuples of them and frozen
dataclasses made of them (a golden set). Tables are written as Parquet, the rest with
``marshal``: nothing read back runs code. Each value is sealed with its key
(``data_folder.sealed``); a damaged row is measured again. Past ``MAX_BYTES`` the older half is
dropped. A store that cannot be opened or written only saves no time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import marshal
import time
from functools import cache
from pathlib import Path

from ..data_folder import drop_oldest, open_store, sealed, unsealed
from ..extras import installed_version
from ..reports.fixes_table import FixRow

STORE_NAME = "results.sqlite3"
#: The store's size past which its older half is dropped.
MAX_BYTES = 256_000_000
#: Packages whose versions change what is computed.
_COMPUTING = ("pandas", "numpy", "tiktoken", "markdown-it-py", "sentencex", "py3langid", "tokenizers", "pyarrow")
#: How a kept value was written (its first byte).
_TABLE, _ROW, _PLAIN = b"t", b"f", b"m"


class NotKept(Exception):
    """A request whose result is not kept (an argument that is not a value)."""


@cache
def results_version() -> str:
    """A digest of every module of the library and of the computing packages' versions."""
    digest = hashlib.blake2b(digest_size=8)
    root = Path(__file__).resolve().parent.parent
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    for package in _COMPUTING:
        digest.update(package.encode() + installed_version(package).encode())
    return digest.hexdigest()


def _value(arg) -> object:
    """``arg`` as a plain value with a stable ``repr`` (``NotKept`` when it has none)."""
    if arg is None or isinstance(arg, (str, int, float, bool)):
        return arg
    if isinstance(arg, tuple):
        return tuple(_value(item) for item in arg)
    if dataclasses.is_dataclass(arg) and not isinstance(arg, type) and arg.__dataclass_params__.frozen:
        return (type(arg).__qualname__, *(_value(getattr(arg, f.name)) for f in dataclasses.fields(arg)))
    raise NotKept(f"a {type(arg).__name__} is not a value")


def result_key(task: str, fingerprint: str, mode: str, args: tuple, servers: tuple[str, ...] = ()) -> str:
    """The key of ``task``'s result with ``args`` over a corpus, ranked through ``servers``
    (``NotKept`` when an argument is not a value)."""
    plain = repr((task, fingerprint, mode, _value(tuple(args)), servers, results_version()))
    return hashlib.blake2b(plain.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def _encoded(result) -> bytes:
    import pandas as pd

    if isinstance(result, pd.DataFrame):
        stream = io.BytesIO()
        result.to_parquet(stream, index=True)
        return _TABLE + stream.getvalue()
    if isinstance(result, FixRow):
        return _ROW + marshal.dumps(dataclasses.asdict(result))
    return _PLAIN + marshal.dumps(result)


def _decoded(raw: bytes):
    kind, body = raw[:1], raw[1:]
    if kind == _TABLE:
        import pandas as pd

        return pd.read_parquet(io.BytesIO(body))
    if kind == _ROW:
        return FixRow(**marshal.loads(body))
    return marshal.loads(body)


class KeptResults:
    """The results kept in ``folder/results.sqlite3``."""

    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder) / STORE_NAME
        self.hits = self.writes = 0
        """Results read and written through this store (for tests)."""

    def _connect(self):
        return open_store(self.path, "CREATE TABLE IF NOT EXISTS results (key TEXT PRIMARY KEY, "
                          "plain BLOB NOT NULL, written REAL NOT NULL)")

    def get(self, key: str):
        """The result kept under ``key``, or None."""
        import sqlite3

        try:
            connection = self._connect()
            try:
                row = connection.execute("SELECT plain FROM results WHERE key = ?", (key,)).fetchone()
            finally:
                connection.close()
        except (OSError, sqlite3.Error):
            return None
        plain = unsealed(key, row[0], STORE_NAME) if row is not None else None
        if plain is None:
            return None
        try:
            found = _decoded(plain)
        except (ValueError, TypeError, EOFError, OSError):  # sealed by an older writer of another shape
            return None
        self.hits += 1
        return found

    def put(self, key: str, result) -> bool:
        """Keep ``result`` under ``key``; whether it was written."""
        import sqlite3

        try:
            raw = _encoded(result)
        except (ValueError, TypeError):  # a result marshal cannot write is measured again next time
            return False
        try:
            connection = self._connect()
            try:
                with connection:
                    connection.execute("INSERT OR REPLACE INTO results VALUES (?, ?, ?)",
                                       (key, sealed(key, raw), time.time()))
                    drop_oldest(connection, "results", MAX_BYTES)
            finally:
                connection.close()
        except (OSError, sqlite3.Error):
            return False
        self.writes += 1
        return True
