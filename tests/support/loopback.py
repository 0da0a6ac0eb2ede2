"""A JSON-over-HTTP server on 127.0.0.1 for the clients of hosted services (embeddings, chat):
``answer(path, body, headers)`` returns ``(status, body, headers)`` for each POST."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class LoopbackServer:
    """Serves POSTs on a free port of the loopback address while used as a context manager;
    ``url`` is its base (``http://127.0.0.1:PORT/v1``)."""

    def __init__(self, answer) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):  # noqa: N802 (the name http.server calls)
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                status, reply, headers = answer(self.path, body, dict(self.headers))
                raw = reply if isinstance(reply, bytes) else json.dumps(reply).encode()
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.http.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.http.shutdown()
        self.http.server_close()
