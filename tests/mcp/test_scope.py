"""``corollary mcp --scope``: a server confined to key prefixes shows nothing outside them through
any tool or resource, refuses every change outside them (the base unchanged), and names an input
outside them in a proof only as outside. The isolation is checked the way peers' bugs broke it
(a scoped delete that reset every user, a filter ignored in one result type): a property over
random bases calls every read tool and looks for any key or value outside the scope in the
answers."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from contextlib import suppress
from typing import Any

import pytest

try:
    from mcp import Client, MCPError
except ImportError:
    pytest.skip("the MCP SDK is the optional extra corollary[mcp]", allow_module_level=True)
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from corollary import BeliefBase, CorollaryError, InvalidInputError, ManualClock  # noqa: E402
from corollary.foundations.scope import OUTSIDE, Scope  # noqa: E402
from corollary.mcp import make_server  # noqa: E402

SCOPE = ("customer:42", "store")


def call(server: Any, body: Callable[[Client], Awaitable[Any]]) -> Any:
    async def go() -> Any:
        async with Client(server, raise_exceptions=True, read_timeout_seconds=30) as client:
            return await body(client)

    return asyncio.run(go())


def shop() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(1_000.0), conflict_policy=None)
    for c in (7, 42, 420):
        secret = "" if c == 42 else "secret-"  # what customer 42's agent must never read
        kb.assert_(f"customer:{c}:address", f"{secret}{c} Oak St", source="tool:crm",
                   half_life=10.0)
    kb.assert_("store:address", "1 Main St", source="tool:crm")
    kb.assert_("customer:7:plan", "secret-enterprise", source="tool:crm")
    kb.assert_("customer:7:plan", "secret-basic", source="human:ops")  # an open conflict
    kb.claim("customer:42:nearest", "store", source="model:m",
             inputs=["customer:42:address", "store:address", "customer:7:address"])
    return kb


def structured(result: Any) -> Any:
    assert result.is_error is False, result.content
    return result.structured_content


def test_every_read_tool_shows_nothing_outside_the_scope() -> None:
    kb = shop()
    kb.clock.advance(100.0)  # the addresses fade: faded lists them

    async def body(client: Client) -> dict[str, Any]:
        return {
            "recall": await client.call_tool("recall", {"query": "address Oak St", "k": 50}),
            "beliefs": await client.call_tool("beliefs", {}),
            "beliefs_q": await client.call_tool("beliefs", {"query": "address"}),
            "conflicts": await client.call_tool("conflicts", {}),
            "faded": await client.call_tool("faded", {"min_confidence": 0.99}),
            "explain": await client.call_tool("explain", {"key": "customer:42:nearest"}),
            "check": await client.call_tool("what_to_check", {"key": "customer:42:nearest"}),
            "proof": await client.read_resource("proof://customer:42:nearest"),
        }

    every = call(make_server(shop()), body)  # unscoped, the same calls see the others
    assert "customer:7" in json.dumps(structured(every["conflicts"]))
    found = call(make_server(kb, scope=SCOPE), body)
    for name, result in found.items():
        text = json.dumps(result.model_dump(mode="json"), ensure_ascii=False)
        assert "secret" not in text and "customer:7" not in text and "customer:420" not in text, name
    assert {b["key"] for b in structured(found["beliefs"])["beliefs"]} == {
        "customer:42:address", "store:address", "customer:42:nearest"}
    assert structured(found["conflicts"]) == {"conflicts": []}
    assert [f["key"] for f in structured(found["faded"])["faded"]] == ["customer:42:address"]
    assert {i["key"] for i in structured(found["check"])["items"]} == {"customer:42:address"}
    proof = structured(found["explain"])
    assert f"└─ {OUTSIDE} = None [IN " in proof["text"]
    assert "customer:42:address = '42 Oak St'" in proof["text"]
    assert proof["text"] == found["proof"].contents[0].text


def test_reads_and_changes_outside_the_scope_are_tool_errors_and_change_nothing() -> None:
    kb = shop()
    before = kb.to_dict()
    del before["taken_at"]

    async def body(client: Client) -> list[Any]:
        return [
            await client.call_tool("belief", {"key": "customer:7:address"}),
            await client.call_tool("explain", {"key": "customer:420:address"}),
            await client.call_tool("what_to_check", {"key": "customer:7:address"}),
            await client.call_tool("retract", {"key": "customer:7:address"}),
            await client.call_tool("assert_fact", {"key": "customer:7:address", "value": "x",
                                                   "source": "tool:crm"}),
            await client.call_tool("claim", {"key": "customer:42:plan", "value": "x",
                                             "source": "model:m",
                                             "inputs": ["customer:7:plan"]}),
            await client.call_tool("claim", {"key": "customer:42:g", "value": 1.0,
                                             "source": "model:m", "formula": "a",
                                             "inputs": {"a": "customer:420:address"}}),
            await client.call_tool("claim", {"key": "customer:42:q", "value": 1,
                                             "source": "model:m", "inputs": [],
                                             "citation": {"document": "customer:7:plan",
                                                          "quote": "secret"}}),
            await client.call_tool("resolve", {"conflict": "customer:7:plan",
                                               "winner": "secret-basic"}),
        ]

    results = call(make_server(kb, scope=SCOPE), body)
    for result in results:
        assert result.is_error is True
        assert "outside the scope (customer:42, store)" in result.content[0].text
    after = kb.to_dict()
    del after["taken_at"]
    assert after == before

    async def resource(client: Client) -> Any:
        with pytest.raises(MCPError) as refused:
            await client.read_resource("belief://customer:7:address")
        return refused.value

    assert "outside the scope" in str(call(make_server(kb, scope=SCOPE), resource))


def test_changes_inside_the_scope_work() -> None:
    kb = shop()

    async def body(client: Client) -> list[Any]:
        return [
            await client.call_tool("assert_fact", {"key": "customer:42:email", "value": "a@b",
                                                   "source": "tool:crm"}),
            await client.call_tool("claim", {"key": "customer:42:ok", "value": True,
                                             "source": "model:m",
                                             "inputs": ["customer:42:email"]}),
            await client.call_tool("retract", {"key": "customer:42:address"}),
        ]

    for result in call(make_server(kb, scope=SCOPE), body):
        assert result.is_error is False
    assert kb.value("customer:42:ok") is True and kb.label("customer:42:address") == "OUT"
    assert kb.label("customer:7:address") == "IN"  # the scoped delete reset nobody else


def test_a_bad_scope_is_refused_before_a_server_is_made() -> None:
    with pytest.raises(InvalidInputError):
        make_server(shop(), scope=("customer:",))


WHO = ["customer:1", "customer:10", "customer:2", "store"]
FIELDS = ["address", "email", "plan"]
READS: list[tuple[str, dict[str, Any]]] = [
    ("recall", {"query": "address email plan oak pine elm", "k": 50}),
    ("beliefs", {}), ("beliefs", {"query": "oak pine elm"}), ("conflicts", {}),
    ("faded", {"min_confidence": 1.0}),
]


@settings(max_examples=25, deadline=None)
@given(facts=st.lists(st.tuples(st.sampled_from(WHO), st.sampled_from(FIELDS),
                                st.sampled_from(["oak", "pine", "elm"]),
                                st.sampled_from(["tool:crm", "human:ops"])),
                      min_size=1, max_size=20),
       derived=st.lists(st.tuples(st.sampled_from(WHO), st.lists(st.integers(0, 19),
                                                                  max_size=3)), max_size=4),
       prefixes=st.lists(st.sampled_from(WHO + ["customer"]), min_size=1, max_size=2))
def test_no_read_tool_answers_with_a_key_outside_the_scope(
        facts: list[tuple[str, str, str, str]], derived: list[tuple[str, list[int]]],
        prefixes: list[str]) -> None:
    kb = BeliefBase(clock=ManualClock(0.0), conflict_policy=None)
    for who, field, value, source in facts:
        kb.assert_(f"{who}:{field}", f"{who}={value}", source=source, half_life=5.0)
    keys = sorted({f"{w}:{f}" for w, f, _, _ in facts})
    for n, (who, picks) in enumerate(derived):
        with suppress(CorollaryError):  # an input in conflict: no claim
            kb.claim(f"{who}:derived{n}", n, source="model:m",
                     inputs=sorted({keys[i % len(keys)] for i in picks}))
    kb.clock.advance(50.0)
    scope = Scope.of(prefixes)
    every = sorted({h.key for h in kb.beliefs()})
    inside = [k for k in every if scope.contains(k)]

    async def body(client: Client) -> list[Any]:
        out = [await client.call_tool(name, args) for name, args in READS]
        for key in every:
            out.append(await client.call_tool("belief", {"key": key}))
            out.append(await client.call_tool("explain", {"key": key}))
            out.append(await client.call_tool("what_to_check", {"key": key}))
        return out

    results = call(make_server(kb, scope=scope), body)
    shown = []
    for result in results:
        if result.is_error:
            text = result.content[0].text
            assert "outside the scope" in text or "conflict" in text, text
            continue
        shown.append(json.dumps(result.structured_content, ensure_ascii=False))
    outside = [k for k in every if not scope.contains(k)]
    for text in shown:
        for key in outside:
            # a value names its key's owner ("customer:1=oak"), so a leaked value shows too
            assert f'"{key}"' not in text and f"{key} =" not in text, (key, text)
        for who in WHO:
            if not scope.contains(f"{who}:address"):
                assert f"{who}=" not in text, (who, text)
    listed = json.loads(shown[1])["beliefs"]  # beliefs, unfiltered by a query
    assert sorted({b["key"] for b in listed}) == inside
