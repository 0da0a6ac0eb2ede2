"""``StoreAddress`` and ``StoreFields``: string forms that round-trip, and every address a user
should not give refused with the reason (a password above all)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.errors import StoreAddressError
from inspector.stores.address import StoreAddress, StoreCredentials, parse_store
from inspector.stores.fields import StoredChunk, StoreFields, record_of, split_row

NAMES = st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,20}", fullmatch=True)
PATHS = st.from_regex(r"/?[A-Za-z0-9 _.~-]{1,12}(/[A-Za-z0-9 _.%#-]{1,12}){0,3}", fullmatch=True)


@given(kind=st.sampled_from(["chroma", "qdrant", "lancedb", "milvus"]), path=PATHS, name=NAMES)
def test_a_path_address_round_trips(kind, path, name):
    address = StoreAddress(kind, path, name)
    assert parse_store(str(address)) == address
    assert address.label == f"{kind} {name}" and not address.served


@given(kind=st.sampled_from(["chroma", "qdrant", "milvus"]), port=st.integers(1, 65535), name=NAMES,
       secure=st.booleans())
def test_a_server_address_round_trips(kind, port, name, secure):
    text = f"{kind}+http{'s' * secure}://db.internal:{port}?collection={name}"
    address = parse_store(text)
    assert address.served and address.location == f"http{'s' * secure}://db.internal:{port}"
    assert str(address) == text and parse_store(str(address)) == address


def test_a_postgresql_address_names_table_and_columns():
    address = parse_store("postgresql://reader@db:5433/rag?table=public.chunks&text=body&id=pk&metadata=meta")
    assert (address.kind, address.location, address.collection) == ("postgresql", "reader@db:5433/rag", "public.chunks")
    assert (address.text, address.id, address.metadata) == ("body", "pk", "meta")
    assert parse_store(str(address)) == address
    assert parse_store("postgres://reader@db/rag?table=t").kind == "postgresql"
    langchain = parse_store("postgresql://reader@db/rag?table=langchain_pg_embedding&collection=docs")
    assert langchain.pg_collection == "docs" and parse_store(str(langchain)) == langchain


@pytest.mark.parametrize("text, words", [
    ("postgresql://me:s3cret@db/rag?table=t", "carries a password"),
    ("chroma+http://me:s3cret@db:8000?collection=docs", "carries a password"),
    ("qdrant+https://db:6333?collection=docs&api_key=s3cret", "carries a credential (api_key=)"),
    ("chroma:/data?collection=docs&token=abc", "carries a credential (token=)"),
    ("chroma:/data", "names its collection: ?collection=NAME"),
    ("lancedb:/data?collection=docs", "takes ?table=NAME only"),
    ("weaviate:/data?collection=docs", "unknown store 'weaviate'"),
    ("lancedb+http://db?table=t", "read from a path, not a server"),
    ("chroma+ftp://db?collection=docs", "over http or https"),
    ("chroma:/data?collection=docs&collection=other", "given twice"),
    ("chroma:/data?collection=a b", "is not one a store uses"),
    ("chroma:/data?collection=docs&text=body", "take ?collection=NAME only"),
    ("postgresql://me@db?table=t", "USER@HOST[:PORT]/DB"),
    ("postgresql://me@db/rag?table=t&text=a;drop", "column name"),
    ("chroma+http://db:8000/api?collection=docs", "HOST:PORT"),
    ("chroma:/data\n?collection=docs", "control characters"),
    ("", "empty"),
    ("chroma:/" + "x" * 3000 + "?collection=d", "at most 2000 characters"),
])
def test_bad_addresses_are_refused_with_the_reason(text, words):
    with pytest.raises(StoreAddressError) as refused:
        parse_store(text)
    assert words.replace("take ?", "takes ?") in str(refused.value) or words in str(refused.value)
    assert "s3cret" not in str(refused.value), "a refusal never prints the secret"


def test_credentials_come_from_the_environment_and_never_print():
    found = StoreCredentials.from_environment({"CHUNK_INSPECTOR_STORE_KEY": "k-123",
                                               "CHUNK_INSPECTOR_STORE_PASSWORD": "pw-456"})
    assert (found.key, found.password) == ("k-123", "pw-456")
    assert "k-123" not in repr(found) and "pw-456" not in repr(found)


def test_store_fields_round_trip_and_refuse_what_they_do_not_know():
    fields = StoreFields.parse("doc=meta.path, start=offset,end=stop")
    assert (fields.doc, fields.start, fields.end, fields.text) == ("meta.path", "offset", "stop", "")
    assert StoreFields.parse(str(fields)) == fields and bool(fields) and not StoreFields()
    for bad in ("page=3", "doc", "doc=a,doc=b", "start=a b"):
        with pytest.raises(StoreAddressError):
            StoreFields.parse(bad)


def test_each_library_s_metadata_is_read_by_its_convention():
    langchain = StoredChunk("1", "text", {"source": "/x/a.md", "start_index": 5})
    llama = StoredChunk("2", "", {"_node_content": '{"text": "node text", "start_char_idx": 3, "end_char_idx": 12, '
                                                   '"metadata": {"file_path": "/x/b.md"}}', "doc_id": "uuid"})
    haystack = StoredChunk("3", "hay", {"file_path": "c.md", "split_idx_start": 40, "split_id": 2})
    chonkie = StoredChunk("4", "chunk", {"source": "d.md", "start_index": 1, "end_index": 6})
    none = StoredChunk("5", None, {"source": "d.md"})
    read = [record_of(c, n, StoreFields()) for n, c in enumerate((langchain, llama, haystack, chonkie, none), 1)]
    assert [convention for _, convention in read] == ["langchain", "llamaindex", "haystack", "chonkie", "langchain"]
    assert (read[0][0].doc_ref, read[0][0].start, read[0][0].end) == ("/x/a.md", 5, None)
    assert (read[1][0].doc_ref, read[1][0].text, read[1][0].start, read[1][0].end) == ("/x/b.md", "node text", 3, 12)
    assert (read[2][0].doc_ref, read[2][0].start) == ("c.md", 40)
    assert (read[3][0].start, read[3][0].end) == (1, 6)
    assert "no text and no offsets" in read[4][0].message
    own = record_of(StoredChunk("6", None, {"path": "e.md", "body": "B", "at": 9}), 6,
                    StoreFields(doc="path", start="at", text="body"))
    assert own[1] == "fields" and (own[0].doc_ref, own[0].text, own[0].start) == ("e.md", "B", 9)


def test_a_row_gives_its_text_and_metadata_apart():
    text, meta = split_row({"page_content": "T", "metadata": {"source": "a.md"}, "score": 1})
    assert text == "T" and meta == {"source": "a.md", "score": 1}
    text, meta = split_row({"text": "T", "id": "7", "metadata": '{"source": "b.md", "start_index": 4}',
                            "vector": [0.1]}, skip=("id",))
    assert text == "T" and meta == {"source": "b.md", "start_index": 4}
    assert split_row({"content": "T", "meta": {"file_path": "c.md"}})[1] == {"file_path": "c.md"}
