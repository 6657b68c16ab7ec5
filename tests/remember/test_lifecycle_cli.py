"""Issue 35, "Done when", on the CLI (the other surfaces are tests/integrations/test_lifecycle.py):
``python -m corollary`` remembers chats into a journaled SQLite session with a model on loopback
(a later message supersedes a value, another ends a fact), ``corollary forget`` erases a
conversation and a user, and a last process reads what stays; no forgotten byte is in the file.
Each command is its own process, so every step reopens the session."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from model_server import Answer, Server
from remember_cases import fact, wire_facts
from support import lifecycle as life
from support.cli_support import ROOT, env_for


def forgot(*args: str) -> int:
    """How many beliefs ``corollary forget ARGS`` erased."""
    return cli("forget", *args)["forgotten"]["beliefs"]  # type: ignore[no-any-return]


def cli(*args: str) -> Any:
    done = subprocess.run([sys.executable, "-m", "corollary", *args, "--json"],
                          capture_output=True, text=True, timeout=60, env=env_for(ROOT),
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout)


def test_the_lifecycle_on_the_cli(tmp_path: Path, server: Server) -> None:
    db = tmp_path / "l.db"
    session = ["--ledger", str(db), "--session", "s"]
    chats = [  # (text, source, facts); no --scope on remember: the subjects name the users
        (life.WORK_CHAT, "human:ann", [fact("Ann", "employer", "Zorblax-Industries",
                                            "I work at Zorblax-Industries"),
                                       fact("Ann", "city", "Quillhaven-Bay",
                                            "live in Quillhaven-Bay")]),
        (life.SECRET_CHAT, "human:ann", [fact("Ann", "locker", life.SECRET,
                                              f"my locker code is {life.SECRET}")]),
        (life.MOVE_CHAT, "human:ann", [fact("Ann", "city", "Marrowdale-East",
                                            "I moved to Marrowdale-East")]),
        ("I quit Zorblax-Industries today.", "human:ann", [fact(
            "Ann", "employer", "Zorblax-Industries", "I quit Zorblax-Industries", ended=True)]),
        (life.BOB_CHAT, "human:bob", [fact("Bob", "email", life.BOB_SECRET,
                                           f"write to me at {life.BOB_SECRET}")]),
    ]
    made = []
    for i, (text, source, facts) in enumerate(chats):
        server.then(Answer(body=wire_facts(*facts)))
        path = tmp_path / f"chat{i}.txt"
        path.write_text(text, encoding="utf-8")
        made.append(cli("remember", str(path), *session, "--source", source,
                        "--at", str(1000.0 * (i + 1)), "--model", server.url))
    chat = made[1]["remembered"][0]["document"]
    assert forgot(chat, *session, "--reason", "asked to forget that chat") == 2
    # a user: what they said (their chats' documents, doc:..., outside their keys) and their keys
    assert forgot(*session, "--source", "human:bob", "--reason", "account deleted") == 2
    assert forgot(*session, "--scope", "bob", "--reason", "account deleted") == 0  # all gone
    held = {b["key"]: b["value"] for b in cli("beliefs", *session)["beliefs"]}
    assert {k: v for k, v in held.items() if not k.startswith("doc:")} == {
        "ann:city": "Marrowdale-East"}  # superseded; the employer ended; the rest forgotten
    assert {v for k, v in held.items() if k.startswith("doc:")} == {
        text for text, _, _ in (chats[0], *chats[2:4])}  # ann's other chats stay
    raw = life.raw_bytes(db)
    assert b"Marrowdale-East" in raw
    for word in life.GONE:
        assert word.encode() not in raw, word
