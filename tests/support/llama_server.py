"""A loopback HTTP server that answers as llama-cpp-python's OpenAI-compatible server does
(``--chat_format chatml-function-calling``), with a scripted "model" (a Python function) in
place of the weights. What it copies, each seen on the real server (issue 39):

- the tools reach the model only when ``tool_choice`` names one, and the reply is then that
  tool's call; without it the model writes text (a small model writes the call as text);
- ``tool_choice="auto"`` never ends on the real server: here it is answered 400 at once, so a
  test that sends it fails loudly instead of hanging;
- ``response_format={"type": "json_object", "schema": ...}`` is the structured-output form it
  reads; OpenAI's ``{"type": "json_schema", ...}`` is refused with HTTP 500;
- an assistant message with ``"content": null`` (beside its ``tool_calls``) is refused with
  HTTP 500;
- the chat template escapes HTML in the messages (``I'm`` reaches the model as ``I&#39;m``),
  so a model copying its input copies the entities;
- ``max_tokens`` cuts the reply (its text, or the call's arguments): a text with
  ``finish_reason`` ``"length"``, a named tool's call still with ``"tool_calls"`` (the real
  server's function-calling format always says ``"tool_calls"``; only ``usage`` shows the cut,
  its ``completion_tokens`` at the limit);
- ``usage`` counts the prompt and the reply in tokens (four characters a token here), for the
  measures of a request's cost.
"""

from __future__ import annotations

import html
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs


@attrs.frozen
class Seen:
    """What the scripted model is given: the messages as the template renders them (entities
    escaped), the tool it must call (``None``: it writes text), that tool's schema, and the
    schema of a structured reply (``None``: free)."""

    messages: list[dict[str, Any]]
    tool: str | None
    parameters: dict[str, Any] | None
    schema: dict[str, Any] | None

    @property
    def text(self) -> str:
        """The last user message's content (where the task or the text to read is)."""
        return next(str(m.get("content") or "") for m in reversed(self.messages)
                    if m.get("role") == "user")


Brain = Callable[[Seen], "dict[str, Any] | str"]


def _tokens(text: str) -> int:
    return max(1, (len(text) + 3) // 4)


class LlamaLikeServer:
    """The server; ``brain(seen)`` returns the call's arguments (a dict) when a tool is named,
    the reply's JSON (a dict) under a schema, else text. Each request's body is kept in
    ``bodies`` and each reply's ``usage`` in ``usages``."""

    def __init__(self, brain: Brain) -> None:
        self.brain = brain
        self.bodies: list[dict[str, Any]] = []
        self.usages: list[dict[str, int]] = []
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # quiet tests
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
                with owner._lock:
                    owner.bodies.append(body)
                status, reply = owner.answer(body)
                payload = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.http.daemon_threads = True
        self.thread = threading.Thread(target=self.http.serve_forever, args=(0.01,), daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.http.server_address[1]}/v1"

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The status and JSON reply to one request body."""
        fmt = body.get("response_format")
        if isinstance(fmt, dict) and fmt.get("type") == "json_schema":
            return 500, {"error": {"message": "1 validation error for CreateChatCompletionRequest "
                                              "response_format.type: Input should be 'text' or "
                                              "'json_object'", "type": "internal_server_error"}}
        if any(m.get("role") == "assistant" and m.get("content") is None
               for m in body["messages"]):
            return 500, {"error": {"message": "1 validation error: messages.content: Input "
                                              "should be a valid string"}}
        choice = body.get("tool_choice")
        if choice == "auto":
            return 400, {"error": {"message": "tool_choice 'auto' generates without end on "
                                              "chatml-function-calling (refused by the fake)"}}
        tools = body.get("tools") or []
        named = choice.get("function", {}).get("name") if isinstance(choice, dict) else None
        tool = next((t["function"] for t in tools if t["function"]["name"] == named), None)
        messages = [{**m, "content": html.escape(m["content"])} if isinstance(m.get("content"), str)
                    else m for m in body["messages"]]
        schema = fmt.get("schema") if isinstance(fmt, dict) else None
        seen = Seen(messages, named if tool else None, tool and tool.get("parameters"), schema)
        made = self.brain(seen)
        text = made if isinstance(made, str) else json.dumps(made)
        limit = body.get("max_tokens")
        finish = "tool_calls" if tool else "stop"
        if isinstance(limit, int) and _tokens(text) > limit:
            text, finish = text[:limit * 4], "tool_calls" if tool else "length"
        prompt = json.dumps(messages) + (json.dumps(tool) if tool else "")
        usage = {"prompt_tokens": _tokens(prompt), "completion_tokens": _tokens(text)}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        with self._lock:
            self.usages.append(usage)
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if tool:
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{len(self.bodies)}", "type": "function",
                 "function": {"name": named, "arguments": text}}]}
        return 200, {"id": f"chatcmpl-{len(self.bodies)}", "object": "chat.completion",
                     "model": body.get("model"), "usage": usage,
                     "choices": [{"index": 0, "message": message, "finish_reason": finish}]}

    def close(self) -> None:
        self.http.shutdown()
        self.http.server_close()
        self.thread.join(5)
