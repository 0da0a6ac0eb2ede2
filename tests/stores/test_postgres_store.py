"""A PostgreSQL table of chunks laid out as LangChain's ``PGVector`` lays it out, in a real server
the test starts: read through a server-side cursor in a read-only transaction, every chunk placed;
a table or column that is not there, or not text, refused in one line naming the store.

Debian's PostgreSQL here has no pgvector extension, so the vectors sit in a ``float8[]`` column;
the reader never selects them either way (``test_pgvector_store`` reads and searches a real
pgvector table)."""

from __future__ import annotations

import pytest

from inspector import load_corpus
from inspector.errors import StoreError
from inspector.stores import open_reader, parse_store, read_store
from tests.support import stores
from tests.support.files import write
from tests.support.paths import SAMPLE

pytestmark = pytest.mark.service


@pytest.fixture
def server(postgres_url):
    return postgres_url  # the run's PostgreSQL server (tests/conftest.py)


def test_a_langchain_pgvector_table_is_read_and_placed(server):
    import psycopg

    chunks = stores.langchain_chunks(SAMPLE / "handbook")
    uri = stores.fill_postgres(server, chunks)
    corpus = load_corpus(SAMPLE / "handbook", keep_front_matter=True)
    found = read_store(parse_store(uri), list(corpus.documents))
    assert found.stored == found.result.imported == len(chunks) and found.problems == ()
    assert found.result.placements["offsets"] == len(chunks)
    with psycopg.connect(server) as connection:
        assert connection.execute("SELECT count(*) FROM langchain_pg_embedding").fetchone()[0] == len(chunks)
    # A second LangChain collection in the same table: all are read unless one is named.
    blog = stores.langchain_chunks(SAMPLE / "blog")
    stores.fill_postgres(server, blog, collection="blog")
    both = read_store(parse_store(uri), list(corpus.documents))
    assert both.stored == len(chunks) + len(blog) and "holds the chunks of 2 LangChain collections" in both.note
    one = read_store(parse_store(uri + "&collection=docs"), list(corpus.documents))
    assert one.stored == one.result.imported == len(chunks) and one.note == ""
    with pytest.raises(StoreError, match=r"no LangChain collection 'nope' \(it has: blog, docs\)"):
        read_store(parse_store(uri + "&collection=nope"), list(corpus.documents))


def test_a_plain_table_with_its_columns_named(server, tmp_path):
    import psycopg

    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute("CREATE TABLE notes (pk integer PRIMARY KEY, body text, meta json, score float8)")
        connection.execute("INSERT INTO notes VALUES (1, 'Replication uses port 7430.', "
                           "'{\"path\": \"ports.md\"}', 0.5)")
    folder = tmp_path
    write(folder, "ports.md", "# Ports\n\nReplication uses port 7430.\n")
    documents = list(load_corpus(folder).documents)
    found = read_store(parse_store(f"{server}?table=notes&text=body&id=pk&metadata=meta"), documents)
    assert found.result.imported == 1 and found.result.origins[0].chunk_id == "1"
    reader = open_reader(parse_store(f"{server}?table=notes&text=body"))
    with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
        reader.connection.execute("DELETE FROM notes")
    reader.close()
    with pytest.raises(StoreError, match=r"column 'score' is double precision, not text"):
        read_store(parse_store(f"{server}?table=notes&text=score"), documents)
    with pytest.raises(StoreError, match=r"no column 'nope' in notes"):
        read_store(parse_store(f"{server}?table=notes&text=body&metadata=nope"), documents)
    with pytest.raises(StoreError, match=r"no table 'missing' in the database"):
        read_store(parse_store(f"{server}?table=missing"), documents)


def test_a_server_that_cannot_be_reached_is_named(server):
    from tests.support.services import free_port

    with pytest.raises(StoreError, match=r"cannot connect to postgresql://postgres@127\.0\.0\.1:\d+/postgres"):
        read_store(parse_store(f"postgresql://postgres@127.0.0.1:{free_port()}/postgres?table=t"), [])


def test_a_server_that_refuses_the_credentials_is_named(server):
    refused = server.replace("postgres@", "nobody@") + "?table=langchain_pg_embedding"
    with pytest.raises(StoreError) as caught:
        read_store(parse_store(refused), [])
    message = str(caught.value)
    assert message.startswith(f"cannot connect to {refused}") and 'role "nobody" does not exist' in message
    assert "CHUNK_INSPECTOR_STORE_PASSWORD" in message
