"""``AnalysisStore``: documents' analyses kept in the data folder between runs.

Finding atoms is the costliest step of a markdown-mode run (markdown-it-py parses every
document), and its result depends only on the text, the atom mode and the detector's code. The
store keeps each analysis under a key made of the three: a BLAKE2b digest of the text, the mode,
and ``DETECTOR_VERSION``, a digest of this room's source files, so any change to the detector
reads nothing stale. A second ``report``, a ``check`` in CI on an unchanged corpus, or an app
restart loads analyses instead of computing them; a changed file is analysed alone.

Analyses are written with ``marshal`` (ints, strings, tuples and one dict: nothing that runs
code when read) and sealed with their key (``data_folder.sealed``: a damaged or moved row is
analysed again) in one SQLite file; each call opens its own connection, so forked workers and
several servers can share it.
"""

from __future__ import annotations

import hashlib
import itertools
import marshal
from collections.abc import Iterable, Sequence
from pathlib import Path

from ..data_folder import open_store, rows_by_key, sealed, unsealed
from ..extras import installed_version
from ..model import Document
from .analysis import Analysis

STORE_NAME = "analyses.sqlite3"
#: Keys looked up in one query (SQLite's bound-parameter limit is far higher; this keeps queries small).
_BATCH = 500


def detector_version(folder: str | Path | None = None) -> str:
    """A digest of every module of this room (or of ``folder``) and of the versions of the
    markdown parser, the sentence segmenter and the language identifier: what an analysis was
    computed by."""
    digest = hashlib.blake2b(digest_size=8)
    for path in sorted(Path(folder or Path(__file__).parent).glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    for package in ("markdown-it-py", "sentencex", "py3langid"):
        digest.update(package.encode() + installed_version(package).encode())
    return digest.hexdigest()


DETECTOR_VERSION = detector_version()


def analysis_key(text: str, mode: str) -> str:
    """The key of ``text``'s analysis in ``mode`` by this detector."""
    digest = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    return f"{mode}:{DETECTOR_VERSION}:{digest}"


class AnalysisStore:
    """The analyses kept in ``folder/analyses.sqlite3``. A store that cannot be opened or
    written is passed over (analyses are computed as if it were empty): it only saves time."""

    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder) / STORE_NAME
        self.hits = self.writes = 0
        """Analyses read and written through this store (for messages and tests)."""

    def _connect(self):
        return open_store(self.path, "CREATE TABLE IF NOT EXISTS analyses (key TEXT PRIMARY KEY, plain BLOB NOT NULL)")

    def load(self, texts: Sequence[str], mode: str) -> list[Analysis | None]:
        """The kept analysis of each text (None where there is none)."""
        import sqlite3

        keys = [analysis_key(t, mode) for t in texts]
        out: list[Analysis | None] = [None] * len(keys)
        try:
            connection = self._connect()
            try:
                for first, found in rows_by_key(connection, "analyses", keys, _BATCH):
                    for position, key in enumerate(keys[first:first + _BATCH], first):
                        raw = found.get(key)  # equal texts share one row
                        plain = unsealed(key, raw, STORE_NAME) if raw is not None else None
                        out[position] = Analysis.from_plain(marshal.loads(plain)) if plain is not None else None
            finally:
                connection.close()
        except (OSError, sqlite3.Error):
            return [None] * len(keys)
        self.hits += sum(a is not None for a in out)
        return out

    def fill(self, documents: Sequence[Document], analyses: dict[str, Analysis], mode: str) -> int:
        """Put in ``analyses`` (by document id) every kept analysis of the documents it lacks;
        how many were found."""
        missing = [d for d in documents if d.id not in analyses]
        found = {d.id: a for d, a in zip(missing, self.load([d.text for d in missing], mode)) if a is not None}
        analyses.update(found)
        return len(found)

    def keep(self, documents: Sequence[Document], analyses: dict[str, Analysis], ids: Iterable[str]) -> int:
        """Keep the analyses of the documents ``ids`` name; how many were written."""
        texts = {d.id: d.text for d in documents}
        return self.save((texts[i], analyses[i]) for i in dict.fromkeys(ids) if i in texts and i in analyses)

    def save(self, items: Iterable[tuple[str, Analysis]]) -> int:
        """Keep ``(text, analysis)`` pairs; how many were written (0 when the store cannot be)."""
        import sqlite3

        items = iter(items)
        first = next(items, None)
        if first is None:
            return 0
        written = 0
        try:
            connection = self._connect()
            try:
                with connection:
                    # In batches, so that the packed rows of a whole corpus are never held at once.
                    rows: list[tuple[str, bytes]] = []
                    for text, analysis in itertools.chain([first], items):
                        key = analysis_key(text, analysis.mode)
                        rows.append((key, sealed(key, marshal.dumps(analysis.to_plain()))))
                        if len(rows) == _BATCH:
                            connection.executemany("INSERT OR REPLACE INTO analyses VALUES (?, ?)", rows)
                            written, rows = written + len(rows), []
                    if rows:
                        connection.executemany("INSERT OR REPLACE INTO analyses VALUES (?, ?)", rows)
                        written += len(rows)
            finally:
                connection.close()
        except (OSError, sqlite3.Error):
            return 0
        self.writes += written
        return written
