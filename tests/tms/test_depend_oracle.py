"""Property: dependencies and declared replacements (``kb.depend``, ``kb.replace_when``; issue
37, item 1) over random valid-time assertions whose roots change, are retracted, ended and
forgotten, beside ends of the keys that rest on them, under every conflict policy, agree with
the from-scratch evaluator (tests/support/oracle.py) now and at random world times: they are
claims, with inputs and exceptions, and nothing else."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from support.operations import POLICIES, depend_operations
from tms.test_valid_time_oracle import TIMES, run_against_the_oracle


@pytest.mark.parametrize("policy", sorted(POLICIES))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ops=depend_operations, times=st.lists(st.sampled_from(TIMES), min_size=1, max_size=3))
# docs/model.md's worked case: a root, a value, a dependent and a replacement, then the root
# changes, then it is forgotten
@example(ops=[("assert_valid", "a", 0, "human:ann", None, None, 0.0, None),
              ("assert_valid", "b", 1, "human:ann", None, None, 20.0, None),
              ("advance", 200.0), ("depend", "c", 2, ["a"]),
              ("replace_when", "b", 2, "a", None),
              ("assert_valid", "a", 1, "human:ann", None, None, 100.0, None),
              ("forget", "a", None)],
         times=[30.0, 120.0])
# with no policy, an end of a key whose only value is a replacement its exception defeats:
# the replacement supersedes nothing, the end holds (docs/model.md, "Ending a fact")
@example(ops=[("assert_valid", "a", 0, "human:ann", None, None, None, None),
              ("replace_when", "c", 0, "a", None), ("end", "c", None, "human:ann", -50.0),
              ("assert_valid", "a", 1, "human:ann", None, None, None, None)],
         times=[-60.0, 0.0])
# two replacements of c left the same reason by forgetting a: one reason, the first declared
# (docs/model.md, "Forgetting"; tests/base/test_forget_order.py)
@example(ops=[("assert_valid", "a", 1, "human:ann", None, None, None, None),
              ("replace_when", "c", 0, "a", None), ("replace_when", "c", 0, "a", None),
              ("assert_valid", "a", 0, "human:ann", None, None, None, None),
              ("replace_when", "c", 0, "a", None), ("forget", "a", None)],
         times=[-60.0, 0.0])
def test_dependencies_and_replacements_match_the_oracle(policy: str, ops: list,
                                                        times: list[float]) -> None:
    run_against_the_oracle(policy, ops, times)
