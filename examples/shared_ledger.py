"""One trust ledger shared by many belief bases (one per session), saved apart from them.

Run: python examples/shared_ledger.py
"""

import tempfile
from pathlib import Path

from corollary import BeliefBase, ManualClock, TrustLedger

folder = Path(tempfile.mkdtemp())
clock = ManualClock(0)
ledger = TrustLedger(clock=clock)

# Session 1 finds the scraper wrong three times.
session1 = BeliefBase(ledger=ledger, clock=clock)
for i in range(3):
    session1.assert_(f"price:{i}", 10 + i, source="tool:scraper")
    session1.retract(f"price:{i}", reason="stale page", fault="source")

# Session 2, on the same ledger, trusts the scraper less from its first assertion.
session2 = BeliefBase(ledger=ledger, clock=clock)
session2.assert_("price:ACME", 101.5, source="tool:scraper")
print(f"scraper reliability {session2.reliability('tool:scraper'):.3f}; "
      f"price:ACME at {session2.confidence('price:ACME'):.3f}")

# The shared ledger is saved apart; each session's snapshot leaves it out.
ledger.save(folder / "trust.json")
session2.save(folder / "session2.snap")
restored = BeliefBase.load(folder / "session2.snap", ledger=TrustLedger.load(folder / "trust.json",
                                                                              clock=clock),
                           clock=clock)
print(f"restored: price:ACME at {restored.confidence('price:ACME'):.3f}")
assert restored.confidence("price:ACME") == session2.confidence("price:ACME")
