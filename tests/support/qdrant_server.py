"""A Qdrant server on 127.0.0.1 for the tests: Qdrant's REST API, the calls a reader and a search
make, answered by ``qdrant-client``'s own local engine over a folder. Qdrant's server is a Rust
program no package registry ships; this speaks its protocol with its real storage behind it, so
``qdrant+http://`` goes through the client's real HTTP transport, its API key header included."""

from __future__ import annotations

import contextlib
import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

#: The version the root answers (the client compares it with its own).
VERSION = "1.20.0"


def _answer(result) -> bytes:
    return json.dumps({"result": result, "status": "ok", "time": 0.0}).encode()


def _dump(model):
    return model.model_dump(mode="json", exclude_none=True)


class _Handler(BaseHTTPRequestHandler):
    server: "QdrantServer"

    def log_message(self, *args) -> None:  # quiet
        pass

    def _send(self, status: int, body: bytes) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _route(self, method: str) -> None:
        self.server.requests.append((method, self.path, self.headers.get("api-key")))
        if self.server.key and self.headers.get("api-key") != self.server.key:
            self._send(401, json.dumps({"status": {"error": "Must provide an API key or an Authorization bearer "
                                                            "token"}, "time": 0.0}).encode())
            return
        length = int(self.headers.get("content-length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        path = self.path.split("?")[0]
        with self.server.lock:
            try:
                result = self.server.answer(method, path, body)
            except LookupError as exc:
                self._send(404, json.dumps({"status": {"error": f"Not found: {exc}"}, "time": 0.0}).encode())
                return
        self._send(200, result if isinstance(result, bytes) else _answer(result))

    def do_GET(self) -> None:
        self._route("GET")

    def do_POST(self) -> None:
        self._route("POST")


class QdrantServer(ThreadingHTTPServer):
    def __init__(self, folder: Path, key: str = "") -> None:
        from qdrant_client import QdrantClient

        super().__init__(("127.0.0.1", 0), _Handler)
        self.local, self.key, self.lock = QdrantClient(path=str(folder)), key, threading.Lock()
        self.requests: list[tuple[str, str, str | None]] = []

    def answer(self, method: str, path: str, body: dict):
        if path == "/":
            return json.dumps({"title": "qdrant - vector search engine", "version": VERSION}).encode()
        if path == "/collections":
            return _dump(self.local.get_collections())
        found = re.fullmatch(r"/collections/([^/]+)(/.*)?", path)
        if not found:
            raise LookupError(path)
        name, rest = found.group(1), found.group(2) or ""
        if rest == "/exists":
            return {"exists": self.local.collection_exists(name)}
        if not self.local.collection_exists(name):
            raise LookupError(f"Collection `{name}` doesn't exist!")
        if rest == "":
            return _dump(self.local.get_collection(name))
        if rest == "/points/count":
            return _dump(self.local.count(name, exact=body.get("exact", True)))
        if rest == "/points/scroll":
            points, offset = self.local.scroll(name, limit=body.get("limit", 10), offset=body.get("offset"),
                                               with_payload=body.get("with_payload", True),
                                               with_vectors=body.get("with_vector", False))
            return {"points": [_dump(p) for p in points], "next_page_offset": offset}
        if rest == "/points/query":
            query = body["query"]
            query = query.get("nearest", query) if isinstance(query, dict) else query
            answered = self.local.query_points(name, query=query, using=body.get("using"), limit=body.get("limit", 10),
                                               with_payload=body.get("with_payload", False))
            return _dump(answered)
        raise LookupError(path)


@contextlib.contextmanager
def qdrant_server(folder: Path, key: str = ""):
    """The server over ``folder`` (a Qdrant local-mode folder), asking ``key`` in the ``api-key``
    header when given; yields it (``url``, ``requests``)."""
    server = QdrantServer(folder, key)
    server.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        server.local.close()
