"""Random operation sequences on a base, for property tests: the operations (assertions with
fading and expiring premises, retractions, claims, cycles, exceptions, nogoods, withdrawn
reasons, outcomes, clock moves, resolutions), the conflict policies, two rules that feed each
other, and :func:`apply`, which runs one operation and ignores the ones the state refuses.
"""

from __future__ import annotations

from hypothesis import strategies as st

from corollary import CorollaryError, PreferHigherConfidence, PreferNewer, PreferSource, rule
from corollary.foundations.values import is_end

KEYS = ["a", "b", "c", "d", "e"]
VALUES = [0, 1, 2]
SOURCES = ["human:ann", "tool:scan", "document:doc", "model:m", "assumption:guess"]

assert_op = st.tuples(
    st.just("assert"), st.sampled_from(KEYS), st.sampled_from(VALUES), st.sampled_from(SOURCES),
    st.sampled_from([None, "shared"]), st.sampled_from([None, 60.0]), st.sampled_from([None, 90.0]),
    st.sampled_from([None, None, 0.5, 0.8]),  # a certainty the source states
)
retract_op = st.tuples(st.just("retract"), st.sampled_from(KEYS), st.sampled_from(VALUES),
                       st.sampled_from(["none", "source"]))
claim_op = st.tuples(st.just("claim"), st.sampled_from(KEYS), st.sampled_from(VALUES),
                     st.lists(st.sampled_from(KEYS), max_size=3, unique=True),
                     st.sampled_from([None, 0.5, 0.9]))
outcome_op = st.tuples(st.just("outcome"), st.sampled_from(SOURCES), st.booleans())
advance_op = st.tuples(st.just("advance"), st.sampled_from([1.0, 30.0, 61.0, 200.0]))
cycle_op = st.tuples(st.just("cycle"), st.sampled_from(KEYS), st.sampled_from(KEYS),
                     st.sampled_from([None, 0.8]))
resolve_op = st.tuples(st.just("resolve"), st.sampled_from(KEYS), st.sampled_from(VALUES))
item = st.one_of(st.sampled_from(KEYS), st.tuples(st.sampled_from(KEYS), st.sampled_from(VALUES)))
# a claim with exceptions ("x unless y"): refused when it would rest on its own absence
default_op = st.tuples(st.just("default"), st.sampled_from(KEYS), st.sampled_from(VALUES),
                       st.lists(st.sampled_from(KEYS), max_size=2, unique=True),
                       st.lists(item, min_size=1, max_size=2))
nogood_op = st.tuples(st.just("nogood"), st.lists(item, min_size=2, max_size=3))
withdraw_op = st.tuples(st.just("withdraw"), st.sampled_from(KEYS), st.sampled_from(VALUES),
                        st.sampled_from([*SOURCES, "model:m"]), st.sampled_from(["none", "source"]))
give_up_op = st.tuples(st.just("give_up"), st.integers(0, 5))
# an assertion with a valid time (docs/model.md, "Time and change"): starts before, at and
# after the clock's early times, ends that come and go as the clock advances
valid_op = st.tuples(
    st.just("assert_valid"), st.sampled_from(KEYS[:3]), st.sampled_from(VALUES),
    st.sampled_from(SOURCES), st.sampled_from([None, 60.0]), st.sampled_from([None, 90.0]),
    st.sampled_from([None, -50.0, 0.0, 20.0, 100.0, 250.0]),
    st.sampled_from([None, None, 40.0, 150.0, 300.0]),
)
# a claim with a valid time of its own (docs/model.md, "Claims in time"): a start or an end
# before, at or after the clock's early times, over inputs or over none
claim_valid_op = st.tuples(
    st.just("claim_valid"), st.sampled_from(KEYS[:3]), st.sampled_from(VALUES),
    st.lists(st.sampled_from(KEYS), max_size=2, unique=True), st.sampled_from([None, 0.5, 0.9]),
    st.sampled_from([None, -50.0, 0.0, 20.0, 100.0, 250.0]),
    st.sampled_from([None, None, 40.0, 150.0, 300.0]),
)
# an end (docs/model.md, "Ending a fact"): a source says a key, or one value of it, no longer
# holds from a time on (refused off PreferNewer, and for a value that does not hold then), and
# the retraction of one source's end
end_op = st.tuples(
    st.just("end"), st.sampled_from(KEYS[:3]), st.sampled_from([None, *VALUES]),
    st.sampled_from(SOURCES), st.sampled_from([None, -50.0, 20.0, 100.0, 250.0]),
)
retract_end_op = st.tuples(st.just("retract_end"), st.sampled_from(KEYS[:3]),
                           st.sampled_from(SOURCES), st.sampled_from([None, -50.0, 20.0,
                                                                      100.0, 250.0]))
#: Valid-time assertions and claims in any order, from several sources, with retractions (of
#: a value, of one source's reason), ends and their retraction, outcomes, claims over them and
#: clock moves.
valid_operations = st.lists(
    st.one_of(valid_op, valid_op, valid_op, assert_op, retract_op, withdraw_op, claim_op,
              claim_valid_op, claim_valid_op, outcome_op, advance_op, end_op, retract_end_op),
    min_size=4, max_size=30,
)
operations = st.lists(
    st.one_of(assert_op, assert_op, assert_op, retract_op, claim_op, claim_op, claim_op,
              outcome_op, advance_op, resolve_op, cycle_op, cycle_op),
    min_size=6, max_size=40,
)
# the same, with exceptions, nogoods and withdrawn reasons mixed in
tms_operations = st.lists(
    st.one_of(assert_op, assert_op, assert_op, retract_op, claim_op, claim_op, default_op,
              default_op, nogood_op, withdraw_op, give_up_op, outcome_op, advance_op, resolve_op,
              cycle_op),
    min_size=6, max_size=40,
)

# a claim with exceptions and a valid time of its own: under PreferNewer a claim an exception
# defeats must supersede nothing (docs/model.md, "Time and change"; issue 37, item 4)
# (over the keys the valid-time assertions write, so that the exception is often held)
timed_item = st.one_of(st.sampled_from(KEYS[:3]),
                       st.tuples(st.sampled_from(KEYS[:3]), st.sampled_from(VALUES)))
default_valid_op = st.tuples(
    st.just("default_valid"), st.sampled_from(KEYS[:3]), st.sampled_from(VALUES),
    st.lists(st.sampled_from(KEYS[:3]), max_size=2, unique=True),
    st.lists(timed_item, min_size=1, max_size=2),
    st.sampled_from([None, None, 0.0, 20.0, 100.0, 250.0]),
)
#: Valid-time assertions with claims that carry exceptions ("m = y over a document, unless
#: h = a"), with and without a start of their own, among retractions, outcomes and clock moves.
unless_in_time_operations = st.lists(
    st.one_of(valid_op, valid_op, valid_op, assert_op, retract_op, withdraw_op, claim_op,
              default_op, default_valid_op, default_valid_op, default_valid_op,
              default_valid_op, outcome_op, advance_op),
    min_size=4, max_size=30,
)

# dependencies and declared replacements (docs/model.md, "Dependencies and declared
# replacements"; issue 37, item 1): kb.depend on the values keys hold now, kb.replace_when
# waiting on a key's change (stated start or none), and forgetting a root or a value
# (the roots a, b said by one person at distinct times, so that they often hold one value)
root_op = st.tuples(st.just("assert_valid"), st.sampled_from(["a", "b"]), st.sampled_from(VALUES),
                    st.just("human:ann"), st.just(None), st.just(None),
                    st.sampled_from([None, -50.0, 0.0, 20.0, 100.0, 250.0]), st.just(None))
depend_op = st.tuples(st.just("depend"), st.sampled_from(["c", "d"]), st.sampled_from(VALUES),
                      st.lists(st.sampled_from(["a", "b"]), min_size=1, max_size=2,
                               unique=True))
replace_op = st.tuples(st.just("replace_when"), st.sampled_from(["c", "d"]),
                       st.sampled_from(VALUES), st.sampled_from(["a", "b"]),
                       st.sampled_from([None, None, 20.0, 100.0, 250.0]))
# an end of a dependent or replaced key (end_op ends a, b and c)
depend_end_op = st.tuples(st.just("end"), st.sampled_from(["c", "d"]),
                          st.sampled_from([None, *VALUES]), st.sampled_from(SOURCES),
                          st.sampled_from([None, -50.0, 20.0, 100.0, 250.0]))
forget_op = st.tuples(st.just("forget"), st.sampled_from(KEYS[:4]),
                      st.sampled_from([None, *VALUES]))
#: Valid-time assertions with dependencies and declared replacements over them, the roots
#: changed, retracted, ended and forgotten, among ends of the dependent keys, their
#: retraction, outcomes and clock moves.
depend_operations = st.lists(
    st.one_of(root_op, root_op, root_op, valid_op, depend_op, depend_op, replace_op, replace_op,
              retract_op, withdraw_op, forget_op, outcome_op, advance_op, end_op, depend_end_op,
              retract_end_op),
    min_size=6, max_size=30,
)


def apply(kb, clock, op):
    kind = op[0]
    try:
        if kind == "assert":
            _, key, value, source, origin, half_life, ttl, *certainty = op
            kb.assert_(key, value, source=source, origin=origin, half_life=half_life, ttl=ttl,
                       certainty=certainty[0] if certainty else None)
        elif kind == "assert_valid":
            _, key, value, source, half_life, ttl, valid_from, valid_until = op
            kb.assert_(key, value, source=source, half_life=half_life, ttl=ttl,
                       valid_from=valid_from, valid_until=valid_until)
        elif kind == "retract":
            _, key, value, fault = op
            kb.retract(key, value, fault=fault)
        elif kind == "claim":
            _, key, value, inputs, certainty = op
            kb.claim(key, value, source="model:m", inputs=inputs, certainty=certainty)
        elif kind == "claim_valid":
            _, key, value, inputs, certainty, valid_from, valid_until = op
            kb.claim(key, value, source="model:m", inputs=inputs, certainty=certainty,
                     valid_from=valid_from, valid_until=valid_until)
        elif kind == "end":
            _, key, value, source, at = op
            kb.end(key, value, source=source, at=at)
        elif kind == "retract_end":  # one source's end, whatever reason it gave
            _, key, source, _ = op
            for b in kb.engine.values_of(key):
                if is_end(b.value) and b.premise_from(source) is not None:
                    kb.retract(key, b.value, source=source)
        elif kind == "outcome":
            kb.record_outcome(op[1], op[2])
        elif kind == "advance":
            clock.advance(op[1])
        elif kind == "cycle":
            # x supports y and y supports x back: a loop that must never hold itself up
            _, x, y, certainty = op
            held = kb.value(x)
            if held is not None and x != y:
                kb.claim(y, held, source="model:m", inputs=[x], certainty=certainty)
                kb.claim(x, held, source="model:m", inputs=[y], certainty=certainty)
        elif kind == "resolve":
            kb.resolve(op[1], op[2])
        elif kind == "default":
            _, key, value, inputs, unless = op
            kb.claim(key, value, source="model:m", inputs=inputs, unless=unless)
        elif kind == "default_valid":
            _, key, value, inputs, unless, valid_from = op
            kb.claim(key, value, source="model:m", inputs=inputs, unless=unless,
                     valid_from=valid_from)
        elif kind == "depend":
            _, key, value, on = op
            kb.depend(key, value, on=on, source="model:m")
        elif kind == "replace_when":
            _, key, value, changes, valid_from = op
            kb.replace_when(key, value, changes, source="model:m", valid_from=valid_from)
        elif kind == "forget":
            _, key, value = op
            if value is None:
                kb.forget(key)
            else:
                kb.forget(key, value)
        elif kind == "nogood":
            kb.nogood(*op[1])
        elif kind == "withdraw":
            _, key, value, source, fault = op
            kb.retract(key, value, source=source, fault=fault)
        elif kind == "give_up":  # a person settles an open nogood by giving up a culprit
            open_nogoods = [c for c in kb.conflicts() if c.nogood]
            if open_nogoods:
                conflict = open_nogoods[0]
                choices = [*((c.key, c.value) for c in conflict.candidates),
                           *((c.key, c.value) for c in conflict.culprits)]
                kb.resolve(conflict, give_up=choices[op[1] % len(choices)])
    except CorollaryError:
        pass  # an operation the current state refuses (unknown input, nothing to retract...)

#: The conflict policies the engine sweeps with (AskHuman decides nothing in the engine: a person
#: answers outside it, after a change).
POLICIES = {
    "open": lambda: None,
    "confidence": PreferHigherConfidence,
    "source": lambda: PreferSource(["human", "document", "tool:scan"]),
    "newer": PreferNewer,
}


# two rules that feed each other: a, b -> d -> a
@rule(output="d", inputs={"x": "a", "y": "b"})
def sum_ab(x, y):
    return (x + y) % 3


@rule(output="a", inputs={"z": "d"})
def back_to_a(z):
    return z
