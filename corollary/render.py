"""Pictures of the justification graph: Graphviz DOT and Mermaid flowcharts.

One node per belief, labelled like the head of its proof (``growth = 0.1 [IN 0.99]``,
``rev:Q3 = 110.0 [OUT] retracted: restated``); one node per reason: a premise (``premise from
tool:quote``) or a step, captioned by its kind (``rule shop.signal``, ``formula (q3 - q2) / q2 by
model:gpt``, ``model judgement by model:gpt``). Edges run from evidence to conclusions: premise →
belief, input belief → step → belief, and a value that lost a conflict → the value it lost to.
Beliefs that are OUT, values that lost a conflict or were rejected, expired premises and steps
with an input OUT are drawn apart (dashed, grey or red); a value a newer one superseded is
drawn as superseded (dashed, brown: it held in its time), its edge "superseded by".

Keys and values hold any text (``:``, quotes, ``<``, backslashes), so nodes get synthetic ids
(``b<n>`` for a belief, ``j<n>_<i>`` and ``p<n>_<i>`` for its steps and premises, from the
engine's numbering of beliefs, which snapshots keep: a picture of the same base is the same text) and labels are escaped for each language.

:func:`graph_data` gives the picture as plain data (what ``corollary graph --json`` prints);
:func:`to_dot` and :func:`to_mermaid` write it. The base is read at its clock's time.

>>> from corollary import BeliefBase, ManualClock
>>> kb = BeliefBase(clock=ManualClock(0))
>>> kb.assert_('say "hi"', "x", source="tool:a")
>>> print(to_mermaid(kb), end="")
flowchart LR
  p1_0[/"premise from tool:a"/]
  b1["say #34;hi#34; = 'x' [IN 0.95]"]
  p1_0 --> b1
  classDef held fill:#e8f5e9,stroke:#2e7d32,color:#1b1b1b
  classDef premise fill:#f3f3f3,stroke:#9e9e9e,color:#1b1b1b
  class b1 held
  class p1_0 premise
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, cast

from .foundations._format import format_confidence
from .foundations.values import plain
from .tms import IN, Belief
from .tms.conflicts import superseder

if TYPE_CHECKING:  # pragma: no cover
    from .facade.base import BeliefBase

__all__ = ["GRAPH_VERSION", "graph_data", "to_dot", "to_mermaid"]

#: Version of the shape :func:`graph_data` returns (``corollary graph --json``).
GRAPH_VERSION = 1
#: Longest value text shown in a label (the full value is in :func:`graph_data`).
_MAX_VALUE = 60
_MAX_WHY = 60

# How each state is drawn: (DOT attributes, Mermaid class name, Mermaid style).
_STYLES: dict[str, tuple[str, str, str]] = {
    "in": ('shape=box, style="rounded,filled", fillcolor="#e8f5e9", color="#2e7d32"',
           "held", "fill:#e8f5e9,stroke:#2e7d32,color:#1b1b1b"),
    "out": ('shape=box, style="rounded,dashed", color="#9e9e9e", fontcolor="#757575"',
            "notheld", "fill:#ffffff,stroke:#9e9e9e,stroke-dasharray:5 4,color:#757575"),
    "defeated": ('shape=box, style="rounded,dashed,filled", fillcolor="#ffebee", '
                 'color="#c62828", fontcolor="#c62828"',
                 "defeated", "fill:#ffebee,stroke:#c62828,stroke-dasharray:5 4,color:#c62828"),
    # a value a newer one replaced (PreferNewer): it held in its time, nothing went wrong
    "superseded": ('shape=box, style="rounded,dashed,filled", fillcolor="#fff8e1", '
                   'color="#8d6e63", fontcolor="#5d4037"',
                   "superseded", "fill:#fff8e1,stroke:#8d6e63,stroke-dasharray:5 4,color:#5d4037"),
    "premise": ('shape=note, style=filled, fillcolor="#f3f3f3", color="#9e9e9e"',
                "premise", "fill:#f3f3f3,stroke:#9e9e9e,color:#1b1b1b"),
    "step": ('shape=ellipse, color="#1565c0"', "step", "fill:#e3f2fd,stroke:#1565c0,color:#1b1b1b"),
    "invalid": ('shape=ellipse, style=dashed, color="#9e9e9e", fontcolor="#757575"',
                "invalid", "fill:#ffffff,stroke:#9e9e9e,stroke-dasharray:5 4,color:#757575"),
}

# How each kind of edge is drawn: (DOT attributes, Mermaid arrow).
_EDGES: dict[str, tuple[str, str]] = {
    "supports": ("", "-->"),
    "invalid": (' [style=dashed, color="#9e9e9e"]', "-.->"),
    "lost_to": (' [label="lost to", style=dotted, color="#c62828", fontcolor="#c62828"]',
                "-. lost to .->"),
    "superseded_by": (' [label="superseded by", style=dotted, color="#8d6e63", '
                      'fontcolor="#5d4037"]', "-. superseded by .->"),
}


def _look(edge: dict[str, Any]) -> str:
    if edge["kind"] in ("lost_to", "superseded_by"):
        return str(edge["kind"])
    return "supports" if edge["valid"] else "invalid"


def graph_data(kb: BeliefBase, key: str | None = None) -> dict[str, Any]:
    """The picture as plain data: ``{"version", "key", "at", "nodes", "edges"}``.

    Parameters
    ----------
    kb : BeliefBase
        Read at its clock's time.
    key : str, optional
        Draw only the cone under this key: its values and everything they rest on. Raises
        ``UnknownBeliefError`` for a key the base never heard of.

    Notes
    -----
    A node is ``{"id", "kind", "label", "state"}`` plus, for a belief (``kind="belief"``),
    ``key``, ``value``, ``label_state`` (``IN``/``OUT``), ``confidence`` and ``why``; for a
    premise (``kind="premise"``), ``source``, ``origin`` and ``expired``; for a step
    (``kind="step"``), ``step_kind``, ``name`` and ``valid``. ``state`` is how it is drawn:
    ``in``, ``out``, ``defeated`` (lost a conflict, or rejected) or ``superseded`` (a newer
    value replaced it under ``PreferNewer``: it held in its time; ``why`` says ``superseded by
    ...`` as the proof does) for beliefs, ``premise``, ``step`` or ``invalid`` for reasons. An
    edge is ``{"from", "to", "kind"}`` with kind ``supports`` (evidence to conclusion),
    ``lost_to`` (a defeated value to the value that won) or ``superseded_by`` (a superseded
    value to its successor), and ``valid``.
    """
    if key is not None:
        kb.label(key)  # validates the key; an unknown one raises UnknownBeliefError
    kb.refresh()
    engine = kb.engine
    now = kb.now()
    if key is None:
        beliefs = sorted(engine.beliefs(), key=lambda b: b.seq)
    else:
        beliefs = sorted(_cone(engine.values_of(key)), key=lambda b: b.seq)
    shown = {id(b) for b in beliefs}
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    for b in beliefs:
        bid = f"b{b.seq}"
        for i, p in enumerate(sorted(b.premises, key=lambda p: p.source)):
            expired = p.expired(now)
            caption = f"premise from {p.source}"
            if p.origin != p.source:
                caption += f" (origin {p.origin})"
            if expired:
                caption += " [expired]"
            pid = f"p{b.seq}_{i}"
            nodes.append({"id": pid, "kind": "premise", "label": caption,
                          "state": "invalid" if expired else "premise",
                          "source": p.source, "origin": p.origin, "expired": expired})
            edges.append({"from": pid, "to": bid, "kind": "supports", "valid": not expired})
        for k, j in enumerate(sorted(b.justs, key=lambda j: j.seq)):
            jid = f"j{b.seq}_{k}"
            valid = all(x.label is IN for x in j.inputs)
            nodes.append({"id": jid, "kind": "step", "label": j.kind.caption(j),
                          "state": "step" if valid else "invalid", "step_kind": j.kind.name,
                          "name": j.name, "valid": valid})
            for x in dict.fromkeys(j.inputs):
                edges.append({"from": f"b{x.seq}", "to": jid, "kind": "supports",
                              "valid": x.label is IN})
            edges.append({"from": jid, "to": bid, "kind": "supports", "valid": valid})
        newer = superseder(cast(Any, engine), b)  # the reading view forwards every read
        nodes.append(_belief_node(b, bid, newer))
        if b.defeated_by is not None and id(b.defeated_by) in shown:
            edges.append({"from": bid, "to": f"b{b.defeated_by.seq}",
                          "kind": "lost_to" if newer is None else "superseded_by",
                          "valid": True})
    return {"version": GRAPH_VERSION, "key": key, "at": now, "nodes": nodes, "edges": edges}


def _cone(roots: list[Belief]) -> set[Belief]:
    """``roots`` and every belief they rest on."""
    found: set[Belief] = set()
    stack = list(roots)
    while stack:
        b = stack.pop()
        if b in found:
            continue
        found.add(b)
        for j in b.justs:
            stack.extend(j.inputs)
    return found


def _belief_node(b: Belief, bid: str, newer: Belief | None = None) -> dict[str, Any]:
    """A belief's node; ``newer`` is the value that superseded it (as the proof says)."""
    shown = _clip(repr(b.value), _MAX_VALUE)
    if b.label is IN:
        state, why = "in", None
        label = f"{b.key} = {shown} [IN {format_confidence(b.conf)}]"
    elif newer is not None:  # replaced by a newer value: what happened, not a defeat
        state = "superseded"
        why = f"superseded by {_clip(repr(newer.value), _MAX_VALUE)}"
        label = f"{b.key} = {shown} [OUT] {_clip(why, _MAX_WHY)}"
    else:
        why = b.why
        if b.defeated_by is not None:
            why = f"lost to {_clip(repr(b.defeated_by.value), _MAX_VALUE)}"
        # a value a person resolved against was defeated too (BeliefBase.resolve says "rejected")
        defeated = b.defeated_by is not None or (b.withdrawn or "").startswith("rejected")
        state = "defeated" if defeated else "out"
        label = f"{b.key} = {shown} [OUT] {_clip(why, _MAX_WHY)}"
    return {"id": bid, "kind": "belief", "label": _printable(label), "state": state,
            "key": b.key, "value": plain(b.value), "label_state": b.label,
            "confidence": b.conf if b.label is IN else 0.0, "why": why}


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _printable(text: str) -> str:
    """Control characters (a key may hold a newline) shown as escapes, not line breaks."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def _drawn(data: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str]]:
    for node in data["nodes"]:
        yield node, _printable(node["label"])


# -- DOT ---------------------------------------------------------------------------------------
def _dot_string(text: str) -> str:
    """A DOT double-quoted string: backslashes and quotes escaped, so Graphviz's own label
    escapes (``\\n``, ``\\l``) cannot be triggered by a key."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def to_dot(kb: BeliefBase, key: str | None = None) -> str:
    """The justification graph (or the cone under ``key``) as a Graphviz DOT digraph.

    Render it with ``dot -Tsvg`` (or ``corollary graph BASE --format svg``).
    """
    data = graph_data(kb, key)
    lines = ["digraph corollary {",
             '  graph [rankdir=LR, fontname="Helvetica", fontsize=11];',
             '  node [fontname="Helvetica", fontsize=11];',
             '  edge [color="#616161", arrowsize=0.7];']
    for node, label in _drawn(data):
        lines.append(f"  {node['id']} [label={_dot_string(label)}, {_STYLES[node['state']][0]}];")
    for edge in data["edges"]:
        lines.append(f"  {edge['from']} -> {edge['to']}{_EDGES[_look(edge)][0]};")
    lines.append("}")
    return "\n".join(lines) + "\n"


# -- Mermaid -----------------------------------------------------------------------------------
# Characters a Mermaid label shows as they are; every other one is written as an entity code
# (``#34;``), which Mermaid decodes: quotes, ``#``, ``<``, ``&``, backticks, ``;`` and non-ASCII
# text can then never end a label early or be read as markup.
_MERMAID_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                           " _.,:=()[]'+-/*!?@$^~{}|")
_SHAPES = {"belief": ('["', '"]'), "premise": ('[/"', '"/]'), "step": ('(["', '"])')}


def _mermaid_text(text: str) -> str:
    return "".join(c if c in _MERMAID_PLAIN else f"#{ord(c)};" for c in text)


def to_mermaid(kb: BeliefBase, key: str | None = None) -> str:
    """The justification graph (or the cone under ``key``) as a Mermaid flowchart (GitHub and
    most Markdown viewers draw a ```` ```mermaid ```` block)."""
    data = graph_data(kb, key)
    lines = ["flowchart LR"]
    classes: dict[str, list[str]] = {}
    for node, label in _drawn(data):
        opening, closing = _SHAPES[node["kind"]]
        lines.append(f"  {node['id']}{opening}{_mermaid_text(label)}{closing}")
        classes.setdefault(node["state"], []).append(node["id"])
    for edge in data["edges"]:
        lines.append(f"  {edge['from']} {_EDGES[_look(edge)][1]} {edge['to']}")
    for state in _STYLES:
        if state in classes:
            lines.append(f"  classDef {_STYLES[state][1]} {_STYLES[state][2]}")
    for state in _STYLES:
        if state in classes:
            lines.append(f"  class {','.join(classes[state])} {_STYLES[state][1]}")
    return "\n".join(lines) + "\n"
