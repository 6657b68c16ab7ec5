"""The remember tests use the model tests' loopback server (``model_server``) and the helpers in
``remember_cases``."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # remember_cases
sys.path.insert(0, str(HERE.parent / "models"))  # model_server

import pytest  # noqa: E402
from model_server import Server  # noqa: E402


@pytest.fixture
def server():  # type: ignore[no-untyped-def]
    srv = Server()
    try:
        yield srv
    finally:
        srv.close()
