"""Issue 35, "Done when": one lifecycle end to end on each surface (the chats and checks are
tests/support/lifecycle.py): remember facts from chats, a later message supersedes a value, a fact
is ended, a conversation is forgotten, a user (a scope) is forgotten, and another process reopens
the SQLite file: it reads what stays, and no forgotten byte is in the file or its -wal
(docs/lifecycle.md). Before: the MCP server and the toolsets had no ``forget``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from support import lifecycle as life

from corollary.foundations.errors import CorollaryError


def test_python(tmp_path: Path) -> None:
    path = tmp_path / "l.db"
    kb = life.open_base(path)
    ai = life.model()
    # each chat in its user's scope: its document (user:<name>:doc:...) goes with the user
    docs = [kb.remember(text, source=src, model=ai, at=at,
                        scope="user:" + src.split(":")[1])[0].document
            for (text, src, _), at in zip(life.CHATS, life.AT, strict=True)]
    assert kb.value("user:ann:city") == "Marrowdale-East"  # superseded
    assert kb.value("user:ann:locker") == life.SECRET
    kb.end("user:ann:employer", source="human:ann", reason="left the job")
    assert kb.label("user:ann:employer") == "OUT"
    gone = kb.forget(docs[1], reason="asked to forget that chat")
    assert gone.beliefs == 2 and "user:ann:locker" not in kb.keys()
    assert kb.forget(scope="user:bob", reason="account deleted").beliefs == 2
    assert {k: v for k, v in life.held(kb).items() if ":doc:" not in k} == life.EXPECTED
    kb.ledger.close()
    life.check_end(path)


def test_mcp(tmp_path: Path) -> None:
    """Each user's server is scoped to that user (``corollary mcp --scope user:ann``), so the
    documents of their chats are filed under their scope and go with it."""
    try:
        from mcp import Client
    except ImportError:
        pytest.skip("the MCP SDK is the optional extra corollary[mcp]")
    from corollary.mcp import make_server

    path = tmp_path / "l.db"
    kb = life.open_base(path)
    ai = life.model()

    async def tool(client: Any, name: str, args: dict[str, Any]) -> Any:
        result = await client.call_tool(name, args)
        assert result.is_error is not True, result.content
        return result.structured_content

    async def ann(client: Any) -> list[Any]:
        made = [await tool(client, "remember", {"text": text, "source": src, "at": at})
                for (text, src, _), at in zip(life.CHATS[:3], life.AT[:3], strict=True)]
        city = await tool(client, "belief", {"key": "user:ann:city"})
        await tool(client, "end", {"key": "user:ann:employer", "source": "human:ann"})
        ended = await tool(client, "belief", {"key": "user:ann:employer"})
        chat = await tool(client, "forget", {"key": made[1]["remembered"][0]["document"],
                                             "reason": "asked to forget that chat"})
        locker = await client.call_tool("belief", {"key": "user:ann:locker"})
        refused = [await client.call_tool("forget", {"scope": "user:bob"}),
                   await client.call_tool("forget", {"source": "human:bob"})]
        return [city, ended, chat, locker, refused]

    async def bob(client: Any) -> Any:
        text, src, _ = life.CHATS[3]
        await tool(client, "remember", {"text": text, "source": src, "at": life.AT[3]})
        return await tool(client, "forget", {"scope": "user:bob", "reason": "account deleted"})

    async def go(scope: str, run: Any) -> Any:
        server = make_server(kb, model=ai, scope=scope)
        async with Client(server, raise_exceptions=True, read_timeout_seconds=30) as client:
            return await run(client)

    city, ended, chat, locker, (outside, by_source) = asyncio.run(go("user:ann", ann))
    assert city["value"] == "Marrowdale-East" and ended["label"] == "OUT"
    assert chat["beliefs"] == 2 and chat["entries"] > 0
    assert locker.is_error is True and "no belief" in locker.content[0].text  # never held
    assert outside.is_error is True and "user:bob" in outside.content[0].text
    assert by_source.is_error is True and "not by source" in by_source.content[0].text
    assert asyncio.run(go("user:bob", bob))["beliefs"] == 2  # the email and its chat
    kb.ledger.close()
    life.check_end(path)


def test_toolsets(tmp_path: Path) -> None:
    """The operations both toolsets hand their framework (pydantic-ai, the Agents SDK)."""
    from corollary import ManualClock
    from corollary.integrations.operations import Operations

    path = tmp_path / "l.db"
    clock = ManualClock(life.AT[0])
    kb = life.open_base(path, clock)
    ai = life.model()
    made = []
    for (text, src, _), at in zip(life.CHATS, life.AT, strict=True):
        clock.advance(at - clock())  # the toolsets' remember says things now
        user = "user:" + src.split(":")[1]
        made.append(Operations(kb, scope=user, model=ai).remember(text, src))
    ann = Operations(kb, scope="user:ann")
    assert ann.recall("Ann city")["beliefs"][0]["value"] == "Marrowdale-East"
    assert ann.end("user:ann:employer", "human:ann")["label"] == "OUT"
    chat = ann.forget(made[1]["remembered"][0]["document"], reason="asked to forget that chat")
    assert chat["beliefs"] == 2 and chat["entries"] > 0
    with pytest.raises(CorollaryError, match="user:bob"):
        ann.forget(scope="user:bob")
    with pytest.raises(CorollaryError, match="not by source"):
        ann.forget(source="human:bob")
    assert Operations(kb, scope="user:bob").forget(scope="user:bob")["beliefs"] == 2
    with pytest.raises(CorollaryError, match="no belief"):
        ann.explain("user:ann:locker")
    kb.ledger.close()
    life.check_end(path)


def test_langgraph_store(tmp_path: Path) -> None:
    """The store's items are the memories an agent keeps from its chats; ``delete`` ends one,
    ``store.forget`` erases one item or a whole namespace."""
    pytest.importorskip("langgraph", reason="the langgraph extra")
    from corollary import ManualClock
    from corollary.integrations.langgraph import CorollaryStore

    path = tmp_path / "l.db"
    clock = ManualClock(life.AT[0])
    store = CorollaryStore(life.open_base(path, clock), source=lambda ns: "human:" + ns[-1])
    ann, bob = ("user", "ann"), ("user", "bob")
    for ns, key, value in [(ann, "employer", "Zorblax-Industries"),
                           (ann, "city", "Quillhaven-Bay"), (ann, "locker", life.SECRET),
                           (ann, "city", "Marrowdale-East"), (bob, "email", life.BOB_SECRET)]:
        clock.advance(100)
        store.put(ns, key, {"said": value})
    assert store.get(ann, "city").value == {"said": "Marrowdale-East"}  # the later put
    store.delete(ann, "employer")
    assert store.get(ann, "employer") is None
    assert store.forget(ann, "locker", reason="asked to forget it").beliefs == 1
    assert store.forget(bob, reason="account deleted").beliefs == 1
    assert store.get(bob, "email") is None and store.search(bob) == []
    assert [i.key for i in store.search(ann)] == ["city"]
    store.kb.ledger.close()
    life.check_end(path, {"user:ann:city": {"said": "Marrowdale-East"}})
