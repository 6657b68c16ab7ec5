"""The model layer: what a chat model is, and models to use and to test with.

A model is any object with ``complete(messages, tools) -> Reply`` (and optionally an async
``acomplete``), speaking the OpenAI chat format. This package knows nothing of beliefs: it
depends only on :mod:`corollary.foundations.errors` and the standard library (and attrs).

- :class:`Reply`, :class:`ToolCall`: what a model answers; :func:`assistant_message`,
  :func:`tool_message`: what goes back into the conversation.
- :class:`Model`, :class:`AsyncModel`: the protocols; :func:`complete`, :func:`acomplete`.
- :class:`ScriptedModel`, :class:`FunctionModel`: for tests and examples.
- :class:`OpenAIChat`: OpenAI and compatible servers (vLLM, Ollama, llama.cpp).
- :func:`tool_schema`: an OpenAI function schema from a Python function.
- :class:`RequestOptions`, :func:`tool_named`: one request's own ``tool_choice`` and reply schema.

See ``docs/models.md``.
"""

from ..foundations.model_request import RequestOptions, tool_named
from .openai_chat import OpenAIChat
from .protocol import AsyncModel, Model, acomplete, check_request, complete
from .reply import Reply, ToolCall, assistant_message, tool_message
from .schema import tool_schema
from .scripted import FunctionModel, ScriptedModel

__all__ = [
    "AsyncModel",
    "FunctionModel",
    "Model",
    "OpenAIChat",
    "Reply",
    "RequestOptions",
    "ScriptedModel",
    "ToolCall",
    "acomplete",
    "assistant_message",
    "check_request",
    "complete",
    "tool_message",
    "tool_named",
    "tool_schema",
]
