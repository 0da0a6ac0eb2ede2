"""A store behind a server: a real Chroma server (``chroma run``, from the chromadb wheel) started on
127.0.0.1 over a folder LangChain filled, read and searched as ``chroma+http://``: the same chunks,
placed the same, as the folder read directly. (Qdrant's and Milvus's servers do not come from a
package registry, so their ``+http`` addresses are tested only as far as their clients' local modes.)"""

from __future__ import annotations

import contextlib
import os
import shutil
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
