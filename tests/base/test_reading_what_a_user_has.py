"""Reading what a user has (issue 35, item 6): ``kb.beliefs(scope=..., limit=, offset=)`` lists
the held values under a scope, a page at a time, on the CLI too (``corollary beliefs --scope``);
``kb.value(key, default)`` answers the default for a key never seen. The MCP tool is in
``tests/mcp/test_beliefs_scope.py``."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from support.cli_support import ROOT

from corollary import (
    BeliefBase,
    InvalidInputError,
    InvalidTypeError,
    ManualClock,
    UnknownBeliefError,
)


def customers() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(1_000.0))
    kb.assert_("customer:42:email", "ann@example.com", source="human:ann")
    kb.assert_("customer:7:email", "bob@example.com", source="human:bob")
    kb.assert_("customer:42:city", "Nantes", source="tool:crm")
    kb.assert_("customer:420:email", "eve@example.com", source="human:eve")
    kb.assert_("customer:42:plan", "basic", source="tool:crm")
    kb.assert_("customer:42:plan", "pro", source="human:ops")  # an open conflict: both held
    kb.assert_("customer:42:old", "gone", source="tool:crm")
    kb.retract("customer:42:old")  # not held: never listed
    return kb


def test_beliefs_under_a_scope_are_the_held_values_there_with_confidences() -> None:
    kb = customers()
    held = kb.beliefs(scope="customer:42")
    assert [(h.key, h.value) for h in held] == [
        ("customer:42:email", "ann@example.com"), ("customer:42:city", "Nantes"),
        ("customer:42:plan", "basic"), ("customer:42:plan", "pro")]
    assert [h.confidence for h in held] == [kb.confidence(h.key, h.value) for h in held]
    assert all(kb.label(h.key, h.value) == "IN" for h in held)
    assert [h.key for h in kb.beliefs(scope=["customer:7", "customer:420"])] == [
        "customer:7:email", "customer:420:email"]
    assert [h.key for h in kb.beliefs(0.96, scope="customer:42")] == [
        "customer:42:email", "customer:42:plan"]  # the human's, at 0.99


def test_pages_cover_every_held_value_once() -> None:
    kb = customers()
    every = kb.beliefs(scope="customer:42")
    pages = [kb.beliefs(scope="customer:42", limit=3, offset=o) for o in (0, 3, 6)]
    assert [len(p) for p in pages] == [3, 1, 0]
    assert [h for p in pages for h in p] == every
    assert kb.beliefs(limit=0) == []
    assert kb.beliefs(offset=100) == []


@pytest.mark.parametrize(("kwargs", "error"), [
    ({"scope": "customer:"}, InvalidInputError), ({"scope": 42}, InvalidTypeError),
    ({"limit": -1}, InvalidInputError), ({"offset": -1}, InvalidInputError),
    ({"limit": 1.5}, InvalidTypeError), ({"offset": "2"}, InvalidTypeError)])
def test_a_bad_scope_or_page_is_refused(kwargs: dict[str, object], error: type) -> None:
    with pytest.raises(error):
        customers().beliefs(**kwargs)  # type: ignore[arg-type]


def test_value_with_a_default_answers_it_for_a_key_never_seen() -> None:
    kb = customers()
    assert kb.value("customer:9:email", "unknown") == "unknown"
    assert kb.value("customer:9:email", default=None) is None
    assert kb.value("customer:42:old", "unknown") == "unknown"  # seen, nothing held
    assert kb.value("customer:42:old") is None
    assert kb.value("customer:42:email", "unknown") == "ann@example.com"
    with pytest.raises(UnknownBeliefError):  # no default: a typo is not "nothing held"
        kb.value("customer:9:email")


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COROLLARY_")}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-m", "corollary", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL)
    assert "Traceback" not in done.stderr, done.stderr
    return done


def test_the_cli_lists_a_scope_a_page_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "customers.json"
    customers().save(path)
    done = cli("beliefs", str(path), "--scope", "customer:42", "--json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)
    assert [(b["key"], b["value"], b["label"]) for b in listed["beliefs"]] == [
        ("customer:42:city", "Nantes", "IN"), ("customer:42:email", "ann@example.com", "IN"),
        ("customer:42:plan", "pro", "IN"), ("customer:42:plan", "basic", "IN")]
    assert listed["total"] == 4 and listed["scope"] == ["customer:42"]
    page = json.loads(cli("beliefs", str(path), "--scope", "customer:42", "--limit", "2",
                          "--offset", "1", "--json").stdout)
    assert [b["key"] for b in page["beliefs"]] == ["customer:42:email", "customer:42:plan"]
    text = cli("beliefs", str(path), "--scope", "customer:7", "--scope", "customer:420").stdout
    assert "bob@example.com" in text and "eve@example.com" in text and "ann@" not in text
    bad = cli("beliefs", str(path), "--scope", "customer:")
    assert bad.returncode != 0 and "scope prefix does not end with ':'" in bad.stderr
