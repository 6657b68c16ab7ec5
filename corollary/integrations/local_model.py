"""What helps a small local model through the agent loop: ``AnswerAfterText``.

A small model often answers in plain text instead of calling ``answer``; the loop then keeps
the text and nudges it to call a tool, claim, or answer (``prompts.NUDGE``), and a model that
keeps talking ends the run with no answer. A server that constrains its output to a tool call
(llama.cpp's grammar, through ``tool_choice``) can make the next reply the answer instead:
:class:`AnswerAfterText` sends the request that follows a nudge to a second model, configured
to require the ``answer`` call, so the model must state its value and the beliefs it rests on,
which the base checks like any answer (an input not held is refused and goes back to the model).
benchmarks/bench_local_model.py measures both (docs/integrations.md, "A local model").

The agent now does this itself by default (docs/agent.md, "Named steps": after a text reply it
names ``answer``, its inputs limited to held keys); ``AnswerAfterText`` is for an agent made
with ``force_answer=False``, whose requests name no tool.
"""

from __future__ import annotations

from typing import Any

from ..agent import prompts
from ..foundations.errors import InvalidTypeError
from ..foundations.model_request import accepts_options

__all__ = ["ANSWER_PARAMETERS", "AnswerAfterText", "EmptyContent", "answer_required"]

#: The ``answer`` tool's parameters as the forced request sends them: a schema a grammar
#: converter can take (llama.cpp's refuses the loop's own, whose ``value`` has no type, and
#: falls back to any JSON object: the model then invents keys). The loop still checks the
#: call against its own schema, of which this is a part.
ANSWER_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "value": {"anyOf": [{"type": "string"}, {"type": "number"}, {"type": "boolean"}],
                  "description": "The answer."},
        "inputs": {"type": "array", "items": {"type": "string"},
                   "description": "The keys of the held beliefs the answer rests on."},
    },
    "required": ["value", "inputs"],
}


def answer_required() -> dict[str, Any]:
    """The ``tool_choice`` that requires a call of ``answer`` (OpenAI's request field).

    >>> answer_required()
    {'type': 'function', 'function': {'name': 'answer'}}
    """
    return {"type": "function", "function": {"name": "answer"}}


class AnswerAfterText:
    """A model that answers through ``free``, except the request right after the loop nudged a
    plain-text reply, which goes to ``forced`` (the same model, with
    ``tool_choice=answer_required()``).

    Examples
    --------
    >>> from corollary import Agent, BeliefBase, ScriptedModel
    >>> from corollary.models import Reply, ToolCall
    >>> kb = BeliefBase()
    >>> kb.assert_("customer:7:email", "bo@example.com", source="tool:crm")
    >>> free = ScriptedModel(["Customer 7's email is bo@example.com."])
    >>> forced = ScriptedModel([Reply(None, [ToolCall("1", "answer", {
    ...     "value": "bo@example.com", "inputs": ["customer:7:email"]})])])
    >>> run = Agent(AnswerAfterText(free, forced), kb, force_answer=False).run(
    ...     "What is customer 7's email?")
    >>> run.status, run.answer, len(free.requests), len(forced.requests)
    ('ok', 'bo@example.com', 1, 1)
    """

    def __init__(self, free: Any, forced: Any) -> None:
        for model in (free, forced):
            if not callable(getattr(model, "complete", None)):
                raise InvalidTypeError(f"{model!r} is not a model: it has no "
                                       "complete(messages, tools)")
        self.free = free
        self.forced = forced

    def _pick(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
              ) -> tuple[Any, list[dict[str, Any]]]:
        """The model a request goes to, and the tools it is sent with (for the forced one,
        ``answer`` with :data:`ANSWER_PARAMETERS`)."""
        if not (messages and messages[-1].get("content") == prompts.NUDGE):
            return self.free, tools
        return self.forced, [
            {**t, "function": {**t["function"], "parameters": ANSWER_PARAMETERS}}
            if t.get("function", {}).get("name") == "answer" else t for t in tools]

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Any:
        """The reply of the model this request goes to."""
        model, sent = self._pick(messages, tools)
        return model.complete(messages, sent)

    async def acomplete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
                        ) -> Any:
        """:meth:`complete`, awaited (through the model's ``acomplete`` when it has one)."""
        model, sent = self._pick(messages, tools)
        if callable(getattr(model, "acomplete", None)):
            return await model.acomplete(messages, sent)
        return model.complete(messages, sent)


class EmptyContent:
    """A model whose requests carry ``""`` for an assistant message's null content:
    llama-cpp-python's server refuses ``"content": null`` beside ``tool_calls`` (HTTP 500, a
    validation error), which OpenAI's API allows and the loop sends after a tool call.

    >>> from corollary import ScriptedModel
    >>> inner = ScriptedModel(["ok"])
    >>> EmptyContent(inner).complete([{"role": "user", "content": "hi"},
    ...                               {"role": "assistant", "content": None}], []).text
    'ok'
    >>> inner.requests[0][0][1]
    {'role': 'assistant', 'content': ''}
    """

    def __init__(self, model: Any) -> None:
        if not callable(getattr(model, "complete", None)):
            raise InvalidTypeError(f"{model!r} is not a model: it has no complete(messages, tools)")
        self.model = model

    @staticmethod
    def _sent(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [dict(m, content="") if m.get("role") == "assistant" and m.get("content") is None
                else m for m in messages]

    def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                 options: Any = None) -> Any:
        """The model's reply to the messages as sent (with the request's own ``options`` for a
        model that takes them)."""
        extra = {"options": options} if options is not None and accepts_options(
            self.model.complete) else {}
        return self.model.complete(self._sent(messages), tools, **extra)

    async def acomplete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]
                        ) -> Any:
        """:meth:`complete`, awaited (through the model's ``acomplete`` when it has one)."""
        if callable(getattr(self.model, "acomplete", None)):
            return await self.model.acomplete(self._sent(messages), tools)
        return self.model.complete(self._sent(messages), tools)
