"""examples/local_model.py against a real HTTP server on loopback scripted as a small model
that talks first: the request after the nudge carries tool_choice = answer, the forced answer's
inputs are checked, and the run ends ok with its proof printed."""

from __future__ import annotations

import importlib.util
import json
import socket
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "models"))
from model_server import Answer, Server, completion  # noqa: E402


def example() -> object:
    spec = importlib.util.spec_from_file_location("local_model_example",
                                                  ROOT / "examples" / "local_model.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def call(value: object, key: str) -> list[dict[str, object]]:
    return [{"id": "c1", "type": "function", "function": {
        "name": "answer", "arguments": json.dumps({"value": value, "inputs": [key]})}}]


def test_the_example_runs_on_a_model_that_talks(capsys: pytest.CaptureFixture[str]) -> None:
    server = Server()
    try:
        for value, key in (("bo@example.com", "customer:7:email"),
                           ("enterprise", "customer:42:plan"), (110.0, "revenue:Q3")):
            server.then(Answer(body=completion(f"I think it is {value}.")),
                        Answer(body=completion(None, call(value, key), "tool_calls")))
        assert example().main(["--url", server.url, "--name", "smollm2"]) == 0  # type: ignore[attr-defined]
        sent = [r.json for r in server.requests]
    finally:
        server.close()
    out = capsys.readouterr().out
    assert out.count("  ok: ") == 3 and "customer:7:email = 'bo@example.com' [IN 0.95]" in out
    assert [("tool_choice" in body) for body in sent] == [False, True] * 3
    assert sent[1]["tool_choice"] == {"type": "function", "function": {"name": "answer"}}


def test_the_example_says_when_the_server_is_not_there(capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    closed_port = sock.getsockname()[1]
    sock.close()  # nothing listens there: connecting is refused
    assert example().main(["--url", f"http://127.0.0.1:{closed_port}/v1"]) == 1  # type: ignore[attr-defined]
    assert "the model server at" in capsys.readouterr().err
