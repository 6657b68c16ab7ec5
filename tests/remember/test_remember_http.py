"""remember through OpenAIChat against a real OpenAI-compatible server on loopback."""

from __future__ import annotations

import json
import socket

import pytest
from model_server import Answer, Server, completion
from remember_cases import fact

from corollary import BeliefBase, ManualClock
from corollary.foundations.errors import ModelConnectionError
from corollary.models import OpenAIChat

FAST = {"backoff_base": 0.001, "backoff_cap": 0.01, "api_key": ""}


def wire_facts(*items: object) -> dict[str, object]:
    arguments = json.dumps({"facts": list(items)})
    return completion(None, [{"id": "c1", "type": "function",
                              "function": {"name": "facts", "arguments": arguments}}],
                      finish="tool_calls")


def test_remember_over_http(server: Server) -> None:
    server.then(Answer(body=wire_facts(fact("Alice", "city", "Paris", "I live in Paris"))))
    kb = BeliefBase(clock=ManualClock(0))
    (r,) = kb.remember("I live in Paris.", source="human:alice",
                       model=OpenAIChat(server.url, "qwen2.5", **FAST))
    assert (r.key, r.value, r.source) == ("alice:city", "Paris", "model:qwen2.5")
    (sent,) = server.requests
    body = sent.json
    assert [t["function"]["name"] for t in body["tools"]] == ["facts"]
    assert "I live in Paris." in body["messages"][-1]["content"]


def test_a_refused_connection_is_a_model_connection_error() -> None:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    kb = BeliefBase(clock=ManualClock(0))
    model = OpenAIChat(f"http://127.0.0.1:{port}/v1", "m", max_retries=0, **FAST)
    with pytest.raises(ModelConnectionError):
        kb.remember("Paris", source="human:alice", model=model)
    assert not kb.engine.keys
