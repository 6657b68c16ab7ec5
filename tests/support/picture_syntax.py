"""Strict readers for the two picture languages, used to check what corollary.render writes.

``read_dot`` parses the DOT language as Graphviz's grammar defines it (graph, statements, node,
edge and attribute statements, attribute lists; IDs as names, numerals, double-quoted strings
with ``\\"`` escapes, HTML strings) and returns the nodes with their attributes and the edges.
Anything outside the grammar raises ``SyntaxError``.

``read_mermaid`` checks a Mermaid flowchart against the rules of its syntax that matter here:
a ``flowchart DIR`` header; node statements ``id["text"]``, ``id(["text"])``, ``id[/"text"/]``
whose text holds no raw ``"`` and whose ``#...;`` entity codes are well formed; edges ``a -->
b``, ``a -.-> b``, ``a -. text .-> b``; ``classDef`` and ``class`` lines; ids that are not
Mermaid keywords, defined once and before use. It returns the labels with entities decoded.
"""

from __future__ import annotations

import html
import re
from typing import Any

_KEYWORDS = {"node", "edge", "graph", "digraph", "subgraph", "strict"}
_TOKEN = re.compile(r"""
    (?P<space>\s+|//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:[^"\\]|\\.)*")
  | (?P<numeral>-?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?))
  | (?P<name>[A-Za-z_\x80-\U0010ffff][A-Za-z_0-9\x80-\U0010ffff]*)
  | (?P<edgeop>->|--)
  | (?P<punct>[{}\[\];,=:])
  | (?P<html><)
""", re.X | re.S)


def _tokens(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    i = 0
    while i < len(text):
        m = _TOKEN.match(text, i)
        if m is None:
            raise SyntaxError(f"DOT: unexpected character {text[i]!r} at {i}")
        kind = m.lastgroup
        assert kind is not None
        if kind == "html":
            depth, j = 0, i
            while j < len(text):
                depth += {"<": 1, ">": -1}.get(text[j], 0)
                j += 1
                if depth == 0:
                    break
            if depth:
                raise SyntaxError("DOT: unterminated HTML string")
            out.append(("id", text[i:j]))
            i = j
            continue
        value = m.group()
        i = m.end()
        if kind == "space":
            continue
        if kind == "string":
            out.append(("id", value[1:-1].replace('\\"', '"')))
        elif kind in ("numeral", "name"):
            out.append(("kw" if value.lower() in _KEYWORDS else "id", value))
        else:
            out.append(("op", value))
    return out


class _Dot:
    def __init__(self, text: str) -> None:
        self.toks = _tokens(text)
        self.i = 0
        self.nodes: dict[str, dict[str, str]] = {}
        self.edges: list[tuple[str, str, dict[str, str]]] = []
        self.directed = False

    def peek(self, k: int = 0) -> tuple[str, str] | None:
        return self.toks[self.i + k] if self.i + k < len(self.toks) else None

    def take(self, kind: str, value: str | None = None) -> str:
        tok = self.peek()
        if tok is None or tok[0] != kind or (value is not None and tok[1].lower() != value):
            raise SyntaxError(f"DOT: expected {value or kind}, found {tok} at token {self.i}")
        self.i += 1
        return tok[1]

    def at(self, kind: str, value: str | None = None) -> bool:
        tok = self.peek()
        return tok is not None and tok[0] == kind and (value is None or tok[1].lower() == value)

    def graph(self) -> None:
        if self.at("kw", "strict"):
            self.take("kw")
        keyword = self.take("kw").lower()
        if keyword not in ("graph", "digraph"):
            raise SyntaxError(f"DOT: a graph starts with graph or digraph, not {keyword}")
        self.directed = keyword == "digraph"
        if self.at("id"):
            self.take("id")
        self.take("op", "{")
        self.stmt_list()
        self.take("op", "}")
        if self.peek() is not None:
            raise SyntaxError(f"DOT: text after the graph: {self.peek()}")

    def stmt_list(self) -> None:
        while not self.at("op", "}"):
            self.stmt()
            if self.at("op", ";"):
                self.take("op")

    def attr_list(self) -> dict[str, str]:
        attrs: dict[str, str] = {}
        while self.at("op", "["):
            self.take("op")
            while not self.at("op", "]"):
                name = self.take("id")
                self.take("op", "=")
                attrs[name] = self.take("id")
                if self.at("op", ",") or self.at("op", ";"):
                    self.take("op")
            self.take("op", "]")
        return attrs

    def node_id(self) -> str:
        name = self.take("id")
        if self.at("op", ":"):
            self.take("op")
            self.take("id")
            if self.at("op", ":"):
                self.take("op")
                self.take("id")
        return name

    def stmt(self) -> None:
        if self.at("kw", "graph") or self.at("kw", "node") or self.at("kw", "edge"):
            self.take("kw")
            if not self.at("op", "["):
                raise SyntaxError("DOT: an attribute statement needs an attribute list")
            self.attr_list()
            return
        if self.at("kw", "subgraph") or self.at("op", "{"):
            raise SyntaxError("DOT: subgraphs are not expected in corollary's pictures")
        if self.at("id") and self.peek(1) == ("op", "="):
            self.take("id")
            self.take("op")
            self.take("id")
            return
        first = self.node_id()
        if self.at("op", "->") or self.at("op", "--"):
            chain = [first]
            while self.at("op", "->") or self.at("op", "--"):
                op = self.take("op")
                if (op == "->") != self.directed:
                    raise SyntaxError(f"DOT: edge operator {op} in a {'di' if self.directed else ''}graph")
                chain.append(self.node_id())
            attrs = self.attr_list()
            for a, b in zip(chain, chain[1:], strict=False):
                self.edges.append((a, b, attrs))
            return
        attrs = self.attr_list()
        self.nodes.setdefault(first, {}).update(attrs)


def read_dot(text: str) -> tuple[dict[str, dict[str, str]], list[tuple[str, str, dict[str, str]]]]:
    """``(nodes, edges)`` of a DOT digraph; ``SyntaxError`` if it is not DOT.

    Label strings come back unescaped for quotes only; a backslash stays as written (Graphviz
    reads ``\\\\`` in a label as one backslash: see :func:`dot_label`).
    """
    parser = _Dot(text)
    parser.graph()
    return parser.nodes, parser.edges


def dot_label(raw: str) -> str:
    """What Graphviz shows for a label string: ``\\\\`` is a backslash; ``\\n``, ``\\l`` and
    ``\\r`` would be line breaks (corollary's labels must never contain one)."""
    out, i = [], 0
    while i < len(raw):
        if raw[i] == "\\" and i + 1 < len(raw):
            nxt = raw[i + 1]
            if nxt in "nlr":
                raise AssertionError(f"a label holds the line-break escape \\{nxt}: {raw!r}")
            out.append(nxt)
            i += 2
        else:
            out.append(raw[i])
            i += 1
    return "".join(out)


# -- Mermaid ----------------------------------------------------------------------------------
_MERMAID_KEYWORDS = {"end", "graph", "flowchart", "subgraph", "class", "classdef", "style",
                     "click", "linkstyle", "default", "direction", "call", "href"}
_ID = r"[A-Za-z][A-Za-z0-9_]*"
_TEXT = r'(?P<text>(?:[^"#\n]|#(?:[0-9]+|[A-Za-z]+);)*)'
_NODE = re.compile(rf'^  (?P<id>{_ID})(?:\["{_TEXT}"\]|\(\["{_TEXT.replace("text", "t2")}"\]\)'
                   rf'|\[/"{_TEXT.replace("text", "t3")}"/\])$')
_EDGE = re.compile(rf"^  (?P<a>{_ID}) (?:-->|-\.->|-\. (?P<label>[A-Za-z ]+) \.->) (?P<b>{_ID})$")
_CLASSDEF = re.compile(r"^  classDef (?P<name>[A-Za-z][A-Za-z0-9_]*) "
                       r"(?P<styles>[a-z-]+:[^,\s;]+(?: [^,\s;]+)*(?:,[a-z-]+:[^,\s;]+(?: [^,\s;]+)*)*)$")
_CLASS = re.compile(rf"^  class (?P<ids>{_ID}(?:,{_ID})*) (?P<name>[A-Za-z][A-Za-z0-9_]*)$")


def read_mermaid(text: str) -> dict[str, Any]:
    """``{"labels": {id: text}, "edges": [(a, b, label)], "classes": {id: class}}`` of a
    Mermaid flowchart; ``SyntaxError`` for a line outside the rules above."""
    lines = text.split("\n")
    if lines[-1] != "":
        raise SyntaxError("Mermaid: the text should end with a newline")
    lines = lines[:-1]
    if not re.fullmatch(r"flowchart (LR|RL|TB|TD|BT)", lines[0]):
        raise SyntaxError(f"Mermaid: bad header {lines[0]!r}")
    labels: dict[str, str] = {}
    edges: list[tuple[str, str, str | None]] = []
    defined: set[str] = set()
    classes: dict[str, str] = {}
    for n, line in enumerate(lines[1:], start=2):
        if m := _NODE.match(line):
            node = m["id"]
            if node.lower() in _MERMAID_KEYWORDS or node in labels:
                raise SyntaxError(f"Mermaid line {n}: id {node!r} is a keyword or defined twice")
            raw = m["text"] if m["text"] is not None else (m["t2"] if m["t2"] is not None else m["t3"])
            if raw.startswith("`") or raw != raw.strip():
                raise SyntaxError(f"Mermaid line {n}: label {raw!r} would be read as markdown")
            labels[node] = re.sub(r"#([0-9]+);", lambda e: chr(int(e.group(1))),
                                  re.sub(r"#([A-Za-z]+);", lambda e: html.unescape(f"&{e.group(1)};"),
                                         raw))
        elif m := _EDGE.match(line):
            for end in (m["a"], m["b"]):
                if end not in labels:
                    raise SyntaxError(f"Mermaid line {n}: edge to {end!r} before it is defined")
            edges.append((m["a"], m["b"], m["label"]))
        elif m := _CLASSDEF.match(line):
            if m["name"].lower() in _MERMAID_KEYWORDS:
                raise SyntaxError(f"Mermaid line {n}: class name {m['name']!r} is a keyword")
            defined.add(m["name"])
        elif m := _CLASS.match(line):
            if m["name"] not in defined:
                raise SyntaxError(f"Mermaid line {n}: class {m['name']!r} used before classDef")
            for node in m["ids"].split(","):
                if node not in labels or node in classes:
                    raise SyntaxError(f"Mermaid line {n}: class for {node!r} undefined or twice")
                classes[node] = m["name"]
        else:
            raise SyntaxError(f"Mermaid line {n}: not a flowchart statement: {line!r}")
    return {"labels": labels, "edges": edges, "classes": classes}
