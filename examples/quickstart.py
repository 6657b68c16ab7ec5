"""A first belief base: assert, agree, fade, derive, retract, and read the proofs.

Run: python examples/quickstart.py
"""

from datetime import timedelta

from corollary import BeliefBase, ManualClock, PreferHigherConfidence

clock = ManualClock(0)
kb = BeliefBase(clock=clock, conflict_policy=PreferHigherConfidence(), learn_from_checks=False)

# Two independent origins agree: noisy-OR, and a right outcome for each.
kb.assert_("hq", "Austin", source="tool:registry")
kb.assert_("hq", "Austin", source="document:10-K")
print(f"hq = {kb.value('hq')} at {kb.confidence('hq'):.4f}")          # 0.9959

# Evidence with a half-life fades; its conclusions fade with it.
kb.assert_("price:ACME", 101.5, source="tool:quote", half_life=timedelta(minutes=1))
kb.assert_("rev:Q2", 100.0, source="document:10-Q")
kb.assert_("rev:Q3", 110.0, source="document:10-Q")
kb.claim("growth", 0.1, source="model:gpt", inputs={"q2": "rev:Q2", "q3": "rev:Q3"},
         formula="(q3 - q2) / q2")                                    # re-executed, verified
kb.claim("cheap", True, source="model:gpt", inputs=["price:ACME", "growth"], certainty=0.8)
clock.advance(30)
print(f"after 30 s: price {kb.confidence('price:ACME'):.2f}, cheap {kb.confidence('cheap'):.2f}")

# A wrong figure: blame the source, and everything resting on it goes OUT.
kb.retract("rev:Q3", reason="restated", fault="source")
print(f"growth is {kb.label('growth')}, cheap is {kb.label('cheap')}; "
      f"document:10-Q reliability now {kb.reliability('document:10-Q'):.3f}")
print(kb.explain("cheap"))
