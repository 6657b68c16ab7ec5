"""A real HTTP server on 127.0.0.1, scripted per test, that records what went over the wire.

The tests reach it through the ``server`` fixture (``conftest.py``)."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs


@attrs.frozen
class Received:
    """One request as the server read it."""

    method: str
    path: str
    headers: dict[str, str]  # names in lower case
    body: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.body)


@attrs.frozen
class Answer:
    """What the server does with one request.

    ``action``: ``"reply"`` (status, headers, body), ``"hang"`` (answer nothing until the test
    ends), ``"drop"`` (close the connection without a word), ``"trickle"`` (send the status line,
    then a header byte every 50 ms for up to 3 s, then a proper reply), ``"short"`` (the
    headers promise 100 bytes more than the body, which is sent before a clean close).
    """

    status: int = 200
    body: Any = None  # dict/list -> JSON, str -> UTF-8 text, bytes as they are
    headers: dict[str, str] = attrs.field(factory=dict)
    action: str = "reply"

    def payload(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        if isinstance(self.body, str):
            return self.body.encode("utf-8")
        return json.dumps(self.body).encode("utf-8")


def completion(content: Any = "hello", tool_calls: Any = None, finish: str = "stop",
               **message: Any) -> dict[str, Any]:
    """A chat completion body as OpenAI sends it."""
    msg: dict[str, Any] = {"role": "assistant", "content": content, **message}
    if tool_calls is not None:
        msg["tool_calls"] = tool_calls
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "message": msg, "finish_reason": finish}]}


class Server:
    """The scripted server: answers come from ``script`` in order, then ``default``."""

    def __init__(self) -> None:
        self.requests: list[Received] = []
        self.script: list[Answer] = []
        self.default = Answer(body=completion())
        self.released = threading.Event()
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 - the http.server naming
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                with server._lock:
                    server.requests.append(Received(
                        self.command, self.path,
                        {name.lower(): value for name, value in self.headers.items()}, body,
                    ))
                    answer = server.script.pop(0) if server.script else server.default
                server.answer(self, answer)

            do_GET = do_POST  # noqa: N815

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.thread = threading.Thread(target=self.http.serve_forever, args=(0.01,), daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/v1"

    def then(self, *answers: Answer) -> Server:
        self.script.extend(answers)
        return self

    def answer(self, handler: BaseHTTPRequestHandler, answer: Answer) -> None:
        if answer.action == "hang":
            self.released.wait(10)
            handler.close_connection = True
            return
        if answer.action == "drop":
            handler.close_connection = True
            handler.connection.shutdown(socket.SHUT_RDWR)
            return
        if answer.action == "trickle":
            handler.wfile.write(b"HTTP/1.1 200 OK\r\n")
            handler.wfile.flush()
            stop = time.monotonic() + 3
            try:
                while time.monotonic() < stop and not self.released.is_set():
                    handler.wfile.write(b"X-Slow: a\r\n")
                    handler.wfile.flush()
                    time.sleep(0.05)
                payload = json.dumps(completion("too late")).encode()
                handler.wfile.write(b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(payload))
                handler.wfile.write(payload)
            except OSError:  # the client gave up and closed: what the test wants
                pass
            handler.close_connection = True
            return
        payload = answer.payload()
        handler.send_response(answer.status)
        headers = {"Content-Type": "application/json", **answer.headers}
        for name, value in headers.items():
            handler.send_header(name, value)
        short = answer.action == "short"
        handler.send_header("Content-Length", str(len(payload) + 100 * short))
        handler.end_headers()
        handler.wfile.write(payload)
        if short:
            handler.wfile.flush()
            handler.close_connection = True
            handler.connection.shutdown(socket.SHUT_WR)  # a clean close (FIN), not a reset

    def close(self) -> None:
        self.released.set()
        self.http.shutdown()
        self.http.server_close()
        self.thread.join(5)
