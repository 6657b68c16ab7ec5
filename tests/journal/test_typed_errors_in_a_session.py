"""Every changing method given a bad argument, in each of its parameters, raises a typed error
(a ``CorollaryError``, docs/api.md "Errors are typed") on a plain base and in a session, where
a change now travels as its value's entry: the values merge made a session raise a bare
``ValueError`` for an array where a field has a default (``fields_said`` compared it with the
default as a truth value). tests/base/test_bad_input.py covers a plain base's calls in detail.
Two bare errors that were there before the values (an answer's group of bytes, a calibrator's
source of a list) are typed errors too, and swept with the rest."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from corollary import BeliefBase, ManualClock, PreferNewer, open_ledger, tool
from corollary.foundations.errors import CorollaryError


@tool(trust=0.8, key="typed:{item}")
def typed_lookup(item: str) -> int:
    return 1


#: Each changing method: arguments it accepts, and the parameters (a position or a name) the
#: test gives a bad value in turn.
CALLS: dict[str, tuple[tuple[Any, ...], dict[str, Any], tuple[str, ...]]] = {
    "assert_": (("k", 1, "tool:x"), {}, ("0", "1", "2", "origin", "half_life", "ttl",
                                         "certainty", "valid_from", "valid_until")),
    "assert_many": (([("k", 1, "tool:x")],), {}, ("0",)),
    "claim": (("k", 1), {"source": "model:m"}, ("0", "1", "source", "inputs", "certainty",
                                                 "formula", "citation", "unless", "learn",
                                                 "valid_from", "valid_until")),
    "retract": (("a",), {}, ("0", "value", "reason", "fault", "source")),
    "end": (("a",), {"source": "tool:x"}, ("0", "value", "source", "at", "reason",
                                           "certainty")),
    "forget": (("a",), {}, ("0", "value", "source", "scope", "reason", "by")),
    "depend": (("d", 1, ["a"]), {"source": "model:m"}, ("0", "1", "2", "source", "citation",
                                                         "certainty", "formula", "valid_from",
                                                         "learn")),
    "replace_when": (("d", 1, "a"), {"source": "model:m"}, ("0", "1", "2", "source",
                                                             "citation", "certainty",
                                                             "valid_from", "learn")),
    "nogood": (("a", "ceo"), {}, ("0", "1", "name")),
    "resolve": (("ceo",), {"winner": "Ann"}, ("0", "winner", "learn", "give_up")),
    "record_outcome": (("tool:x", True), {}, ("0", "1", "reason", "at", "topic", "key")),
    "add_tool": ((typed_lookup,), {}, ("0",)),
    "call": ((typed_lookup, None, "x"), {}, ("0", "1")),
    "guarantee": (("g",), {}, ("0", "examples", "options")),
    "remove_guarantee": (("g",), {}, ("0",)),
    "answer": (("a",), {}, ("0", "promise", "group")),
    "fit_calibrator": ((), {}, ("examples", "source", "topic")),
}

BAD = (None, 1, -1.5, math.nan, math.inf, "", " ", b"x", [], {}, ("a",), object(),
       {"a": 1}, True, np.array([1, 2]))

def _bases(tmp_path: Path, session: bool) -> Iterator[BeliefBase]:
    with open_ledger(str(tmp_path / "ledger.db")) as ledger:
        n = 0
        while True:
            clock = ManualClock(1000)
            n += 1
            kb = (BeliefBase.open_session(ledger, f"s{n}", clock=clock,
                                          conflict_policy=PreferNewer()) if session
                  else BeliefBase(clock=clock, conflict_policy=PreferNewer()))
            kb.assert_("a", 1, source="tool:x")
            kb.assert_("ceo", "Ann", source="tool:one")
            kb.assert_("ceo", "Bob", source="tool:two")
            yield kb


def _call(kb: BeliefBase, name: str, where: str, bad: Any) -> None:
    args, kwargs, _ = CALLS[name]
    given, named = list(args), dict(kwargs)
    if where.isdigit():
        given += [None] * (int(where) + 1 - len(given))
        given[int(where)] = bad
    else:
        named[where] = bad
    getattr(kb, name)(*given, **named)


@pytest.mark.parametrize("session", [False, True])
@pytest.mark.parametrize("name", sorted(CALLS))
def test_a_bad_argument_is_a_typed_error(tmp_path: Path, name: str, session: bool) -> None:
    bases = _bases(tmp_path, session)
    kb = next(bases)
    for where in CALLS[name][2]:
        for bad in BAD:
            try:
                _call(kb, name, where, bad)
            except CorollaryError:
                pass
            except Exception as exc:
                raise AssertionError(f"{name}({where}={bad!r}) raised {type(exc).__name__}: "
                                     f"{exc}") from exc
            else:
                kb = next(bases)  # it was made: the next call starts afresh
