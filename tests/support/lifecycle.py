"""The one lifecycle every surface runs (tests/integrations/test_lifecycle.py; issue 35, "Done
when"): facts remembered from chats, one superseded by a later message, one ended, a conversation
forgotten, a user forgotten, and the base reopened in another (spawned) process."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

from corollary import BeliefBase, ManualClock, PreferNewer, open_ledger
from corollary.models import Reply, ScriptedModel, ToolCall

#: the conversation forgotten (its words, and the fact that rested only on it)
SECRET_CHAT = "Ann here: my locker code is QX7731-ZEBRA, keep it safe."
SECRET = "QX7731-ZEBRA"
#: Ann's chats: where she works (ended later), where she lives (superseded later)
WORK_CHAT = "I work at Zorblax-Industries and live in Quillhaven-Bay."
MOVE_CHAT = "News: I moved to Marrowdale-East last week."
#: the user forgotten whole (a scope)
BOB_CHAT = "Bob: write to me at bob-private@hushmail-x.example please."
BOB_SECRET = "bob-private@hushmail-x.example"
#: what no read and no byte of the file may hold at the end
GONE = (SECRET, "locker code", BOB_SECRET, "user:bob")


def _fact(subject: str, attribute: str, value: str, quote: str) -> dict[str, str]:
    return {"subject": subject, "attribute": attribute, "value": value, "quote": quote}


#: when each chat was said (POSIX seconds; the base's clock reads :data:`NOW`)
AT = (1000.0, 2000.0, 3000.0, 4000.0)
NOW = 10_000.0
#: (text, source, facts) of each chat, in the order they are remembered
CHATS: tuple[tuple[str, str, list[dict[str, str]]], ...] = (
    (WORK_CHAT, "human:ann", [
        _fact("user:ann", "employer", "Zorblax-Industries", "I work at Zorblax-Industries"),
        _fact("user:ann", "city", "Quillhaven-Bay", "live in Quillhaven-Bay")]),
    (SECRET_CHAT, "human:ann", [
        _fact("user:ann", "locker", SECRET, f"my locker code is {SECRET}")]),
    (MOVE_CHAT, "human:ann", [
        _fact("user:ann", "city", "Marrowdale-East", "I moved to Marrowdale-East")]),
    (BOB_CHAT, "human:bob", [
        _fact("user:bob", "email", BOB_SECRET, f"write to me at {BOB_SECRET}")]),
)


def model() -> ScriptedModel:
    """A model that answers each chat's extraction in turn."""
    return ScriptedModel([Reply(None, [ToolCall(f"c{i}", "facts", {"facts": facts})])
                          for i, (_, _, facts) in enumerate(CHATS)])


def open_base(path: Path, clock: ManualClock | None = None) -> BeliefBase:
    clock = ManualClock(NOW) if clock is None else clock
    return BeliefBase.open_session(open_ledger(str(path)), "s", clock=clock,
                                   conflict_policy=PreferNewer())


def held(kb: BeliefBase) -> dict[str, Any]:
    """Every held value, by key."""
    return {k: kb.value(k) for k in sorted(kb.keys()) if kb.label(k) == "IN"}


def _reopen(path: str, out: Any) -> None:
    kb = open_base(Path(path))
    out.put((held(kb), sorted(kb.keys()), repr(kb.recall(f"{SECRET} {BOB_SECRET} Ann", 50))))
    kb.ledger.close()


def reopened(path: Path) -> tuple[dict[str, Any], list[str], str]:
    """What another (spawned) process reads from the file: held values, keys, a recall."""
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    child = ctx.Process(target=_reopen, args=(str(path), out))
    child.start()
    found = out.get(timeout=120)
    child.join(60)
    assert child.exitcode == 0
    return found  # type: ignore[no-any-return]


def raw_bytes(path: Path) -> bytes:
    """The SQLite file and its -wal, as on disk."""
    return b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))


#: what every surface's base holds at the end
EXPECTED = {"user:ann:city": "Marrowdale-East"}


def check_end(path: Path, expected: dict[str, Any] | None = None) -> None:
    """The end state, read by another process and in the file's bytes."""
    values, keys, recalled = reopened(path)
    wanted = EXPECTED if expected is None else expected
    assert {k: v for k, v in values.items() if ":doc:" not in k} == wanted
    assert not any(k.startswith("user:bob") or k == "user:ann:locker" for k in keys)
    assert "user:ann:employer" not in values  # ended
    raw = raw_bytes(path)
    assert b"Marrowdale-East" in raw  # what stays is there
    for word in GONE:
        assert word not in recalled
        assert word.encode() not in raw, word
