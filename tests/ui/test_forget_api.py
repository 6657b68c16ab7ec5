"""Issue 35, item 2, through ``corollary ui``'s JSON API: a server following a session reads a
conversation, and once another process forgets it, no endpoint answers with any of its words
(the server follows the journal: docs/journal.md, "Forgetting"). Before: no ``kb.forget``."""

from __future__ import annotations

import json
import time
from pathlib import Path
from urllib.parse import quote

from support.forget_workers import FORGOTTEN, open_session, remember_pin

from ui.conftest import needs_ui_extra, serving
from ui.test_api import get


def _everything(url: str, keys: list[str]) -> str:
    paths = ["/api/summary", "/api/beliefs?limit=500", "/api/history?limit=1000",
             "/api/problems", "/api/sources", "/api/source?name=human%3Aann",
             "/api/source?name=model%3Aremember"]
    paths += [f"/api/belief?key={quote(k)}" for k in keys]
    found = []
    for path in paths:
        status, _, body = get(url, path)
        assert status in (200, 404), (path, body)
        found.append(body.decode())
    return "\n".join(found)


def test_the_inspector_drops_a_forgotten_conversation(tmp_path: Path) -> None:
    needs_ui_extra()
    path = str(tmp_path / "l.db")
    kb = open_session(path, {})
    doc = remember_pin(kb)
    kb.assert_("ann:city", "Paris", source="tool:crm")
    keys = ["ann:pin", "ann:city", doc]
    with serving("--ledger", path, "--session", "s") as url:
        assert "73914682" in _everything(url, keys)
        kb.forget(doc, by="human:dpo")
        deadline = time.monotonic() + 30
        while "73914682" in _everything(url, keys):
            assert time.monotonic() < deadline, "the server did not follow the forget"
            time.sleep(0.2)
        seen = _everything(url, ["ann:city"])
        for word in (*FORGOTTEN, doc):
            assert word not in seen
        for key in (doc, "ann:pin"):  # asked by name: not found (the answer names what was asked)
            assert get(url, f"/api/belief?key={quote(key)}")[0] == 404
        beliefs = json.loads(get(url, "/api/beliefs?limit=500")[2])
        assert [r["key"] for r in beliefs["rows"]] == ["ann:city"]
    kb.ledger.close()
