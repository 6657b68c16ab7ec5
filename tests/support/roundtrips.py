"""A TCP proxy on loopback that counts round trips to a PostgreSQL server.

A round trip is a burst the client sends after the server last spoke (or first): what a
client waits for. Tests point a ledger's URL at :attr:`RoundTrips.url` to count what an
operation asks of the database, a count rather than a time (docs: "speed is measured, not
asserted").
"""

from __future__ import annotations

import select
import socket
import threading
from urllib.parse import urlsplit, urlunsplit


class RoundTrips:
    """Forward every connection to the server of ``url``; :attr:`count` the round trips."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        self._target = (parts.hostname or "127.0.0.1", parts.port or 5432)
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self._sock.listen(16)
        port = self._sock.getsockname()[1]
        netloc = parts.netloc.rsplit("@", 1)
        host = f"127.0.0.1:{port}"
        self.url = urlunsplit(parts._replace(
            netloc=f"{netloc[0]}@{host}" if len(netloc) == 2 else host))
        self.count = 0
        #: the first bytes each round trip sent, in order
        self.sent: list[bytes] = []
        self._lock = threading.Lock()
        self._closing = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self._closing:
            try:
                client, _ = self._sock.accept()
            except OSError:
                return
            server = socket.create_connection(self._target)
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, client: socket.socket, server: socket.socket) -> None:
        spoke = "server"
        try:
            while True:
                ready, _, _ = select.select([client, server], [], [], 1.0)
                if self._closing:
                    return
                for side in ready:
                    data = side.recv(65536)
                    if not data:
                        return
                    if side is client:
                        server.sendall(data)
                        if spoke == "server":
                            with self._lock:
                                self.count += 1
                                self.sent.append(data[:512])
                        spoke = "client"
                    else:
                        client.sendall(data)
                        spoke = "server"
        except OSError:
            return
        finally:
            client.close()
            server.close()

    def close(self) -> None:
        self._closing = True
        self._sock.close()
