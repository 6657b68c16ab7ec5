"""Proofs: the tree of reasons behind a belief, with label and confidence at every node.

``print(kb.explain(key))`` shows it as text (``hq = 'Austin' [IN 1.00]``); ``.to_dict()`` gives
the same tree as plain data. A belief that appears twice in one proof is shown once and
referred to after that, so cycles and shared inputs print finitely.

Proofs are built and printed by walking the tree with an explicit stack, never by recursion, so
a chain of reasons thousands of steps deep explains and prints like a short one. In print, a
belief :data:`RENDER_DEPTH` steps below the one it starts from is continued below, as a
numbered block of its own (``(continued below at [1])``), so no line grows past a few hundred
characters however deep the chain.
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING, Any

from . import confidence as formulas
from .graph import IN, PREMISES, Belief, Justification

if TYPE_CHECKING:  # pragma: no cover
    from .base import BeliefBase

#: How many beliefs deep a printed proof goes before it continues in a block below.
RENDER_DEPTH = 50


def format_confidence(value: float, places: int = 2) -> str:
    """A confidence rounded half-up on its decimal form, as people round.

    Binary floats store 0.475 a hair below it, so ``f"{0.475:.2f}"`` prints 0.47; this prints
    0.48.

    >>> format_confidence(0.475), format_confidence(0.8019), format_confidence(0.99587, 4)
    ('0.48', '0.80', '0.9959')
    """
    quantum = Decimal(1).scaleb(-places)
    return str(Decimal(repr(float(value))).quantize(quantum, rounding=ROUND_HALF_UP))


def _num(value: float) -> str:
    text = format_confidence(value, 3)
    return text.rstrip("0").rstrip(".") if "." in text else text


def format_age(seconds: float) -> str:
    """A duration for people.

    >>> format_age(30), format_age(90), format_age(7200), format_age(86400 * 3)
    ('30 s', '1.5 min', '2 h', '3 d')
    """
    for unit, size in (("d", 86400.0), ("h", 3600.0), ("min", 60.0)):
        if seconds >= size:
            return f"{_num(seconds / size)} {unit}"
    return f"{_num(seconds)} s"


class Proof:
    """A proof tree; ``str()`` renders it, :meth:`to_dict` returns it as plain data."""

    def __init__(self, tree: dict[str, Any] | list[dict[str, Any]]) -> None:
        self.tree = tree

    def to_dict(self) -> dict[str, Any] | list[dict[str, Any]]:
        return self.tree

    def __str__(self) -> str:
        lines: list[str] = []
        trees = self.tree if isinstance(self.tree, list) else [self.tree]
        continued: deque[tuple[int, dict[str, Any]]] = deque()
        numbers = itertools.count(1)
        for tree in trees:
            _render(tree, "", lines, continued, numbers)
        while continued:
            number, node = continued.popleft()
            lines.append("")
            _render(node, f"[{number}] ", lines, continued, numbers)
        return "\n".join(lines)

    def __repr__(self) -> str:
        return str(self)


def build_proof(kb: BeliefBase, root: Belief | list[Belief], max_depth: int | None = None) -> Proof:
    """Build the proof of ``root`` from the base's current (synced) state."""
    now = kb.now()
    seen: set[int] = set()
    roots = root if isinstance(root, list) else [root]
    found: list[dict[str, Any]] = []
    # (belief, depth, the list its node joins). Children are pushed in reverse so they are
    # expanded in order, each subtree in full before the next sibling: the order a recursive
    # walk takes, which decides which occurrence of a shared belief is shown and which is
    # "see above".
    stack: list[tuple[Belief, int, list[dict[str, Any]]]] = [(b, 0, found) for b in reversed(roots)]
    while stack:
        b, depth, into = stack.pop()
        node = _belief(kb, b, seen, depth, max_depth)
        into.append(node)
        if "reasons" not in node:
            continue
        reasons = node["reasons"]
        if b.premises:
            reasons.append(_premises(kb, b, now))
        below: list[tuple[Belief, int, list[dict[str, Any]]]] = []
        for j in b.justs:
            reason = _step(kb, b, j, now)
            reasons.append(reason)
            below.extend((x, depth + 1, reason["inputs"]) for x in j.inputs)
        stack.extend(reversed(below))
    return Proof(found if isinstance(root, list) else found[0])


def _belief(kb: BeliefBase, b: Belief, seen: set[int], depth: int,
            max_depth: int | None) -> dict[str, Any]:
    """A belief's node, its reasons still to fill in (no ``reasons`` when it is not expanded)."""
    node: dict[str, Any] = {"key": b.key, "value": b.value, "label": b.label,
                            "confidence": b.conf}
    if id(b) in seen:
        node["see_above"] = True
        return node
    seen.add(id(b))
    if b.label is not IN:
        node["why"] = b.why
        if b.defeated_by is not None:
            w = b.defeated_by
            node["lost_to"] = {"key": w.key, "value": w.value, "confidence": w.conf}
            node["would_be"] = b.potential
    verdict = kb._verdicts.get((b.key, b.vid)) if hasattr(kb, "_verdicts") else None
    if verdict is not None:
        node["verdict"] = verdict
    if max_depth is not None and depth >= max_depth:
        node["truncated"] = True
        return node
    node["reasons"] = []
    return node


def _premises(kb: BeliefBase, b: Belief, now: float) -> dict[str, Any]:
    items = []
    best: dict[str, float] = {}
    for p in sorted(b.premises, key=lambda p: p.source):
        reliability, _ = kb._reliability(p.source, now)
        age = max(now - p.at, 0.0)
        freshness = formulas.decay_weight(age, p.half_life)
        expired = p.expired(now)
        c = reliability * freshness
        items.append({
            "source": p.source, "origin": p.origin, "prior": kb._prior(p.source),
            "reliability": reliability, "asserted_at": p.at, "age": age,
            "half_life": p.half_life, "freshness": freshness, "ttl": p.ttl,
            "expired": expired, "confidence": 0.0 if expired else c,
        })
        if not expired:
            best[p.origin] = max(best.get(p.origin, 0.0), c)
    combine = "single" if len(best) <= 1 else ("noisy-or" if kb.policy.corroboration else "max")
    return {"kind": "premises", "premises": items, "combine": combine,
            "confidence": formulas.agreement(best, kb.policy.corroboration),
            "valid": bool(best), "best": b.best == PREMISES}


def _step(kb: BeliefBase, b: Belief, j: Justification, now: float) -> dict[str, Any]:
    """A step's reason, its ``inputs`` still to fill in."""
    step, _ = kb._engine.step_confidence(j, now)
    valid = all(x.label is IN for x in j.inputs)
    reason: dict[str, Any] = {
        "kind": j.kind, "name": j.name, "step": step,
        "valid": valid, "best": b.best is j,
        "confidence": formulas.derived(step, (x.conf for x in j.inputs)) if valid else 0.0,
        "inputs": [],
    }
    if j.kind == "model":
        reason["reliability"], _ = kb._reliability(j.name, now)
        reason["certainty"] = j.step
    for k in ("names", "formula", "stated", "computed", "reproduced", "document", "quote",
              "citation_found", "certainty"):
        if k in j.info:
            reason[k] = j.info[k]
    return reason


# -- text -----------------------------------------------------------------------------------
def _status(node: dict[str, Any]) -> str:
    head = f"{node['key']} = {node['value']!r}"
    if node["label"] == IN:
        head += f" [IN {format_confidence(node['confidence'])}]"
    else:
        head += " [OUT]"
        why = node.get("why", "")
        if "lost_to" in node:
            w = node["lost_to"]
            why = (f"lost to {w['key']} = {w['value']!r} ({format_confidence(w['confidence'])}); "
                   f"would be {format_confidence(node.get('would_be', 0.0))}")
        if why:
            head += f" {why}"
    verdict = node.get("verdict")
    if verdict:
        head += f"  {{{verdict.get('status', '')}: {verdict.get('why', '')}}}"
    if node.get("see_above"):
        head += " (see above)"
    return head


def _render(root: dict[str, Any], head: str, lines: list[str],
            continued: deque[tuple[int, dict[str, Any]]], numbers: Iterator[int]) -> None:
    """Print the tree under ``root`` (its first line prefixed with ``head``) into ``lines``.

    Beliefs :data:`RENDER_DEPTH` levels down are queued in ``continued`` (numbered from
    ``numbers``) instead of printed in place.
    """
    # items: (node, first-line prefix, prefix of the lines below it, depth, is it a belief)
    stack: list[tuple[dict[str, Any], str, str, int, bool]] = [(root, head, "", 0, True)]
    while stack:
        node, first, rest, depth, belief = stack.pop()
        if belief:
            if depth >= RENDER_DEPTH and node.get("reasons"):
                number = next(numbers)
                continued.append((number, node))
                lines.append(f"{first}{_status(node)} (continued below at [{number}])")
                continue
            lines.append(first + _status(node))
            reasons = node.get("reasons", [])
            for i in reversed(range(len(reasons))):
                last = i == len(reasons) - 1
                stack.append((reasons[i], rest + ("└─ " if last else "├─ "),
                              rest + ("   " if last else "│  "), depth, False))
            continue
        inputs = _render_reason(node, first, rest, lines)
        for i in reversed(range(len(inputs))):
            last = i == len(inputs) - 1
            stack.append((inputs[i], rest + ("└─ " if last else "├─ "),
                          rest + ("   " if last else "│  "), depth + 1, True))


def _render_reason(reason: dict[str, Any], first: str, rest: str,
                   lines: list[str]) -> list[dict[str, Any]]:
    """Print a reason's own lines; return the input beliefs to print under it."""
    mark = "" if reason.get("valid") else " (not valid now)"
    if reason["kind"] == "premises":
        items = reason["premises"]
        if len(items) > 1:
            lines.append(f"{first}agreement of {len(items)} premises ({reason['combine']}) = "
                         f"{_num(reason['confidence'])}{mark}")
            for i, p in enumerate(items):
                last = i == len(items) - 1
                lines.append(rest + ("└─ " if last else "├─ ") + _premise_text(p))
        else:
            lines.append(first + _premise_text(items[0]))
        return []
    inputs: list[dict[str, Any]] = reason["inputs"]
    mins = ", ".join(_num(x["confidence"]) for x in inputs)
    if reason["kind"] == "rule":
        what = f"rule {reason['name']}: step {_num(reason['step'])}"
    elif reason["kind"] == "formula":
        what = f"formula {reason['formula']} by {reason['name']}"
        if reason.get("reproduced"):
            what += f", re-executed: reproduced {reason['stated']!r}"
        else:
            what += (f", re-executed: stated {reason['stated']!r} but computes "
                     f"{reason['computed']!r} (believed)")
        what += f"; step 1.0 × certainty {_num(reason['step'])}"
    else:
        what = (f"model judgement by {reason['name']}: step {_num(reason['step'])} = reliability "
                f"{_num(reason['reliability'])} × certainty {_num(reason['certainty'])}")
        if "document" in reason:
            found = "found" if reason.get("citation_found") else "NOT found"
            what += f"; cites {reason['document']}: {reason['quote']!r} ({found})"
    if inputs:
        what += f"; {_num(reason['step'])} × min({mins}) = {_num(reason['confidence'])}"
    lines.append(first + what + mark)
    return inputs


def _premise_text(p: dict[str, Any]) -> str:
    text = f"premise from {p['source']}"
    if p["origin"] != p["source"]:
        text += f" (origin {p['origin']})"
    text += f": prior {_num(p['prior'])}, reliability {_num(p['reliability'])}"
    if p["half_life"] is not None:
        text += (f", age {format_age(p['age'])}, half-life {format_age(p['half_life'])}, "
                 f"freshness {_num(p['freshness'])}")
    if p["ttl"] is not None:
        text += f", ttl {format_age(p['ttl'])}"
    if p["expired"]:
        return text + " [expired]"
    return text + f" → {_num(p['confidence'])}"
