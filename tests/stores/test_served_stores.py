"""A store behind a server: a real Chroma server (``chroma run``, from the chromadb wheel) started on
127.0.0.1 over a folder LangChain filled, read and searched as ``chroma+http://``: the same chunks,
placed the same, as the folder read directly; and Milvus Lite's gRPC server (``milvus-lite server``)
filled by LangChain's ``Milvus`` through its address and read as ``milvus+http://``; and
``qdrant+http://`` through the client's HTTP transport against a loopback server speaking Qdrant's
REST API over its local engine (Qdrant's own server comes from no package registry)."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from inspector import Workspace, load_corpus
from inspector.chunks.sets import make_chunk_set
from inspector.errors import StoreError
from inspector.retrieval.ranking import Question
from inspector.retrieval.retriever_spec import parse_retriever
from inspector.stores import parse_store, read_store
from inspector.stores.search import store_retriever
from tests.support import stores
from tests.support.embedding import EmbeddingServer
from tests.support.paths import SAMPLE
from tests.support.services import free_port

pytestmark = pytest.mark.service


@contextlib.contextmanager
def milvus_server(folder: Path, wait: float = 60.0):
    """``milvus-lite server`` over ``folder`` on a free port of 127.0.0.1; yields its address."""
    binary = Path(sys.executable).parent / "milvus-lite"
    if not binary.exists():
        pytest.fail("the milvus-lite command (from the milvus-lite wheel) is missing")
    port = free_port()
    log = open(folder.parent / "milvus-server.log", "wb")
    server = subprocess.Popen([str(binary), "server", "--data-dir", str(folder), "--host", "127.0.0.1",
                               "--port", str(port)], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + wait
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=2):
                break
            if server.poll() is not None or time.monotonic() > deadline:
                said = (folder.parent / "milvus-server.log").read_text()[-2000:]
                pytest.fail(f"milvus-lite server did not start: {said}")
            time.sleep(0.25)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()


@contextlib.contextmanager
def chroma_server(folder: Path, wait: float = 60.0):
    binary = Path(sys.executable).parent / "chroma"
    if not binary.exists():
        binary = shutil.which("chroma")
    if not binary:
        pytest.fail("the chroma command (from the chromadb wheel) is missing")
    port = free_port()
    log = open(folder.parent / "chroma-server.log", "wb")
    server = subprocess.Popen([str(binary), "run", "--path", str(folder), "--host", "127.0.0.1", "--port", str(port)],
                              stdout=log, stderr=subprocess.STDOUT, env=dict(os.environ, ANONYMIZED_TELEMETRY="False"))
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + wait
        while True:
            try:
                with urllib.request.urlopen(url + "/api/v2/heartbeat", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    said = (folder.parent / "chroma-server.log").read_text()[-2000:]
                    pytest.fail(f"chroma run did not start: {said}")
                time.sleep(0.25)
        yield url
    finally:
        server.terminate()
        server.wait(timeout=20)
        log.close()


def test_a_chroma_server_is_read_and_searched_like_its_folder(tmp_path):
    chunks = stores.langchain_chunks(SAMPLE / "handbook")
    folder = tmp_path / "chroma"
    stores.fill_chroma(folder, chunks)
    work = Workspace(load_corpus(SAMPLE / "handbook", keep_front_matter=True))
    documents = list(work.documents)
    direct = read_store(parse_store(f"chroma:{folder}?collection=docs"), documents)
    with chroma_server(folder) as url:
        address = parse_store(f"chroma+{url}?collection=docs")
        served = read_store(address, documents)
        assert served.stored == served.result.imported == len(chunks) and served.problems == ()
        sets = [make_chunk_set("x", work.fingerprint, work.documents, r.result.chunks) for r in (direct, served)]
        assert sets[0].id == sets[1].id
        spec = work.add_chunk_set(sets[1])
        with EmbeddingServer(width=stores.WIDTH) as embeddings:
            retriever = store_retriever(served, parse_retriever("dense:openai:test-embed"), base_url=embeddings.url)
            (ranked,) = retriever.rank([Question.of("Which port does replication use?")], work.pool(spec), 5)
        assert len(ranked) == 5 and retriever.unplaced == 0 and retriever.notes == []
        with pytest.raises(StoreError, match=r"no collection 'other' in the store \(it has: docs\)"):
            read_store(parse_store(f"chroma+{url}?collection=other"), documents)
    with pytest.raises(StoreError, match="cannot open chroma\\+http://127.0.0.1"):
        read_store(address, documents)  # the server is gone


def test_a_milvus_server_filled_through_its_address_is_read_and_searched(tmp_path):
    from inspector.chunks.importer import import_chunks

    chunks = stores.langchain_chunks(SAMPLE / "handbook")
    work = Workspace(load_corpus(SAMPLE / "handbook", keep_front_matter=True))
    documents = list(work.documents)
    with milvus_server(tmp_path / "milvus") as url:
        uri = stores.fill_milvus(url, chunks)
        assert uri == f"milvus+{url}?collection=docs"
        served = read_store(parse_store(uri), documents)
        assert served.stored == served.result.imported == len(chunks) and served.problems == (), served.lines()
        from_file = import_chunks(stores.as_jsonl(chunks, tmp_path / "chunks.jsonl"), work)
        sets = [make_chunk_set("x", work.fingerprint, work.documents, r.chunks) for r in (served.result, from_file)]
        assert sets[0].id == sets[1].id, "the same spans and prefixes as the same chunks from a file"
        question = "Which port does replication use?"
        (ranked,), _, _ = stores.asked(work, served, [question])
        assert ranked == stores.nearest(question, chunks, "l2", 5)
        with pytest.raises(StoreError, match=r"no collection 'other'"):
            read_store(parse_store(f"milvus+{url}?collection=other"), documents)
    with pytest.raises(StoreError, match="cannot open milvus\\+http://127.0.0.1"):
        read_store(parse_store(uri), documents)  # the server is gone


def test_a_qdrant_server_is_read_and_searched_with_its_api_key(tmp_path, monkeypatch, capsys):
    from inspector.cli import main
    from inspector.stores.address import StoreCredentials
    from tests.support.qdrant_server import qdrant_server

    chunks = stores.langchain_chunks(SAMPLE / "handbook")
    folder = tmp_path / "qdrant"
    stores.fill_qdrant(folder, chunks)
    work = Workspace(load_corpus(SAMPLE / "handbook", keep_front_matter=True))
    documents = list(work.documents)
    key = "k-5f2a9"
    with qdrant_server(folder, key=key) as server:
        address = parse_store(f"qdrant+{server.url}?collection=docs")
        credentials = StoreCredentials(key=key)
        served = read_store(address, documents, credentials=credentials)
        assert served.stored == served.result.imported == len(chunks) and served.problems == ()
        assert "Api key is used with an insecure connection" in served.note, "said once, not a Python warning"
        question = "Which port does replication use?"
        (ranked,), _, _ = stores.asked(work, served, [question], credentials=credentials)
        assert ranked == stores.nearest(question, chunks, "cosine", 5)
        assert {given for _, _, given in server.requests} == {key}, "every call carried the key"
        assert any(path.endswith("/points/query") for _, path, _ in server.requests)
        with pytest.raises(StoreError, match=r"no collection 'other' in the store \(it has: docs\)"):
            read_store(parse_store(f"qdrant+{server.url}?collection=other"), documents, credentials=credentials)
        argv = ["export", str(SAMPLE / "handbook"), "--keep-front-matter", "--store", str(address)]
        for given in ("", "wrong"):
            monkeypatch.setenv("CHUNK_INSPECTOR_STORE_KEY", given)
            assert main(argv) == 2
            said = capsys.readouterr().err
            assert f"cannot open {address}" in said and "401" in said and said.count("error:") == 1, said
            assert key not in said and "Traceback" not in said
        monkeypatch.setenv("CHUNK_INSPECTOR_STORE_KEY", key)
        assert main(argv) == 0
        assert len(capsys.readouterr().out.splitlines()) == len(chunks)
