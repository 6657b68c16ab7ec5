"""The belief page's timeline (issue 27): each value the key has had, with when it held in the
world (valid time) and its status now, from ``kb.timeline``, as data in ``/api/belief`` and drawn
in a real headless Chromium (bars and a table), accessibly, with no console error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from corollary import BeliefBase, ManualClock, PreferNewer
from ui.conftest import Watched, needs_ui_extra, serving
from ui.test_browser import axe_violations, open_page

KEY = "customer:42:address"
OAK_FROM = 1704153600.0  # 2024-01-02
PINE_FROM = 1740873600.0  # 2025-03-02
NOW = 1.8e9


def support_base() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(NOW), conflict_policy=PreferNewer())
    kb.assert_(KEY, "Oak St", source="tool:crm", valid_from=OAK_FROM)
    kb.assert_(KEY, "Pine Ave", source="document:email", valid_from=PINE_FROM)
    kb.assert_("customer:7:address", "Elm Rd", source="tool:crm")
    return kb


def test_the_belief_page_data_holds_the_timeline() -> None:
    from corollary.ui.views import Inspector

    data = Inspector(support_base()).belief(KEY)
    assert data["timeline"] == [
        {"value_text": "'Oak St'", "valid_from": OAK_FROM, "valid_until": PINE_FROM,
         "label": "OUT", "confidence": 0.0, "sources": ["tool:crm"], "status": "superseded",
         "superseded_by_text": "'Pine Ave'"},
        {"value_text": "'Pine Ave'", "valid_from": PINE_FROM, "valid_until": None,
         "label": "IN", "confidence": 0.9, "sources": ["document:email"], "status": "held",
         "superseded_by_text": None}]
    # the values table says why the old one is OUT: superseded, not "lost"
    assert [(v["value"], v["why"]) for v in data["values"]] == [
        ("Pine Ave", None), ("Oak St", "superseded by 'Pine Ave'")]
    # a value asserted without valid time holds from when it was observed
    [plain] = Inspector(support_base()).belief("customer:7:address")["timeline"]
    assert (plain["valid_from"], plain["valid_until"], plain["status"]) == (NOW, None, "held")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Any:
    needs_ui_extra()
    path = tmp_path_factory.mktemp("timeline") / "support.cor"
    support_base().save(path)
    with serving(str(path)) as url:
        yield url


def test_the_timeline_is_drawn_in_the_browser(served: str, page: Watched, shots: Path) -> None:
    p = open_page(page, served, f"#/belief/{KEY}", "svg.timeline")
    region = p.get_by_role("region", name="Timeline")
    assert region.locator("svg.timeline rect.bar").count() == 2
    assert region.locator("svg.timeline rect.bar.superseded").count() == 1
    assert region.locator("svg.timeline rect.bar.held.open").count() == 1
    rows = [[cell.strip() for cell in r.locator("td").all_inner_texts()]
            for r in region.locator("table tbody tr").all()]
    assert rows == [["'Oak St'", "2024-01-02", "2025-03-02", "superseded", "OUT", "tool:crm",
                     "'Pine Ave'"],
                    ["'Pine Ave'", "2025-03-02", "open", "held", "IN 0.90", "document:email",
                     ""]]
    # the proof above it names what the new value supersedes
    assert "supersedes 'Oak St'" in p.locator("ul.proof").inner_text()
    p.screenshot(path=str(shots / "ui-timeline.png"), full_page=True)
    assert page.errors == []
    assert axe_violations(p) == []
