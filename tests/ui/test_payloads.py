"""Held (issue 28): script payloads in every text the inspector shows (keys, values, sources,
reasons, conflicts, history) are drawn as text and never run, in a real headless Chromium
over a real ``corollary ui`` on a journaled SQLite session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from corollary import BeliefBase, ManualClock, open_ledger
from ui.conftest import Watched, needs_ui_extra, serving

IMG = '<img src=x onerror="window.__pwned=1">'
SCRIPT = "<script>window.__pwned=2</script>"
KEY = f"k:{IMG}"
SOURCE = f"tool:{IMG}"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "l.db"
    with open_ledger(path) as ledger:
        kb = BeliefBase.open_session(ledger, "s", clock=ManualClock(1_700_000_000))
        kb.assert_(KEY, IMG, source=SOURCE)
        kb.assert_(KEY, SCRIPT, source="document:x")  # an open conflict of two payloads
        kb.assert_("other", SCRIPT, source=SOURCE)
        kb.retract("other", reason=IMG)
        kb.record_outcome(SOURCE, False, reason=IMG)
    return path


@pytest.fixture(scope="module")
def url(hostile: Path) -> Iterator[str]:
    needs_ui_extra()
    with serving("--ledger", str(hostile), "--session", "s") as found:
        yield found


@pytest.mark.parametrize("route, shows", [
    ("#/beliefs", IMG), (f"#/belief/{quote(KEY, safe='')}", SCRIPT),
    ("#/belief/other", IMG), ("#/problems", SCRIPT), ("#/sources", SOURCE),
    (f"#/source/{quote(SOURCE, safe='')}", IMG), ("#/promises", "Promises"),
])
def test_payloads_are_drawn_as_text(url: str, page: Watched, route: str, shows: str) -> None:
    p: Any = page.page
    p.goto(f"{url}/{route}")
    p.wait_for_function("document.querySelector('#main').innerText.length > 40")
    p.wait_for_timeout(300)  # an onerror would have fired by now
    assert shows in p.inner_text("#main")
    assert p.evaluate("window.__pwned") is None
    assert p.evaluate("document.querySelectorAll('#main img, #main script').length") == 0
