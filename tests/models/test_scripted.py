"""ScriptedModel, FunctionModel, the protocols and the complete/acomplete helpers."""

from __future__ import annotations

import asyncio
import threading

import pytest

from corollary.foundations.errors import (
    InvalidInputError,
    InvalidTypeError,
    ModelError,
    ModelTimeoutError,
    ScriptExhaustedError,
)
from corollary.models import (
    AsyncModel,
    FunctionModel,
    Model,
    Reply,
    ScriptedModel,
    ToolCall,
    acomplete,
    complete,
)

USER = [{"role": "user", "content": "hi"}]
TOOLS = [{"type": "function", "function": {"name": "f", "parameters": {"type": "object", "properties": {}}}}]


def test_scripted_model_replies_in_order_then_is_exhausted():
    calls = Reply(None, [ToolCall("c1", "f", {"x": 1})])
    model = ScriptedModel([calls, "done"])
    assert model.complete(USER, TOOLS) == calls
    assert model.complete(USER, []) == Reply("done")
    assert model.remaining == 0
    with pytest.raises(ScriptExhaustedError, match="request 3 found no reply left") as caught:
        model.complete(USER, [])
    assert isinstance(caught.value, ModelError)
    assert len(model.requests) == 3  # the request that found nothing was sent all the same


def test_requests_are_deep_copies_as_sent():
    model = ScriptedModel(["a", "b"])
    messages = [{"role": "user", "content": "first", "meta": {"tags": ["x"]}}]
    tools = [dict(TOOLS[0])]
    model.complete(messages, tools)
    messages[0]["meta"]["tags"].append("changed")
    messages.append({"role": "assistant", "content": "a"})
    tools[0]["function"] = {"name": "g"}
    model.complete(messages, tools)
    assert model.requests[0] == ([{"role": "user", "content": "first", "meta": {"tags": ["x"]}}], TOOLS)
    assert model.requests[1] == (messages, tools)
    assert model.requests[1][0] is not messages


def test_an_exception_in_the_script_is_raised_at_its_turn():
    model = ScriptedModel([ModelTimeoutError("slow"), "after"])
    with pytest.raises(ModelTimeoutError):
        model.complete(USER, [])
    assert model.complete(USER, []).text == "after"


@pytest.mark.parametrize("script", ["just a string", Reply("x"), 5, [5], [None], [{"text": "x"}]])
def test_a_bad_script_is_a_typed_error(script):
    with pytest.raises(InvalidTypeError):
        ScriptedModel(script)


def test_scripted_model_checks_the_request():
    model = ScriptedModel(["x"])
    for messages, tools in [((), []), ([], []), (USER, None), ([{"role": 1}], []), ([{"role": "user", "content": object()}], [])]:
        with pytest.raises((InvalidTypeError, InvalidInputError)):
            model.complete(messages, tools)
    assert model.requests == [] and model.remaining == 1


def test_scripted_model_shared_by_threads_gives_each_reply_once():
    model = ScriptedModel([str(i) for i in range(200)])
    got: list[str] = []
    lock = threading.Lock()

    def ask() -> None:
        for _ in range(50):
            text = model.complete(USER, []).text
            with lock:
                got.append(text)

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(got, key=int) == [str(i) for i in range(200)]
    assert len(model.requests) == 200


def test_scripted_model_async():
    model = ScriptedModel(["a", "b"])
    assert asyncio.run(model.acomplete(USER, [])).text == "a"
    assert asyncio.run(acomplete(model, USER, [])).text == "b"
    with pytest.raises(ScriptExhaustedError):
        asyncio.run(model.acomplete(USER, []))


def test_function_model_reads_str_and_reply_and_refuses_the_rest():
    seen = []

    def fn(messages, tools):
        seen.append((len(messages), len(tools)))
        return {0: "text", 1: Reply(None, [ToolCall("c", "f")]), 2: 42, 3: None}[len(seen) - 1]

    model = FunctionModel(fn)
    assert model.complete(USER, TOOLS) == Reply("text")
    assert model.complete(USER, []).tool_calls[0].name == "f"
    with pytest.raises(InvalidTypeError, match="returned int"):
        model.complete(USER, [])
    with pytest.raises(InvalidTypeError, match="returned NoneType"):
        asyncio.run(model.acomplete(USER, []))
    assert seen == [(1, 1), (1, 0), (1, 0), (1, 0)]
    with pytest.raises(InvalidTypeError):
        FunctionModel("not callable")  # type: ignore[arg-type]


def test_function_model_with_an_async_function():
    async def fn(messages, tools):
        await asyncio.sleep(0)
        return "async " + messages[-1]["content"]

    model = FunctionModel(fn)
    assert asyncio.run(model.acomplete(USER, [])).text == "async hi"
    assert model.complete(USER, []).text == "async hi"  # no loop running here: run to its end

    async def inside_a_loop() -> None:
        with pytest.raises(ModelError, match="use acomplete"):
            model.complete(USER, [])

    asyncio.run(inside_a_loop())


def test_function_model_plain_function_runs_off_the_event_loop():
    threads = []

    def fn(messages, tools):
        threads.append(threading.current_thread())
        return "ok"

    assert asyncio.run(FunctionModel(fn).acomplete(USER, [])).text == "ok"
    assert threads[0] is not threading.main_thread()


class SyncOnly:
    def __init__(self):
        self.threads = []

    def complete(self, messages, tools):
        self.threads.append(threading.current_thread())
        return "sync"


def test_protocols_and_helpers():
    assert isinstance(ScriptedModel([]), Model) and isinstance(ScriptedModel([]), AsyncModel)
    assert isinstance(SyncOnly(), Model) and not isinstance(SyncOnly(), AsyncModel)
    assert not isinstance(object(), Model)
    sync = SyncOnly()
    assert complete(sync, USER, []) == Reply("sync")
    assert asyncio.run(acomplete(sync, USER, [])) == Reply("sync")  # complete, in a worker thread
    assert sync.threads[0] is threading.main_thread() and sync.threads[1] is not threading.main_thread()
    with pytest.raises(InvalidTypeError, match="not a model"):
        complete(object(), USER, [])  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="not a model"):
        asyncio.run(acomplete(object(), USER, []))  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        complete(sync, [], [])


def test_helpers_refuse_what_is_not_a_reply():
    class Bad:
        def complete(self, messages, tools):
            return 3

        def acomplete(self, messages, tools):  # not async: returns no awaitable
            return Reply("x")

    with pytest.raises(InvalidTypeError, match="returned int"):
        complete(Bad(), USER, [])
    with pytest.raises(InvalidTypeError, match="not an awaitable"):
        asyncio.run(acomplete(Bad(), USER, []))
