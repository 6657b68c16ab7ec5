"""Which tool a request names, and which held keys a forced answer offers (docs/agent.md,
"Named steps").

llama.cpp's servers (``llama-server``, llama-cpp-python's ``chatml-function-calling``) put the
tools in the prompt only when ``tool_choice`` names one: a request offering every tool unnamed
reaches the model as no tools at all, and it answers in words. Issue 39 saw the agent's
defaults answer none of 8 tasks there. So once a run's model has answered in words, each later
request names one tool, chosen by words alone (no model is asked):

- a tool of the agent's not yet called in the run whose name the task or the model's words
  say, or whose name and description share more of the task's words than any held belief's
  key and value do (:func:`tool_for`);
- else ``answer``, its inputs limited to the held keys that share the most words with the task
  (:func:`nearest_held`; all held keys when none shares one): a small model given 30 keys
  cited the first ones offered.

Words are compared case-folded, without the commonest English words, a word matching another
that starts with its first five letters (``owns`` and ``owner`` do not; ``extension`` and
``extensions`` do).
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["MAX_NEAREST", "nearest_held", "shared_words", "tool_for", "words"]

#: The most keys a forced answer offers when some share the task's words.
MAX_NEAREST = 8

_COMMON = frozenset(
    "a an and are as at be by can could did do does e.g for from get give got has have how i "
    "in is it its me my no not of on or please s so tell that the their them then there these "
    "this to us use using was we what when where which who whom whose why will with would you "
    "your tool".split())


def words(text: str) -> set[str]:
    """The words of ``text`` that say something: case-folded, split at anything not a letter
    or digit, without the commonest English words.

    >>> sorted(words("What is Chen's phone extension?"))
    ['chen', 'extension', 'phone']
    >>> sorted(words("employee:chen:extension"))
    ['chen', 'employee', 'extension']
    """
    return {w for w in re.findall(r"[^\W_]+", html.unescape(text).casefold())
            if w not in _COMMON}


def _match(a: str, b: str) -> bool:
    return a == b or (len(a) >= 5 and len(b) >= 5 and a[:5] == b[:5])


def shared_words(asked: set[str], text: str) -> int:
    """How many of the words ``asked`` ``text`` says (a word matching one that starts with
    its first five letters).

    >>> shared_words(words("Which team is Bo in?"), "employee:bo:team Billing")
    2
    """
    said = words(text)
    return sum(any(_match(w, s) for s in said) for w in asked)


def _said(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w]){re.escape(name.casefold())}(?![\w])",
                     html.unescape(text).casefold()) is not None


def tool_for(task: str, text: str, tools: Mapping[str, str], called: Iterable[str],
             held: Mapping[str, Any]) -> str | None:
    """The tool a named request offers (of ``tools``, name to description; those ``called``
    already are left out), or ``None`` for ``answer``: one the task or the model's words
    ``text`` name, else the one sharing the most of the task's words, when that is more than
    any ``held`` belief (key and value) shares.

    >>> tools = {"fx_rate": "The exchange rate of a currency in US dollars."}
    >>> tool_for("What is GBP in US dollars?", "", tools, [], {"customer:7:plan": "starter"})
    'fx_rate'
    >>> tool_for("Which plan is customer 7 on?", "", tools, [], {"customer:7:plan": "starter"})
    >>> tool_for("What is GBP in US dollars?", "", tools, ["fx_rate"], {}) is None
    True
    """
    done = set(called)
    left = {name: about for name, about in tools.items() if name not in done}
    if not left:
        return None
    for name in left:
        if _said(name, task) or _said(name, text):
            return name
    asked = words(task)
    best = max(left, key=lambda name: shared_words(asked, f"{name} {left[name]}"))
    score = shared_words(asked, f"{best} {left[best]}")
    beliefs = max((shared_words(asked, f"{key} {value}") for key, value in held.items()),
                  default=0)
    return best if score > beliefs else None


def nearest_held(task: str, held: Mapping[str, Any], first: Iterable[str] = (),
                 most: int = MAX_NEAREST) -> dict[str, Any]:
    """The held keys (with their values) a forced answer to ``task`` offers: the keys of
    ``first`` that are held (what the run's own tool calls made), then those whose key shares
    the most of the task's words (at most ``most``, in ``held``'s order); when none shares a
    word, the keys of ``first`` alone, or all of ``held`` without any.

    >>> held = {"employee:ada:team": "Platform", "employee:bo:team": "Billing",
    ...         "customer:7:plan": "starter", "fx:GBP": 1.27}
    >>> list(nearest_held("Which team is Bo in?", held))
    ['employee:bo:team']
    >>> list(nearest_held("How much is a pound worth?", held, first=["fx:GBP"]))
    ['fx:GBP']
    >>> list(nearest_held("Who is on call?", held)) == list(held)
    True
    """
    asked = words(task)
    made = [key for key in dict.fromkeys(first) if key in held]
    scores = {key: shared_words(asked, key) for key in held}
    best = max(scores.values(), default=0)
    if best == 0:
        return {key: held[key] for key in made} if made else dict(held)
    near = [key for key in held if scores[key] == best and key not in made][:most]
    return {key: held[key] for key in made + near}
