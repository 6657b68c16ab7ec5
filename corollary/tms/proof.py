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
from collections.abc import Callable, Iterator
from typing import Any

from ..foundations._format import format_age, format_confidence
from ..foundations._format import format_number as _num
from ..foundations.clock import format_instant
from ..foundations.errors import InvalidInputError
from ..foundations.values import end_reason, is_end
from . import ANY, IN, KINDS, PREMISES, Belief, Engine, Justification, item_text
from .conflicts import span_of, superseder
from .kinds import DATED, counts_at

__all__ = ["RENDER_DEPTH", "Proof", "build_proof", "format_age", "format_confidence"]

#: How many beliefs deep a printed proof goes before it continues in a block below.
RENDER_DEPTH = 50


class Proof:
    """A proof tree; ``str()`` renders it, :meth:`to_dict` returns it as plain data."""

    def __init__(self, tree: dict[str, Any] | list[dict[str, Any]]) -> None:
        self.tree = tree

    def to_dict(self) -> dict[str, Any] | list[dict[str, Any]]:
        """The tree as plain data, nested as deep as the chain of reasons is."""
        return self.tree

    def to_blocks(self, depth: int = RENDER_DEPTH) -> dict[str, Any]:
        """The tree as plain data nested at most ``depth`` beliefs deep, cut as the text is.

        A tree thousands of beliefs deep is nested four levels per belief, deeper than most
        JSON readers and writers go (Python's ``json`` stops near 1,000 levels, some MCP
        clients near 64). Here a belief ``depth`` steps below the start of its block, with
        reasons of its own, is given without its ``reasons`` and with ``continued``: the
        number of the block in ``continued`` that goes on from it, numbered as the text
        numbers its ``(continued below at [n])`` blocks.

        Returns
        -------
        dict
            ``{"proof": tree (or list of trees, as in to_dict), "continued":
            [{"number": n, "proof": tree}, ...]}``.

        Examples
        --------
        >>> from corollary import BeliefBase
        >>> kb = BeliefBase()
        >>> kb.assert_("a", 1, source="human:ops")
        >>> _ = kb.claim("b", 2, source="model:m", inputs=["a"])
        >>> blocks = kb.explain("b").to_blocks(depth=1)
        >>> blocks["proof"]["reasons"][0]["inputs"][0]["continued"], blocks["continued"][0]["number"]
        (1, 1)
        """
        if depth < 1:
            raise InvalidInputError(f"depth must be at least 1, got {depth!r}")
        trees = self.tree if isinstance(self.tree, list) else [self.tree]
        continued: deque[tuple[int, dict[str, Any]]] = deque()
        numbers = itertools.count(1)
        heads = [_cut(tree, depth, continued, numbers) for tree in trees]
        blocks: list[dict[str, Any]] = []
        while continued:
            number, node = continued.popleft()
            blocks.append({"number": number, "proof": _cut(node, depth, continued, numbers)})
        return {"proof": heads if isinstance(self.tree, list) else heads[0],
                "continued": blocks}

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


def build_proof(engine: Engine, root: Belief | list[Belief], now: float,
                prior: Callable[[str], float],
                verdict_of: Callable[[str, Any], dict[str, Any] | None] = lambda key, vid: None,
                max_depth: int | None = None,
                lost: Callable[[Belief], dict[str, Any] | None] = lambda b: None) -> Proof:
    """Build the proof of ``root`` (a belief, or several) from the engine's synced state.

    Parameters
    ----------
    engine : Engine
        The TMS, synced at ``now`` for everything under ``root``.
    root : Belief or list of Belief
    now : float
    prior : callable
        ``prior(source)``: what the proof shows as a premise source's prior.
    verdict_of : callable, optional
        ``verdict_of(key, vid)``: the verdict of the last answer given for a belief, if any.
    max_depth : int, optional
        Stop expanding below this many steps.
    lost : callable, optional
        ``lost(belief)``: the nogood a defeated belief gave way to, and the culprit premise.
    """
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
        node = _belief(b, seen, depth, max_depth, verdict_of, lost)
        if "see_above" not in node:
            reasons = node.pop("reasons", None)
            _time_marks(engine, b, node, now)  # beside the label, before the reasons
            if reasons is not None:
                node["reasons"] = reasons
        into.append(node)
        if "reasons" not in node:
            continue
        reasons = node["reasons"]
        if b.premises:
            reasons.append(_premises(engine, b, now, prior))
        below: list[tuple[Belief, int, list[dict[str, Any]]]] = []
        for j in b.justs:
            reason = _step(engine, b, j, now)
            reasons.append(reason)
            below.extend((x, depth + 1, reason["inputs"]) for x in j.inputs)
        stack.extend(reversed(below))
    return Proof(found if isinstance(root, list) else found[0])


def _belief(b: Belief, seen: set[int], depth: int, max_depth: int | None,
            verdict_of: Callable[[str, Any], dict[str, Any] | None],
            lost: Callable[[Belief], dict[str, Any] | None]) -> dict[str, Any]:
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
            nogood = lost(b)
            if nogood is not None:
                node["nogood"] = nogood
    verdict = verdict_of(b.key, b.vid)
    if verdict is not None:
        node["verdict"] = verdict
    if max_depth is not None and depth >= max_depth:
        node["truncated"] = True
        return node
    node["reasons"] = []
    return node


def _time_marks(engine: Engine, b: Belief, node: dict[str, Any], now: float) -> None:
    """What a proof says of change: the values ``b`` supersedes, the value that superseded it,
    and the rival values it stands in an open conflict with (docs/model.md, "Time and
    change")."""
    if is_end(b.value):
        node["ended"] = _end_of(b)
    rivals = engine.rivals(b) if type(engine.keys.get(b.key)) is dict else []
    if not rivals:
        return
    when = now if engine.world is None else engine.world
    if b.best is not None:
        older = [r for r in rivals if superseder(engine, r) is b]
        if older:
            node["supersedes"] = [
                {"value": r.value, "valid_from": span[0], "valid_until": span[1]}
                for r in sorted(older, key=lambda r: r.seq)
                for span in [span_of(r, b, engine, when)]]
        open_with = [r for r in rivals if r.best is not None]
        if open_with:
            node["conflict_with"] = [{"value": r.value, "confidence": r.conf}
                                     | ({"ended": _end_of(r)} if is_end(r.value) else {})
                                     for r in sorted(open_with, key=lambda r: (-r.conf, r.seq))]
        return
    newer = superseder(engine, b)
    if newer is not None:
        span = span_of(b, newer, engine, when)
        node["superseded_by"] = {"value": newer.value, "confidence": newer.conf,
                                 "valid_from": span[0], "valid_until": span[1]}
        if is_end(newer.value):
            node["superseded_by"]["ended"] = _end_of(newer)


def _end_of(b: Belief) -> dict[str, Any]:
    """What a proof says of an end (``kb.end``): when it starts, who says so, and why."""
    starts = [p.valid_from for p in b.premises]
    return {"at": min(starts) if starts else None,
            "by": sorted({p.source for p in b.premises}), "reason": end_reason(b.value)}


def _ended_text(end: dict[str, Any]) -> str:
    """``ended at 2026-03-01 by human:ann ('I no longer work at Acme')``."""
    text = "ended" if end["at"] is None else f"ended at {format_instant(end['at'])}"
    if end["by"]:
        text += f" by {', '.join(end['by'])}"
    return text + (f" ({end['reason']!r})" if end["reason"] else "")


def _premises(engine: Engine, b: Belief, now: float,
              prior: Callable[[str], float]) -> dict[str, Any]:
    parts = engine.premise_parts(b, now)
    items = [{
        "source": part.premise.source, "origin": part.premise.origin,
        "prior": prior(part.premise.source), "reliability": part.reliability,
        "asserted_at": part.premise.at, "age": part.age, "half_life": part.premise.half_life,
        "freshness": part.freshness, "ttl": part.premise.ttl, "expired": part.expired,
        "confidence": part.confidence,
    } | ({"certainty": part.premise.certainty} if part.premise.certainty < 1.0 else {})
      | ({"valid_from": part.premise.valid_from, "valid_until": part.premise.valid_until,
          "outside": part.outside} if part.premise.stated_valid_time or part.outside else {})
        for part in parts]
    origins = {part.premise.origin for part in parts if not part.expired and not part.outside}
    combine = "single" if len(origins) <= 1 else ("noisy-or" if engine.corroboration else "max")
    return {"kind": "premises", "premises": items, "combine": combine,
            "confidence": engine.agreement(parts), "valid": bool(origins),
            "best": b.best == PREMISES}


def _step(engine: Engine, b: Belief, j: Justification, now: float) -> dict[str, Any]:
    """A step's reason, its ``inputs`` still to fill in."""
    step, _ = engine.step_confidence(j, now)
    exceptions = []
    for item in j.unless:
        holder = engine.holder(item)
        exceptions.append({
            "item": item_text(item), "key": item[0], "value": None if item[2] is ANY else item[1],
            "held": holder is not None,
            "by": None if holder is None else {"key": holder.key, "value": holder.value,
                                               "confidence": holder.conf},
        })
    valid = all(x.label is IN for x in j.inputs) and not any(e["held"] for e in exceptions)
    if j.live == DATED:  # outside its own valid time the claim does not count
        valid = valid and counts_at(j, now if engine.world is None else engine.world)[0]
    weakest = min((x.conf for x in j.inputs), default=1.0)
    reason: dict[str, Any] = {
        "kind": j.kind.name, "name": j.name, "step": step,
        "valid": valid, "best": b.best is j,
        "confidence": step * weakest if valid else 0.0,
        "inputs": [],
    }
    if exceptions:
        reason["unless"] = exceptions
    reason.update(j.kind.proof_fields(j, engine.reliability, now))
    return reason


def _cut(root: dict[str, Any], depth: int, continued: deque[tuple[int, dict[str, Any]]],
         numbers: Iterator[int]) -> dict[str, Any]:
    """A copy of the tree under ``root`` down to ``depth`` beliefs; the beliefs below are queued
    in ``continued``. Copied in the order :func:`_render` prints, so the numbers agree."""
    top = dict(root)
    # (the original belief node, its copy, its depth); the copy's reasons are filled here
    stack: list[tuple[dict[str, Any], dict[str, Any], int]] = [(root, top, 0)]
    while stack:
        node, copy, level = stack.pop()
        if "reasons" not in node:
            continue
        if level >= depth and node["reasons"]:
            del copy["reasons"]
            copy["continued"] = number = next(numbers)
            continued.append((number, node))
            continue
        below: list[tuple[dict[str, Any], dict[str, Any], int]] = []
        copy["reasons"] = []
        for reason in node["reasons"]:
            step = dict(reason)
            copy["reasons"].append(step)
            if "inputs" in reason:
                step["inputs"] = [dict(x) for x in reason["inputs"]]
                below.extend((x, c, level + 1) for x, c in zip(reason["inputs"], step["inputs"], strict=True))
        stack.extend(reversed(below))
    return top


# -- text -----------------------------------------------------------------------------------
def _status(node: dict[str, Any]) -> str:
    end = node.get("ended")
    head = f"{node['key']} {_ended_text(end)}" if end else f"{node['key']} = {node['value']!r}"
    if node["label"] == IN:
        head += f" [IN {format_confidence(node['confidence'])}]"
        rivals = node.get("conflict_with")
        if rivals:
            head += " open conflict with " + ", ".join(
                f"{_ended_text(r['ended']) if 'ended' in r else repr(r['value'])} "
                f"({format_confidence(r['confidence'])})" for r in rivals)
    else:
        head += " [OUT]"
        why = node.get("why", "")
        newer = node.get("superseded_by")
        if newer is not None and "ended" in newer:
            why = (f"{_ended_text(newer['ended'])} (valid "
                   f"{_interval(newer['valid_from'], newer['valid_until'])})")
        elif newer is not None:
            why = (f"superseded by {newer['value']!r} (valid "
                   f"{_interval(newer['valid_from'], newer['valid_until'])})")
        elif "lost_to" in node:
            w = node["lost_to"]
            why = (f"lost to {w['key']} = {w['value']!r} ({format_confidence(w['confidence'])}); "
                   f"would be {format_confidence(node.get('would_be', 0.0))}")
            nogood = node.get("nogood")
            if nogood is not None:
                why = (f"gave way to nogood {nogood['nogood']} ({', '.join(nogood['items'])}; "
                       f"{w['key']} = {w['value']!r} holds at "
                       f"{format_confidence(w['confidence'])}); would be "
                       f"{format_confidence(node.get('would_be', 0.0))}")
                culprit = nogood["culprit"]
                if culprit is not None:
                    why += (f"; culprit premise {culprit['key']} = {culprit['value']!r} from "
                            f"{', '.join(culprit['sources'])} "
                            f"({format_confidence(culprit['confidence'])})")
        if why:
            head += f" {why}"
    verdict = node.get("verdict")
    if verdict:
        head += f"  {{{verdict.get('status', '')}: {verdict.get('why', '')}}}"
    if node.get("see_above"):
        head += " (see above)"
    return head


def _interval(start: float | None, end: float | None) -> str:
    """``2024-01-02 → 2025-03-02`` (an open end prints as ``now``)."""
    first = "?" if start is None else format_instant(start)
    return f"{first} → {'now' if end is None else format_instant(end)}"


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
            for old in node.get("supersedes", ()):
                lines.append(f"{rest}{'ends' if 'ended' in node else 'supersedes'} "
                             f"{old['value']!r} (valid "
                             f"{_interval(old['valid_from'], old['valid_until'])})")
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
    what = KINDS[reason["kind"]].describe(reason)
    if "valid_from" in reason or "valid_until" in reason:  # the claim's own valid time
        what += f"; valid {_interval(reason.get('valid_from'), reason.get('valid_until'))}"
    for e in reason.get("unless", ()):
        if e["held"]:
            by = e["by"]
            what += (f"; defeated: {by['key']} = {by['value']!r} is IN "
                     f"({format_confidence(by['confidence'])})")
        else:
            what += f"; holds unless {e['item']}, which is OUT"
    if inputs:
        what += f"; {_num(reason['step'])} × min({mins}) = {_num(reason['confidence'])}"
    lines.append(first + what + mark)
    return inputs


def _premise_text(p: dict[str, Any]) -> str:
    text = f"premise from {p['source']}"
    if p["origin"] != p["source"]:
        text += f" (origin {p['origin']})"
    text += f": prior {_num(p['prior'])}, reliability {_num(p['reliability'])}"
    if p.get("certainty") is not None:
        text += f", stated certainty {_num(p['certainty'])}"
    if p["half_life"] is not None:
        text += (f", age {format_age(p['age'])}, half-life {format_age(p['half_life'])}, "
                 f"freshness {_num(p['freshness'])}")
    if p["ttl"] is not None:
        text += f", ttl {format_age(p['ttl'])}"
    if "valid_from" in p:
        text += f", valid {_interval(p['valid_from'], p['valid_until'])}"
        if p["outside"]:
            return text + " [not valid then]"
    if p["expired"]:
        return text + " [expired]"
    return text + f" → {_num(p['confidence'])}"
