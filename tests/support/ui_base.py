"""The base the inspector's tests look at: revenue from a filings tool trusted at 0.99, a
re-executed growth formula held at 0.99 and the model judgements over it, an analyst model with
twelve outcomes over the day (three wrong), an open conflict, a faded quote, an expired
forecast, a retracted belief and a promise with an answer given and one withheld. Saved as the
session ``demo`` of a SQLite ledger, so ``corollary ui --ledger L --session demo`` opens it.

Run as a script (``python -m support.ui_base LEDGER``) it builds the ledger in that process.
"""

from __future__ import annotations

import sys
from datetime import timedelta
from pathlib import Path

from corollary import BeliefBase, ManualClock, TrustPolicy, open_ledger

START = 1_767_225_600.0  # 2026-01-01
SESSION = "demo"
#: The analyst's outcomes, oldest first (False: wrong).
OUTCOMES = [i % 4 != 1 for i in range(12)]


def build(ledger_path: Path) -> None:
    """Build the base and save it as :data:`SESSION` in the ledger at ``ledger_path``."""
    clock = ManualClock(START)
    ledger = open_ledger(str(ledger_path), clock=clock)
    try:
        kb = BeliefBase(ledger=ledger, clock=clock,
                        policy=TrustPolicy(source_priors={"tool:filings": 0.99}),
                        learn_from_checks=False)
        for i, right in enumerate(OUTCOMES):
            kb.record_outcome("model:analyst", right, reason=f"review {i}",
                              at=START - 3600 * (12 - i))
        kb.assert_("revenue:Q2", 100.0, source="tool:filings")
        kb.assert_("revenue:Q3", 110.0, source="tool:filings")
        kb.assert_("revenue:Q1", 90.0, source="document:draft")
        kb.retract("revenue:Q1", reason="superseded by the filing")
        kb.claim("growth", 0.1, source="model:analyst",
                 inputs={"q2": "revenue:Q2", "q3": "revenue:Q3"}, formula="(q3 - q2) / q2")
        kb.claim("trend", "up", source="model:analyst", inputs=["growth"])
        kb.claim("answer", "revenue is growing", source="model:analyst",
                 inputs=["revenue:Q3", "trend"])
        kb.assert_("hq", "Austin", source="tool:registry")
        kb.assert_("hq", "Austin", source="document:10-K")
        kb.assert_("ceo", "Ann", source="document:press")
        kb.assert_("ceo", "Bob", source="document:blog")
        kb.assert_("price:ACME", 101.5, source="tool:quote", half_life=timedelta(minutes=1))
        kb.assert_("forecast:Q4", 120.0, source="model:forecaster", ttl=timedelta(minutes=1))
        kb.guarantee("default", [(0.95, True)] * 40 + [(0.3, False)] * 10, max_risk=0.1)
        clock.advance(120)
        kb.answer("growth")
        kb.answer("price:ACME")
        kb.save_session(SESSION)
    finally:
        ledger.close()


if __name__ == "__main__":
    build(Path(sys.argv[1]))
