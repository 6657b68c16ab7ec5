"""What the real-model benchmark measures, shared with the small-model benchmark on the
loopback fake: remember on the snippets and the agent on the tasks (benchmarks/real_models/
cases.py), in one mode, for any model."""

from __future__ import annotations

import json
import time
from typing import IO, Any

from corollary import Agent, BeliefBase, ManualClock, tool
from corollary.agent.answers import unsupported
from corollary.facade.fact_support import value_in_quote
from corollary.facade.recall import count_tokens
from corollary.foundations.errors import CorollaryError, ModelError

from . import cases as development
from . import heldout, public
from .cases import RATES
from .keys import KEYS, key_matches

#: The case sets: ``dev``, looked at while fixes were made; ``heldout``, written before the
#: fixes of branch models and never changed since (benchmarks/real_models/heldout.py);
#: ``public``, a second development set from public data (benchmarks/real_models/public.py).
CASE_SETS: dict[str, Any] = {"dev": development, "heldout": heldout, "public": public}

#: The modes compared: the library's defaults (no option given: small-model mode when the
#: model's name and dialect say it is small, docs/models.md), forced answers alone, small-model
#: mode said explicitly, and its opposite (``text``: one remember request a text, as the
#: defaults were before the rule).
MODES: dict[str, dict[str, bool]] = {
    "default": {},
    "force": {"force_answer": True},
    "small": {"small_model": True},
    "text": {"small_model": False},
}
_REMEMBER_OPTIONS = ("small_model",)
_AGENT_OPTIONS = ("small_model", "force_answer")
NOW = 1_735_000_000.0  # 2024-12-24: the snippets are said then


@tool(name="fx_rate", key="fx:{currency}")
def fx_rate(currency: str) -> float:
    """The exchange rate of a currency in US dollars, e.g. fx_rate("EUR")."""
    return RATES[currency.strip().upper()]


class Counting:
    """A model that counts the tokens it sends (its request bodies, four characters a token:
    what corollary makes, whatever the server counts) and the seconds it waits, and writes
    each request and its reply (or error) as a JSON line to ``log`` when given one."""

    def __init__(self, model: Any, log: IO[str] | None = None, case: str = "") -> None:
        self.inner = model
        self.model = getattr(model, "model", "model")
        self.small_model = getattr(model, "small_model", False)
        self.tools_only_when_named = getattr(model, "tools_only_when_named", False)
        self.tokens = 0
        self.requests = 0
        self.seconds = 0.0
        self.log = log
        self.case = case

    def complete(self, messages: Any, tools: Any, options: Any = None) -> Any:
        body = (self.inner.request_body(messages, tools, options)
                if hasattr(self.inner, "request_body") else {"messages": messages, "tools": tools})
        self.tokens += count_tokens(json.dumps(body))
        self.requests += 1
        started = time.perf_counter()
        entry: dict[str, Any] = {"case": self.case, "request": body}
        try:
            reply = self.inner.complete(messages, tools, options)
            entry["reply"] = {"text": reply.text, "finish_reason": reply.finish_reason,
                              "tool_calls": [{"name": c.name, "arguments": c.arguments,
                                              "arguments_error": c.arguments_error,
                                              "raw_arguments": c.raw_arguments}
                                             for c in reply.tool_calls]}
            return reply
        except Exception as error:
            entry["error"] = f"{type(error).__name__}: {error}"
            raise
        finally:
            elapsed = time.perf_counter() - started
            self.seconds += elapsed
            if self.log is not None:
                entry["seconds"] = round(elapsed, 2)
                self.log.write(json.dumps(entry, default=repr) + "\n")
                self.log.flush()


def tools_of(cases: Any = development) -> list[Any]:
    return list(getattr(cases, "TOOLS", [fx_rate]))


def task_base(cases: Any = development) -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(NOW), tools=tools_of(cases), learn_from_checks=False)
    for key, value in cases.BELIEFS.items():
        source = getattr(cases, "SOURCE", None) or (
            "tool:hr" if key.startswith(("employee", "office")) else
            "document:catalog" if key.startswith("product") else "tool:crm")
        kb.assert_(key, value, source=source)
    return kb


def _same(answer: Any, reference: Any) -> bool:
    if isinstance(reference, (int, float)):
        try:
            return abs(float(answer) - float(reference)) <= 1e-6 * max(1.0, abs(reference))
        except (TypeError, ValueError):
            return isinstance(answer, str) and value_in_quote(reference, answer)
    return isinstance(answer, str) and value_in_quote(reference, answer)


def run_remember(model: Any, mode: str, budget: float = float("inf"),
                 log: IO[str] | None = None, cases: Any = development) -> dict[str, Any]:
    """Facts found (of those a person would write down) by value (``found``: a kept fact holds
    the reference value) and by key and value (``found_keyed``: under a key naming the right
    subject and an acceptable attribute, benchmarks/real_models/keys.py), kept, unsupported kept
    (a value not in its quote), junk kept (unsupported, or not a value a person would write),
    refused, errors, tokens, seconds, and the keys kept (``made``). Snippets not started within
    ``budget`` seconds are counted as skipped."""
    counting = Counting(model, log)
    references = next(KEYS[name] for name, case_set in CASE_SETS.items() if case_set is cases)
    made_keys: list[list[Any]] = []
    found_keyed = 0
    found = expected = kept = junk = unsupported_kept = refused = errors = cut = done = 0
    for index, (speaker, text, facts) in enumerate(cases.SNIPPETS):
        if counting.seconds >= budget:
            break
        counting.case = f"remember {mode} {index}"
        done += 1
        expected += len(facts)
        kb = BeliefBase(clock=ManualClock(NOW))
        try:
            made = kb.remember(text, source=speaker, model=counting,
                               **{k: v for k, v in MODES[mode].items()
                                  if k in _REMEMBER_OPTIONS})
        except (ModelError, CorollaryError):
            errors += 1
            continue
        kept += len(made)
        refused += len(made.refused)
        cut += made.cut
        values = [r.value for r in made]
        found += sum(any(_same(v, value) for v in values) for _attr, value in facts)
        found_keyed += sum(any(_same(r.value, value) and key_matches(r.key, speaker, accepted)
                               for r in made)
                           for (_attr, value), accepted in zip(facts, references[index],
                                                               strict=True))
        made_keys.append([index, *[[r.key, r.value] for r in made]])
        unsupported_kept += sum(not value_in_quote(r.value, r.quote) for r in made)
        junk += sum(not value_in_quote(r.value, r.quote)
                    or not any(_same(r.value, value) for _a, value in facts) for r in made)
    return {"mode": mode, "snippets": done, "of": len(cases.SNIPPETS), "expected": expected,
            "found": found, "found_keyed": found_keyed, "kept": kept,
            "unsupported_kept": unsupported_kept, "junk": junk,
            "refused": refused, "errors": errors, "cut": cut, "tokens": counting.tokens,
            "requests": counting.requests, "seconds": round(counting.seconds, 2),
            "made": made_keys}


def run_agent(model: Any, mode: str, max_steps: int = 4, budget: float = float("inf"),
              log: IO[str] | None = None, cases: Any = development) -> dict[str, Any]:
    """Right answers, runs ending ok, unsupported answers accepted, tokens, seconds. Tasks not
    started within ``budget`` seconds are counted as skipped."""
    counting = Counting(model, log)
    right = ok = accepted_unsupported = errors = done = 0
    options = {k: v for k, v in MODES[mode].items() if k in _AGENT_OPTIONS}
    for index, (task, reference) in enumerate(cases.TASKS):
        if counting.seconds >= budget:
            break
        counting.case = f"agent {mode} {index}"
        done += 1
        kb = task_base(cases)
        try:
            run = Agent(counting, kb, tools=tools_of(cases), context_budget=None, max_steps=max_steps,
                        learn_from_checks=False, **options).run(task)
        except ModelError:
            errors += 1
            continue
        if run.status != "ok":
            continue
        ok += 1
        right += _same(run.answer, reference)
        step = next(s for s in reversed(run.steps) if s.kind == "answer" and s.ok)
        inputs = step.arguments.get("inputs")
        keys = list(inputs.values()) if isinstance(inputs, dict) else list(inputs or ())
        cited = [(k, kb.value(k)) for k in keys if kb.label(k) == "IN"]
        accepted_unsupported += unsupported(run.answer, cited, 1e-6) is not None
    return {"mode": mode, "tasks": done, "of": len(cases.TASKS), "right": right, "ok": ok,
            "unsupported_accepted": accepted_unsupported, "errors": errors,
            "tokens": counting.tokens, "requests": counting.requests,
            "seconds": round(counting.seconds, 2)}
