"""A subclass of BeliefBase overriding the base's own changing methods with ``super()`` calls
(docs/extending.md): each override is the same operation as its parent's, one journal entry.
tests/journal/test_overrides_journaled.py journals it and replays it in another process."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from corollary import BeliefBase, ConflictPolicy, ManualClock, rule, tool


@rule(output="tripled", inputs={"x": "n"}, name="overriding.tripled")
def tripled(x: int) -> int:
    return 3 * x


@tool(trust=0.8, key="overriding_stock:{item}")
def overriding_stock(item: str) -> int:
    return len(item)


class Overriding(BeliefBase):
    """Each override counts its calls on a key of its own before calling its parent."""

    def add_tool(self, fn: Any) -> None:
        super().add_tool(fn)

    def add_rule(self, r: Any) -> None:
        super().add_rule(r)

    def remove_rule(self, r: Any) -> None:
        super().remove_rule(r)

    def assert_many(self, rows: Iterable[Any]) -> int:
        return super().assert_many(rows)

    def resolve(self, conflict: Any, winner: Any = None, learn: bool = True,
                **kw: Any) -> None:
        super().resolve(conflict, winner, learn, **kw)

    def nogood(self, *items: Any, name: str | None = None) -> str:
        return super().nogood(*items, name=name)

    def retract(self, key: str, reason: str | None = None, value: Any = None,
                **kw: Any) -> None:  # its parameters in an order of its own
        super().retract(key, value, reason, **kw)

    def forget(self, key: str | None = None, **kw: Any) -> Any:
        return super().forget(key, **kw)


def every_override(kb: Overriding, clock: ManualClock) -> None:
    """One call of each override (a generator of rows, a conflict object, a tool function)."""
    kb.add_tool(overriding_stock)
    kb.add_rule(tripled)
    kb.assert_many(r for r in [("n", 7, "tool:a"), ("b", 2, "tool:a")])
    clock.advance(1)
    kb.call(overriding_stock, None, "tea")
    kb.assert_("ceo", "Ann", source="tool:one")
    kb.assert_("ceo", "Bob", source="tool:two")
    kb.resolve(kb.conflicts()[0], winner="Ann")
    kb.remove_rule(tripled)
    kb.nogood("b", ("ceo", "Ann"))
    kb.assert_("gone", 1, source="tool:a")
    kb.retract("gone", "moved")  # its reason, by its position in the override
    kb.assert_("secret", "pw-4711-zz", source="tool:a")
    kb.forget("secret")


def reads(kb: BeliefBase) -> dict[str, Any]:
    """What a caller reads of it, as plain data."""
    kb.refresh()
    beliefs = {key: sorted([repr(b.value), str(b.label), round(b.conf, 9)]
                           for b in kb.engine.values_of(key)) for key in sorted(kb.keys())}
    return {"beliefs": beliefs, "rules": [r.name for r in kb.rules], "tools": sorted(kb.tools)}


class Interrupting(ConflictPolicy):
    """A policy whose ``after_change`` raises ``armed`` once, when armed."""

    watches_changes = True
    armed: type[BaseException] | None = None

    def arm(self, failure: type[BaseException] | None) -> None:
        object.__setattr__(self, "armed", failure)

    def after_change(self, base: Any) -> None:
        failure = self.armed
        self.arm(None)
        if failure is not None:
            raise failure("raised by the policy once the change was made")



def write_concurrently(url: str, who: str, rounds: int) -> None:
    """A spawned writer: ``rounds`` rounds of seven changes on keys of its own, each made
    through an override (a generator of rows, a conflict object, arguments in the override's
    own order among them), while another writer writes the same session."""
    from corollary import open_ledger

    with open_ledger(url) as ledger:
        clock = ManualClock(1000)
        kb = Overriding.open_session(ledger, "shared", clock=clock)
        for i in range(rounds):
            key = f"{who}:{i}"
            kb.assert_many((k, i, f"tool:{who}") for k in (key, f"{key}:b"))
            kb.claim(f"{key}:twice", 2 * i, source=f"model:{who}", inputs={"x": key},
                     formula="x + x")
            kb.assert_(f"{key}:ceo", "Ann", source=f"tool:{who}1")
            kb.assert_(f"{key}:ceo", "Bob", source=f"tool:{who}2")
            kb.resolve([c for c in kb.conflicts() if c.key == f"{key}:ceo"][0], winner="Bob")
            kb.nogood(key, f"{key}:b")
            kb.retract(f"{key}:b", "moved")
            clock.advance(1)
