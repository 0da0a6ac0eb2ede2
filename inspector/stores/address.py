"""``StoreAddress``: where a user's vector store is, as a frozen value whose string form round-trips.

The forms, one per store::

    chroma:PATH?collection=NAME              a Chroma PersistentClient folder
    chroma+http://HOST:PORT?collection=NAME  a Chroma server
    qdrant:PATH?collection=NAME              Qdrant's local mode (a folder)
    qdrant+http://HOST:PORT?collection=NAME  a Qdrant server
    lancedb:PATH?table=NAME                  a LanceDB folder
    milvus:FILE.db?collection=NAME           Milvus Lite
    milvus+http://HOST:PORT?collection=NAME  a Milvus server
    postgresql://USER@HOST[:PORT]/DB?table=NAME[&text=COL&id=COL&metadata=COL][&collection=NAME]

(``collection=`` picks one of LangChain's ``PGVector`` collections when ``langchain_pg_embedding``
holds several.)

``https`` works wherever ``http`` does. Credentials never travel in the address: one with a
password (or a key in its query) is refused, and clients read them from the environment
(``StoreCredentials``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from ..errors import StoreAddressError

#: The stores, as the addresses name them.
KINDS: tuple[str, ...] = ("chroma", "qdrant", "lancedb", "milvus", "postgresql")
#: Stores that also answer over HTTP (``KIND+http://``).
SERVED: tuple[str, ...] = ("chroma", "qdrant", "milvus")
#: The longest address read (an argument or a setting could carry any length).
MAX_ADDRESS_LENGTH = 2_000
#: PostgreSQL's column defaults: LangChain's ``langchain_pg_embedding`` table, and LlamaIndex's
#: ``data_<name>`` tables.
LANGCHAIN_COLUMNS = ("document", "id", "cmetadata")
LLAMAINDEX_COLUMNS = ("text", "node_id", "metadata_")
_NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.:-]{0,254}$")
_SECRET = re.compile(r"pass|secret|key|token|auth", re.I)


@dataclass(frozen=True, slots=True)
class StoreAddress:
    """A vector store and the collection (or table) holding the user's chunks."""

    kind: str
    """One of ``KINDS``."""

    location: str
    """A folder or file for the embedded stores; ``http(s)://HOST:PORT`` for a server;
    ``USER@HOST[:PORT]/DB`` for PostgreSQL."""

    collection: str
    """The collection (Chroma, Qdrant, Milvus) or table (LanceDB, PostgreSQL)."""

    text: str = ""
    """PostgreSQL: the text column (default: LangChain's or LlamaIndex's, whichever exists)."""

    id: str = ""
    """PostgreSQL: the id column."""

    metadata: str = ""
    """PostgreSQL: the metadata column (JSON or JSONB)."""

    pg_collection: str = ""
    """PostgreSQL: one of LangChain's ``PGVector`` collections (``langchain_pg_collection.name``),
    when the table holds several."""

    def __post_init__(self) -> None:
        problem = self.problem()
        if problem:
            raise StoreAddressError(problem)

    def problem(self) -> str | None:
        """Why this address cannot name a store, or None."""
        if self.kind not in KINDS:
            return f"unknown store {self.kind!r}; the stores are {', '.join(KINDS)}"
        if not self.location:
            return f"a {self.kind} address needs a {'server' if self.kind == 'postgresql' else 'path'}"
        if not _NAME.match(self.collection or ""):
            what = self.table_word
            return (f"a {self.kind} address names its {what}: ?{what}=NAME (letters, digits, _ . : -)"
                    if not self.collection else f"{what} name {self.collection[:60]!r} is not one a store uses")
        for column in (self.text, self.id, self.metadata):
            if column and not _NAME.match(column):
                return f"column name {column[:60]!r} is not one a table uses"
        if self.pg_collection and not _NAME.match(self.pg_collection):
            return f"collection name {self.pg_collection[:60]!r} is not one LangChain uses"
        if (self.text or self.id or self.metadata or self.pg_collection) and self.kind != "postgresql":
            return "text=, id=, metadata= and collection= name parts of a PostgreSQL table only"
        if self.served and self.kind not in (*SERVED, "postgresql"):
            return f"{self.kind} is read from a path, not a server"
        return None

    @property
    def served(self) -> bool:
        """Whether the store is a server rather than files on this machine."""
        return self.kind == "postgresql" or self.location.startswith(("http://", "https://"))

    @property
    def table_word(self) -> str:
        """What the store calls the thing holding chunks."""
        return "table" if self.kind in ("lancedb", "postgresql") else "collection"

    @property
    def label(self) -> str:
        """A short name for people: ``chroma docs``."""
        return f"{self.kind} {self.collection}"

    def __str__(self) -> str:
        query = {self.table_word: self.collection}
        query.update((k, v) for k, v in (("text", self.text), ("id", self.id), ("metadata", self.metadata),
                                         ("collection", self.pg_collection)) if v)
        tail = "?" + urlencode(query, safe=":")
        if self.kind == "postgresql":
            return f"postgresql://{self.location}{tail}"
        if self.served:
            return f"{self.kind}+{self.location}{tail}"
        return f"{self.kind}:{quote(self.location, safe='/._-~:')}{tail}"

    @classmethod
    def parse(cls, text: str) -> "StoreAddress":
        """Read an address (``StoreAddressError`` with the reason when it is not one)."""
        if not isinstance(text, str) or not text.strip():
            raise StoreAddressError("a store address is empty")
        if len(text) > MAX_ADDRESS_LENGTH:
            raise StoreAddressError(f"a store address is at most {MAX_ADDRESS_LENGTH} characters, got {len(text):,}")
        if not text.isprintable():
            raise StoreAddressError("a store address holds control characters")
        scheme, _, rest = text.strip().partition(":")
        scheme = scheme.lower()
        if scheme in ("postgresql", "postgres"):
            return _postgresql(text.strip())
        kind, plus, protocol = scheme.partition("+")
        if kind not in KINDS:
            raise StoreAddressError(f"unknown store {kind[:30]!r} in {_shown(text)}; an address starts with "
                             + ", ".join(f"{k}:" for k in KINDS))
        if plus and protocol not in ("http", "https"):
            raise StoreAddressError(f"a {kind} server is reached over http or https, not {protocol[:20]!r}")
        parts = urlsplit(f"{protocol}:{rest}" if plus else "file:" + rest)
        _no_credentials(parts, text)
        query = _query(parts.query, text)
        word = "table" if kind == "lancedb" else "collection"
        collection = query.pop(word, "")
        if query:
            raise StoreAddressError(f"{_shown(text)}: {kind} takes ?{word}=NAME only, not {', '.join(sorted(query))}")
        if plus:
            if not parts.hostname or parts.path not in ("", "/"):
                raise StoreAddressError(f"{_shown(text)}: a server address is {kind}+{protocol}://HOST:PORT")
            location = f"{protocol}://{parts.netloc}"
        else:
            location = unquote(rest.split("?", 1)[0])
        return cls(kind, location, collection)


def _postgresql(text: str) -> StoreAddress:
    parts = urlsplit(text)
    _no_credentials(parts, text)
    query = _query(parts.query, text)
    table = query.pop("table", "")
    columns = {k: query.pop(k, "") for k in ("text", "id", "metadata")}
    columns["pg_collection"] = query.pop("collection", "")
    if query:
        raise StoreAddressError(f"{_shown(text)}: postgresql takes table=, text=, id=, metadata= and collection=, "
                                f"not {', '.join(sorted(query))}")
    database = parts.path.lstrip("/")
    if not parts.hostname or not database or "/" in database:
        raise StoreAddressError(f"{_shown(text)}: a PostgreSQL address is postgresql://USER@HOST[:PORT]/DB?table=NAME")
    return StoreAddress("postgresql", f"{parts.netloc}/{database}", table, **columns)


def _no_credentials(parts, text: str) -> None:
    try:
        password = parts.password
    except ValueError:
        password = None
    if password is not None:
        raise StoreAddressError(f"{_shown(text)} carries a password; addresses are printed and shared, so credentials "
                         "come from the environment (CHUNK_INSPECTOR_STORE_PASSWORD, CHUNK_INSPECTOR_STORE_KEY or "
                         "the client's own variables such as PGPASSWORD)")


def _query(query: str, text: str) -> dict[str, str]:
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query), max_num_fields=8)
    except ValueError:
        raise StoreAddressError(f"{_shown(text)}: its query (after ?) cannot be read") from None
    found: dict[str, str] = {}
    for key, value in pairs:
        if _SECRET.search(key):
            raise StoreAddressError(f"{_shown(text)} carries a credential ({key}=); credentials come from the "
                                    "environment (CHUNK_INSPECTOR_STORE_KEY, CHUNK_INSPECTOR_STORE_PASSWORD)")
        if key in found:
            raise StoreAddressError(f"{_shown(text)}: {key}= is given twice")
        found[key] = value
    return found


def _shown(text: str) -> str:
    """An address as messages print it: a password blanked, cut short."""
    shown = re.sub(r"(//[^/@:]*:)[^@/]*@", r"\1***@", text)
    shown = re.sub(r"([?&][^=&]*(?:pass|secret|key|token|auth)[^=&]*=)[^&]*", r"\1***", shown, flags=re.I)
    return repr(shown if len(shown) <= 120 else shown[:120] + "…")


def parse_store(text: str | StoreAddress) -> StoreAddress:
    """Accept an address or its string form."""
    return text if isinstance(text, StoreAddress) else StoreAddress.parse(text)


@dataclass(frozen=True, slots=True)
class StoreCredentials:
    """What a client may need to be let in, read once from the environment."""

    key: str = ""
    """An API key or token (Chroma, Qdrant and Milvus servers): ``CHUNK_INSPECTOR_STORE_KEY``."""

    password: str = ""
    """A PostgreSQL password: ``CHUNK_INSPECTOR_STORE_PASSWORD`` (libpq's own ``PGPASSWORD`` and
    ``~/.pgpass`` work too)."""

    @classmethod
    def from_environment(cls, environ: Mapping[str, str]) -> "StoreCredentials":
        return cls(environ.get("CHUNK_INSPECTOR_STORE_KEY", ""), environ.get("CHUNK_INSPECTOR_STORE_PASSWORD", ""))

    def __repr__(self) -> str:  # never printed, even by accident
        return f"StoreCredentials(key={'***' if self.key else ''!r}, password={'***' if self.password else ''!r})"
