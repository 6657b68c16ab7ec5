"""Pictures of the justification graph: what each node says and how it is drawn, the cone under
a key, and DOT and Mermaid text that parses (a strict grammar reader, pydot and networkx) with
every label coming back exactly, whatever the keys and values hold."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path
from typing import Any

import pytest
from support.picture_syntax import dot_label, read_dot, read_mermaid

from corollary import BeliefBase, ManualClock, PreferHigherConfidence, UnknownBeliefError
from corollary.render import GRAPH_VERSION, graph_data, to_dot, to_mermaid

README = Path(__file__).resolve().parents[2] / "README.md"


def states() -> BeliefBase:
    """Every way a node can be drawn: IN, retracted, unsupported, lost, rejected, expired,
    agreement of two origins, a step with an input OUT."""
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock, conflict_policy=PreferHigherConfidence())
    kb.assert_("rev:Q2", 100.0, source="document:10-Q")
    kb.assert_("rev:Q3", 110.0, source="document:10-Q")
    kb.claim("growth", 0.1, source="model:gpt", inputs={"q2": "rev:Q2", "q3": "rev:Q3"},
             formula="(q3 - q2) / q2")
    kb.claim("ceo", "Bob", source="model:gpt", certainty=0.8)
    kb.assert_("ceo", "Alice", source="human:ops")
    kb.claim("cfo", "Carol", source="model:gpt", certainty=0.8)
    kb.assert_("cfo", "Dan", source="document:10-K")
    kb.resolve("cfo", "Carol")
    kb.assert_("price", 101.5, source="tool:quote", ttl=60)
    kb.assert_("hq", "Austin", source="tool:registry")
    kb.assert_("hq", "Austin", source="document:10-K", origin="sec")
    clock.advance(120)
    kb.retract("rev:Q3", reason="restated", fault="source")
    return kb


def test_every_state_is_labelled_and_drawn_apart() -> None:
    kb = states()
    data = graph_data(kb)
    assert (data["version"], data["key"], data["at"]) == (GRAPH_VERSION, None, 120.0)
    assert [(n["id"], n["state"], n["label"]) for n in data["nodes"]] == [
        ("p1_0", "premise", "premise from document:10-Q"),
        ("b1", "in", "rev:Q2 = 100.0 [IN 0.82]"),
        ("p2_0", "premise", "premise from document:10-Q"),
        ("b2", "out", "rev:Q3 = 110.0 [OUT] retracted: restated"),
        ("j3_0", "invalid", "formula (q3 - q2) / q2 by model:gpt"),
        ("b3", "out", "growth = 0.1 [OUT] unsupported"),
        ("j5_0", "step", "model judgement by model:gpt"),
        ("b5", "defeated", "ceo = 'Bob' [OUT] lost to 'Alice'"),
        ("p7_0", "premise", "premise from human:ops"),
        ("b7", "in", "ceo = 'Alice' [IN 0.99]"),
        ("j8_0", "step", "model judgement by model:gpt"),
        ("b8", "in", "cfo = 'Carol' [IN 0.73]"),
        ("p10_0", "premise", "premise from document:10-K"),
        ("b10", "defeated", "cfo = 'Dan' [OUT] rejected: cfo resolved for 'Carol'"),
        ("p11_0", "invalid", "premise from tool:quote [expired]"),
        ("b11", "out", "price = 101.5 [OUT] expired"),
        ("p13_0", "premise", "premise from document:10-K (origin sec)"),
        ("p13_1", "premise", "premise from tool:registry"),
        ("b13", "in", "hq = 'Austin' [IN 0.99]"),
    ]
    # the labels say what the base says
    for node in data["nodes"]:
        if node["kind"] == "belief" and node["label_state"] == "IN":
            assert node["confidence"] == kb.confidence(node["key"], node["value"])
    assert [(e["from"], e["to"], e["kind"], e["valid"]) for e in data["edges"]] == [
        ("p1_0", "b1", "supports", True), ("p2_0", "b2", "supports", True),
        ("b1", "j3_0", "supports", True), ("b2", "j3_0", "supports", False),
        ("j3_0", "b3", "supports", False), ("j5_0", "b5", "supports", True),
        ("b5", "b7", "lost_to", True), ("p7_0", "b7", "supports", True),
        ("j8_0", "b8", "supports", True), ("p10_0", "b10", "supports", True),
        ("p11_0", "b11", "supports", False), ("p13_0", "b13", "supports", True),
        ("p13_1", "b13", "supports", True)]


def test_the_styles_of_each_state() -> None:
    kb = states()
    nodes, edges = read_dot(to_dot(kb))
    assert nodes["b1"]["style"] == "rounded,filled" and nodes["b1"]["fillcolor"] == "#e8f5e9"
    assert nodes["b2"]["style"] == "rounded,dashed" and nodes["b3"]["style"] == "rounded,dashed"
    assert nodes["b5"]["color"] == nodes["b10"]["color"] == "#c62828"
    assert nodes["j3_0"]["style"] == "dashed" and "style" not in nodes["j5_0"]
    assert nodes["p11_0"]["style"] == "dashed" and nodes["p1_0"]["shape"] == "note"
    assert {(a, b): attrs.get("style") for a, b, attrs in edges}[("b5", "b7")] == "dotted"
    classes = read_mermaid(to_mermaid(kb))["classes"]
    assert classes == {"b1": "held", "b7": "held", "b8": "held", "b13": "held",
                       "b2": "notheld", "b3": "notheld", "b11": "notheld",
                       "b5": "defeated", "b10": "defeated",
                       "p1_0": "premise", "p2_0": "premise", "p7_0": "premise",
                       "p10_0": "premise", "p13_0": "premise", "p13_1": "premise",
                       "j5_0": "step", "j8_0": "step", "j3_0": "invalid", "p11_0": "invalid"}


def test_the_cone_under_a_key() -> None:
    kb = states()
    data = graph_data(kb, "growth")
    assert [n["id"] for n in data["nodes"]] == ["p1_0", "b1", "p2_0", "b2", "j3_0", "b3"]
    both = graph_data(kb, "ceo")  # every value of the key, and who beat whom
    assert [n["id"] for n in both["nodes"]] == ["j5_0", "b5", "p7_0", "b7"]
    assert ("b5", "b7", "lost_to") in [(e["from"], e["to"], e["kind"]) for e in both["edges"]]
    with pytest.raises(UnknownBeliefError, match="no belief about 'nope'"):
        to_dot(kb, "nope")


def test_the_picture_reads_the_base_at_its_clock() -> None:
    clock = ManualClock(0)
    kb = BeliefBase(clock=clock)
    kb.assert_("price", 101.5, source="tool:quote", ttl=60)
    assert "price = 101.5 [IN 0.95]" in to_mermaid(kb)
    clock.advance(60)
    assert "price = 101.5 [OUT] expired" in to_mermaid(kb)


NASTY_KEYS = ['say "hi"', "back\\slash\\n", "a:b/c", "x<y>&z", "semi;colon", "hash#35;",
              "tick`s`", "é café ✓ 🙂", "new\nline", "end", "%% not a comment", "{brace} [x]",
              "trailing ", "-->"]


def nasty() -> BeliefBase:
    kb = BeliefBase(clock=ManualClock(0))
    for i, key in enumerate(NASTY_KEYS):
        kb.assert_(key, f'v"{i}"\\', source="tool:feed")
    kb.assert_("doc", {"a": [1, 'b"c'], "<d>": None}, source="document:x")
    kb.claim("out", "x" * 200, source="model:m", inputs={"a": 'say "hi"', "b": "x<y>&z"},
             certainty=0.5)
    return kb


def test_dot_parses_and_gives_every_label_back() -> None:
    kb = nasty()
    data = graph_data(kb)
    nodes, edges = read_dot(to_dot(kb))
    assert {i: dot_label(attrs["label"]) for i, attrs in nodes.items()} == {
        n["id"]: n["label"] for n in data["nodes"]}
    assert [(a, b) for a, b, _ in edges] == [(e["from"], e["to"]) for e in data["edges"]]
    labels = {n["key"]: n["label"] for n in data["nodes"] if n["kind"] == "belief"}
    assert labels["new\nline"] == "new\\nline = 'v\"8\"\\\\' [IN 0.95]"  # no line break
    assert labels["out"] == "out = '" + "x" * 58 + "… [IN 0.43]"  # long values are clipped
    assert len(data["nodes"]) == 2 * len(NASTY_KEYS) + 2 + 2
    assert len(edges) == len(NASTY_KEYS) + 1 + 3


def test_mermaid_follows_the_flowchart_rules_and_gives_every_label_back() -> None:
    kb = nasty()
    data = graph_data(kb)
    text = to_mermaid(kb)
    parsed = read_mermaid(text)
    assert parsed["labels"] == {n["id"]: n["label"] for n in data["nodes"]}
    assert [(a, b) for a, b, _ in parsed["edges"]] == [(e["from"], e["to"]) for e in data["edges"]]
    assert text.isascii()  # every other character is an entity code
    assert "#34;hi#34;" in text and "#60;y#62;#38;z" in text and "#96;" in text


@pytest.mark.filterwarnings("ignore:'setParseAction' deprecated")  # pydot on pyparsing 3.3
def test_pydot_and_networkx_read_the_dot() -> None:
    pydot = pytest.importorskip("pydot", reason="pydot comes with corollary[test]")
    import networkx as nx

    kb = nasty()
    data = graph_data(kb)
    (graph,) = pydot.graph_from_dot_data(to_dot(kb))
    g = nx.nx_pydot.from_pydot(graph)
    assert set(g.nodes) == {n["id"] for n in data["nodes"]}
    assert {(a, b) for a, b, *_ in g.edges} == {(e["from"], e["to"]) for e in data["edges"]}
    for node in data["nodes"]:
        assert dot_label(g.nodes[node["id"]]["label"][1:-1].replace('\\"', '"')) == node["label"]


def test_the_same_base_draws_the_same_text_after_a_snapshot(tmp_path: Path) -> None:
    kb = states()
    kb.save(tmp_path / "kb.cor")
    again = BeliefBase.load(tmp_path / "kb.cor", clock=ManualClock(120))
    assert to_dot(again) == to_dot(kb)
    assert to_mermaid(again, "growth") == to_mermaid(kb, "growth")


def _readme_base() -> Any:
    text = README.read_text()
    code = next(block for block in re.findall(r"```python\n(.*?)```", text, flags=re.S)
                if "kb = BeliefBase(" in block)  # "A first base", the example the picture draws
    scope: dict[str, Any] = {}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, "README.md", "exec"), scope)  # noqa: S102 - our own README
    return scope["kb"]


def test_the_readme_shows_the_mermaid_picture_of_its_example() -> None:
    blocks = re.findall(r"```mermaid\n(.*?)```", README.read_text(), flags=re.S)
    assert len(blocks) == 1, "the README shows one Mermaid picture"
    assert blocks[0] == to_mermaid(_readme_base())
    read_mermaid(blocks[0])


def test_a_superseded_value_is_drawn_as_superseded_not_as_defeated() -> None:
    """Under PreferNewer the proof says "superseded by"; the picture says the same, in its own
    style and edge, while a value that lost a conflict stays "lost to" in red (issue 35, 6)."""
    from corollary import PreferNewer

    kb = BeliefBase(clock=ManualClock(1_000), conflict_policy=PreferNewer())
    kb.assert_("addr", "Oak St", source="tool:crm", valid_from=100)
    kb.assert_("addr", "Pine Ave", source="document:email", valid_from=200)
    kb.claim("ceo", "Bob", source="model:gpt", certainty=0.5, valid_from=300)
    kb.assert_("ceo", "Alice", source="human:ops", valid_from=300)  # same start: not in time
    assert "superseded by 'Pine Ave'" in str(kb.explain("addr", "Oak St"))
    data = graph_data(kb)
    nodes = {n["label"].split(" [")[0]: n for n in data["nodes"] if n["kind"] == "belief"}
    oak = nodes["addr = 'Oak St'"]
    assert (oak["state"], oak["why"]) == ("superseded", "superseded by 'Pine Ave'")
    assert oak["label"] == "addr = 'Oak St' [OUT] superseded by 'Pine Ave'"
    pine = nodes["addr = 'Pine Ave'"]
    assert [(e["from"], e["to"], e["kind"]) for e in data["edges"] if e["kind"] != "supports"] \
        == [(oak["id"], pine["id"], "superseded_by")]
    dot_nodes, dot_edges = read_dot(to_dot(kb))
    assert dot_nodes[oak["id"]]["color"] == "#8d6e63"
    assert {(a, b): e.get("label") for a, b, e in dot_edges}[(oak["id"], pine["id"])] \
        == "superseded by"
    assert read_mermaid(to_mermaid(kb))["classes"][oak["id"]] == "superseded"
    # a value that lost a conflict is still drawn as defeated
    lost = graph_data(states())
    assert [n["state"] for n in lost["nodes"] if n["id"] == "b5"] == ["defeated"]
