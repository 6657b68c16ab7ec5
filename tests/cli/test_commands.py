"""The ``corollary`` commands as a user runs them: a snapshot and a SQLite session whose rules and
tools live in the user's module, read at the time they were saved, with ``--json``, and one line
on stderr (never a traceback) for every mistake.

Every command here runs as a child process (``python -m corollary ...``) with the user's module
on ``PYTHONPATH``; expected values come from the public API in this process.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.cli_support import (
    ROOT,
    TAKEN_AT,
    Shop,
    env_for,
    load_module,
    make_shop,
    one_line_error,
    run,
)

from corollary import BeliefBase, ManualClock, open_ledger
from corollary.cli.output import JSON_VERSION
from corollary.snapshot.state import read_session


@pytest.fixture(scope="module")
def shop(tmp_path_factory: pytest.TempPathFactory) -> Shop:
    return make_shop(tmp_path_factory.mktemp("shop"))


@pytest.fixture(scope="module")
def model(shop: Shop) -> Any:
    return load_module(shop.home)


def snapshot_base(shop: Shop, model: Any, at: float = TAKEN_AT) -> BeliefBase:
    return BeliefBase.load(shop.snapshot, clock=ManualClock(at))


# -- help, usage -----------------------------------------------------------------------------
def test_bare_corollary_prints_help_and_runs_nothing(shop: Shop) -> None:
    done = run(shop)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage: corollary")
    assert "demo: all checks passed" not in done.stdout
    for command in ("demo", "explain", "beliefs", "conflicts", "faded", "graph", "sessions",
                    "sources", "mcp", "ui"):
        assert re.search(rf"^\s+{command}\s", done.stdout, flags=re.M), command


def test_help_flag_prints_the_same_help(shop: Shop) -> None:
    bare, flag = run(shop), run(shop, "--help")
    assert flag.returncode == 0
    assert flag.stdout == bare.stdout


@pytest.mark.parametrize("args, wanted", [
    (["explain"], "the following arguments are required: KEY"),
    (["nonsense"], "invalid choice: 'nonsense'"),
    (["beliefs", "x.cor", "--at", "nan"], "--at: not a finite number of seconds: 'nan'"),
    (["beliefs", "x.cor", "--at", "5", "--now"], "not allowed with argument"),
    (["graph", "x.cor", "--format", "png"], "invalid choice: 'png'"),
    (["beliefs", "x.cor", "--min-confidence", "1.5"], "--min-confidence: must be in [0, 1], got '1.5'"),
    (["beliefs"], "give a snapshot path or --ledger PATH --session ID"),
    (["ui"], "give a snapshot path or --ledger PATH --session ID"),
    (["ui", "x.cor", "--port", "0"], "--port: not a TCP port: '0'"),
    (["ui", "x.cor", "--session", "s"], "give a snapshot path or --session ID, not both"),
    (["beliefs", "x.cor", "--session", "s"], "give a snapshot path or --session ID, not both"),
    (["beliefs", "--ledger", "l.db"], "--ledger without a snapshot needs --session ID"),
])
def test_usage_errors_are_one_line_and_status_2(shop: Shop, args: list[str], wanted: str) -> None:
    line = one_line_error(run(shop, *args), status=2)
    assert line.startswith("corollary"), line
    assert wanted in line, line


# -- explain -------------------------------------------------------------------------------
def test_explain_without_the_users_module_names_it(shop: Shop) -> None:
    line = one_line_error(run(shop, "explain", str(shop.snapshot), "signal"))
    assert "rules ['shop.signal']" in line
    assert "tools ['shop_filings', 'shop_quote']" in line
    assert "--import shop" in line


def test_explain_reads_the_snapshot_at_its_own_time(shop: Shop, model: Any) -> None:
    done = run(shop, "--import", "shop", "explain", str(shop.snapshot), "signal")
    assert done.returncode == 0, done.stderr
    expected = str(snapshot_base(shop, model).explain("signal"))
    assert done.stdout == expected + "\n"
    assert done.stdout.startswith("signal = 'buy' [IN ")
    assert "shop_quote" in done.stdout and "[expired]" not in done.stdout


def test_explain_now_and_at_move_the_time(shop: Shop, model: Any) -> None:
    later = run(shop, "explain", "--import", "shop", str(shop.snapshot), "price:ACME",
                "--at", str(TAKEN_AT + 100))  # 300 s after the quote: its ttl ran out
    assert later.returncode == 0, later.stderr
    assert later.stdout == str(snapshot_base(shop, model, TAKEN_AT + 100).explain("price:ACME")) + "\n"
    assert later.stdout.startswith("price:ACME = 101.5 [OUT] expired")
    now = run(shop, "explain", "--import", "shop", str(shop.snapshot), "price:ACME", "--now")
    assert now.returncode == 0, now.stderr
    assert now.stdout.startswith("price:ACME = 101.5 [OUT] expired")  # the wall clock is later


def test_explain_at_1e30_on_a_fading_premise(shop: Shop, model: Any) -> None:
    # the age (1e30 s) failed the confidence formatter with decimal.InvalidOperation
    done = run(shop, "explain", "--import", "shop", str(shop.snapshot), "price:ACME", "--at", "1e30")
    assert done.returncode == 0, done.stderr
    assert done.stdout == str(snapshot_base(shop, model, 1e30).explain("price:ACME")) + "\n"
    assert "age 1.157e+25 d, half-life 1 min" in done.stdout


def test_explain_json(shop: Shop, model: Any) -> None:
    done = run(shop, "explain", "--import", "shop", str(shop.snapshot), "growth", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    kb = snapshot_base(shop, model)
    assert data == {
        "version": JSON_VERSION, "command": "explain", "base": {"snapshot": str(shop.snapshot)},
        "at": TAKEN_AT, "key": "growth", "value": None,
        "text": str(kb.explain("growth")), "proof": json.loads(json.dumps(kb.explain("growth").to_dict())),
        "continued": [],
    }


def test_explain_json_of_a_5000_deep_chain_on_a_saved_base(shop: Shop, tmp_path: Path) -> None:
    """Nested four JSON levels per belief, the tree failed json.dumps from about 245 beliefs;
    it now comes cut into blocks as the text is, each shallow enough for any JSON reader."""
    from corollary.tms.proof import RENDER_DEPTH

    depth = 5_000
    kb = BeliefBase(clock=ManualClock(TAKEN_AT))
    kb.assert_("k0", 0, source="human:ops")
    for i in range(1, depth + 1):
        kb.claim(f"k{i}", i, source="model:m", inputs=[f"k{i - 1}"], certainty=0.999)
    kb.save(tmp_path / "deep.cor")
    done = run(shop, "explain", str(tmp_path / "deep.cor"), f"k{depth}", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    proof = kb.explain(f"k{depth}")
    assert data["text"] == str(proof)
    assert [block["number"] for block in data["continued"]] == list(range(1, depth // RENDER_DEPTH + 1))
    # following each cut into its block walks the whole chain, k5000 down to k0, as to_dict has it
    blocks = {block["number"]: block["proof"] for block in data["continued"]}
    node, whole, seen = data["proof"], proof.to_dict(), 0
    assert isinstance(whole, dict)
    while True:
        if "continued" in node:
            node = blocks[node["continued"]]
        assert {k: v for k, v in node.items() if k != "reasons"} == {
            k: v for k, v in whole.items() if k != "reasons"}
        seen += 1
        if whole["key"] == "k0":
            break
        node, whole = node["reasons"][0]["inputs"][0], whole["reasons"][0]["inputs"][0]
    assert seen == depth + 1 and node["key"] == "k0"


def test_explain_a_value_read_as_json_or_text(shop: Shop, model: Any) -> None:
    kb = snapshot_base(shop, model)
    bob = run(shop, "explain", "--import", "shop", str(shop.snapshot), "ceo", "--value", "Bob")
    assert bob.returncode == 0, bob.stderr
    assert bob.stdout == str(kb.explain("ceo", "Bob")) + "\n"
    number = run(shop, "explain", "--import", "shop", str(shop.snapshot), "revenue:Q2",
                 "--value", "100")
    assert number.stdout == str(kb.explain("revenue:Q2", 100.0)) + "\n"
    line = one_line_error(run(shop, "explain", "--import", "shop", str(shop.snapshot),
                              "ceo", "--value", "Carol"))
    assert line == "corollary: no belief ceo = 'Carol' (values held or known: 'Alice', 'Bob')"


def test_explain_an_unknown_key_suggests_close_ones(shop: Shop) -> None:
    line = one_line_error(run(shop, "explain", "--import", "shop", str(shop.snapshot),
                              "revenue:Q4"))
    assert line == ("corollary: no belief about 'revenue:Q4' "
                    "(did you mean 'revenue:Q2', 'revenue:Q3'?)")
    far = one_line_error(run(shop, "explain", "--import", "shop", str(shop.snapshot), "zzz"))
    assert far == "corollary: no belief about 'zzz'"


def test_missing_corrupt_and_foreign_files(shop: Shop, tmp_path: Path) -> None:
    missing = one_line_error(run(shop, "beliefs", str(tmp_path / "nope.cor")))
    assert missing == f"corollary: no such file: {tmp_path / 'nope.cor'}"
    flipped = tmp_path / "flipped.cor"
    raw = bytearray(shop.snapshot.read_bytes())
    raw[len(raw) // 2] ^= 0x40
    flipped.write_bytes(bytes(raw))
    line = one_line_error(run(shop, "--import", "shop", "beliefs", str(flipped)))
    assert line.startswith(f"corollary: {flipped}: ") and "checksum" in line, line
    foreign = tmp_path / "foreign.json"
    foreign.write_text('{"hello": 1}')
    line = one_line_error(run(shop, "beliefs", str(foreign)))
    assert line == f"corollary: {foreign}: not a corollary snapshot"
    directory = one_line_error(run(shop, "beliefs", str(tmp_path)))
    assert str(tmp_path) in directory


def test_import_errors_are_one_line(shop: Shop, tmp_path: Path) -> None:
    line = one_line_error(run(shop, "--import", "no_such_module_x", "beliefs", str(shop.snapshot)))
    assert line == "corollary: --import no_such_module_x: No module named 'no_such_module_x'"
    (tmp_path / "broken_mod.py").write_text("raise RuntimeError('boom at import')\n")
    line = one_line_error(run(shop, "--import", "broken_mod", "beliefs", str(shop.snapshot),
                              env=env_for(shop.home, PYTHONPATH=os.pathsep.join(
                                  [str(tmp_path), env_for(shop.home)["PYTHONPATH"]]))))
    assert line == "corollary: --import broken_mod: RuntimeError: boom at import"


@pytest.mark.parametrize("body, wanted", [
    ("class Stop(BaseException):\n    pass\nraise Stop('halt')\n", "Stop: halt"),
    ("raise GeneratorExit('odd')\n", "GeneratorExit: odd"),
    ("import sys\nsys.exit(3)\n", "SystemExit: 3"),
    ("import sys\nsys.exit('bye')\n", "SystemExit: bye"),
])
def test_a_module_raising_a_base_exception_is_one_line(shop: Shop, tmp_path: Path, body: str,
                                                        wanted: str) -> None:
    # a BaseException subclass printed a 20-line traceback
    (tmp_path / "halting.py").write_text(body)
    for name in ("halting", str(tmp_path / "halting.py")):
        line = one_line_error(run(shop, "--import", name, "beliefs", str(shop.snapshot),
                                  cwd=tmp_path))
        assert line == f"corollary: --import {name}: {wanted}"


class _Halt(BaseException):
    pass


@pytest.mark.parametrize("raised, wanted, status", [
    (_Halt("from a rule"), "corollary: stopped: _Halt: from a rule", 1),
    (SystemExit(4), "corollary: stopped: SystemExit(4)", 1),
    (SystemExit("why"), "corollary: stopped: SystemExit('why')", 1),
])
def test_a_command_stopped_by_a_base_exception_is_one_line(
        shop: Shop, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        raised: BaseException, wanted: str, status: int) -> None:
    from corollary.cli import commands, main

    def stopped(args: Any) -> int:  # what a user's rule or tool may raise under any command
        raise raised

    monkeypatch.setattr(commands, "beliefs", stopped)
    assert main(["beliefs", str(shop.snapshot)]) == status
    out, err = capsys.readouterr()
    assert (out, err) == ("", wanted + "\n")


def test_import_a_file_path(shop: Shop, tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere" / "my_rules.py"  # not importable by name, any file name
    copy.parent.mkdir()
    copy.write_text((shop.home / "shop.py").read_text())
    env = env_for(shop.home, PYTHONPATH=str(ROOT))
    done = run(shop, "--import", str(copy), "beliefs", str(shop.snapshot), "--json", env=env,
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["beliefs"]) == 9
    line = one_line_error(run(shop, "--import", str(tmp_path / "gone.py"), "beliefs",
                              str(shop.snapshot), env=env, cwd=tmp_path))
    assert line == f"corollary: --import {tmp_path / 'gone.py'}: no such file: {tmp_path / 'gone.py'}"


# -- beliefs, conflicts, faded on a snapshot ---------------------------------------------------
def test_beliefs_table_and_json(shop: Shop, model: Any) -> None:
    kb = snapshot_base(shop, model)
    held = sorted(kb.beliefs(), key=lambda h: (h.key, -h.confidence))
    done = run(shop, "beliefs", "--import", "shop", str(shop.snapshot), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["version"] == JSON_VERSION and data["command"] == "beliefs"
    assert data["at"] == TAKEN_AT and data["min_confidence"] is None
    assert data["beliefs"] == [{"key": h.key, "value": h.value, "label": "IN",
                                "confidence": h.confidence} for h in held]
    assert len(data["beliefs"]) == 9
    table = run(shop, "beliefs", "--import", "shop", str(shop.snapshot))
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["KEY", "VALUE", "CONFIDENCE"]
    assert len(lines) == 1 + 9
    assert re.match(r"hq\s+'Austin'\s+0\.9959$", lines[[h.key for h in held].index("hq") + 1])
    floor = run(shop, "beliefs", "--import", "shop", str(shop.snapshot), "--json",
                "--min-confidence", "0.95")
    kept = json.loads(floor.stdout)["beliefs"]
    assert [b["key"] for b in kept] == sorted(h.key for h in held if h.confidence >= 0.95)
    assert len(kept) == 5  # ceo = Alice, growth, hq, revenue:Q2 and Q3


def test_recall_table_and_json(shop: Shop, model: Any) -> None:
    kb = snapshot_base(shop, model)
    done = run(shop, "recall", str(shop.snapshot), "ceo revenue", "-k", "3", "--json",
               "--import", "shop")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["version"] == JSON_VERSION and data["command"] == "recall"
    assert (data["query"], data["k"], data["min_confidence"]) == ("ceo revenue", 3, None)
    assert data["beliefs"] == [
        {"key": r.key, "value": r.value, "label": "IN", "confidence": r.confidence,
         "score": r.score, "why": list(r.why), "conflict": r.conflict}
        for r in kb.recall("ceo revenue", 3)]
    assert len(data["beliefs"]) == 3
    assert {(b["key"], b["conflict"]) for b in data["beliefs"]} >= {("ceo", True)}
    floor = json.loads(run(shop, "recall", str(shop.snapshot), "ceo", "--min-confidence", "0.9",
                           "--json", "--import", "shop").stdout)
    assert [(b["key"], b["value"]) for b in floor["beliefs"]] == [("ceo", "Alice")]
    table = run(shop, "recall", str(shop.snapshot), "merger rumour", "--import", "shop")
    lines = table.stdout.splitlines()
    assert lines[0].split() == ["KEY", "VALUE", "CONFIDENCE", "WHY"]
    assert re.match(r"rumour\s+'merger'\s+0\.9000\s+merger, rumour$", lines[1])
    session = run(shop, "recall", "--ledger", str(shop.ledger), "--session", "shop-1",
                  "quarterly revenue", "--json", "--import", "shop")
    assert [b["key"] for b in json.loads(session.stdout)["beliefs"]] == ["revenue:Q2",
                                                                       "revenue:Q3"]


@pytest.mark.parametrize(("args", "wanted"), [
    (["-k", "0"], "argument -k: not a positive whole number: '0'"),
    (["-k", "x"], "argument -k: not a positive whole number: 'x'"),
    (["--min-confidence", "2"], "argument --min-confidence: must be in [0, 1], got '2'"),
])
def test_recall_usage_errors(shop: Shop, args: list[str], wanted: str) -> None:
    done = run(shop, "recall", str(shop.snapshot), "ceo", *args, "--import", "shop")
    assert wanted in one_line_error(done, status=2)


def test_recall_of_a_blank_query_is_one_line(shop: Shop) -> None:
    done = run(shop, "recall", str(shop.snapshot), "  ", "--import", "shop")
    assert done.returncode == 1
    assert one_line_error(done) == "corollary: query must hold some text"


def test_conflicts_table_and_json(shop: Shop, model: Any) -> None:
    done = run(shop, "conflicts", "--import", "shop", str(shop.snapshot), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    (conflict,) = snapshot_base(shop, model).conflicts()
    assert data["conflicts"] == [{"key": "ceo", "candidates": [
        {"value": c.value, "confidence": c.confidence, "sources": list(c.sources)}
        for c in conflict.candidates]}]
    assert [c["value"] for c in data["conflicts"][0]["candidates"]] == ["Alice", "Bob"]
    text = run(shop, "conflicts", "--import", "shop", str(shop.snapshot)).stdout
    assert text.splitlines()[0] == "ceo:"
    assert re.match(r"\s+'Alice'\s+0\.9900\s+human:ops$", text.splitlines()[1])
    assert re.match(r"\s+'Bob'\s+0\.7200\s+model:analyst$", text.splitlines()[2])


def test_faded_table_and_json(shop: Shop, model: Any) -> None:
    done = run(shop, "faded", "--import", "shop", str(shop.snapshot), "--json",
               "--threshold", "0.5")
    data = json.loads(done.stdout)
    (faded,) = snapshot_base(shop, model).faded(0.5)
    assert data["threshold"] == 0.5
    assert data["faded"] == [{"key": "price:ACME", "value": 101.5, "confidence": faded.confidence,
                              "sources": ["tool:shop_quote"]}]
    none = json.loads(run(shop, "faded", "--import", "shop", str(shop.snapshot), "--json",
                          "--threshold", "0.05").stdout)
    assert none["faded"] == []


# -- sessions in a ledger --------------------------------------------------------------------
def test_a_session_reads_like_a_snapshot(shop: Shop, model: Any) -> None:
    done = run(shop, "explain", "--import", "shop", "--ledger", str(shop.ledger),
               "--session", "shop-1", "rumour", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["base"] == {"ledger": str(shop.ledger), "session": "shop-1", "session_version": 1}
    assert data["at"] == TAKEN_AT
    assert data["text"].startswith("rumour = 'merger' [OUT] retracted: denied")
    with open_ledger(shop.ledger) as ledger:
        # the snapshot itself: load_session would open the session as a journal (it converts
        # on its first open), and the next tests read the snapshot session
        doc, _ = read_session(ledger.store, "shop-1")
        kb = BeliefBase.from_dict(doc, ledger=ledger, clock=ManualClock(TAKEN_AT))
        assert data["text"] == str(kb.explain("rumour"))


def test_unknown_session_and_missing_ledger(shop: Shop, tmp_path: Path) -> None:
    line = one_line_error(run(shop, "beliefs", "--ledger", str(shop.ledger), "--session", "nope"))
    assert line == f"corollary: no session 'nope' in {shop.ledger} (sessions: 'shop-1')"
    line = one_line_error(run(shop, "sessions", str(tmp_path / "none.db")))
    assert line == f"corollary: no such ledger: {tmp_path / 'none.db'}"
    assert not (tmp_path / "none.db").exists()


def test_sessions_and_json(shop: Shop) -> None:
    done = run(shop, "sessions", str(shop.ledger), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {
        "version": JSON_VERSION, "command": "sessions", "ledger": str(shop.ledger),
        "sessions": [{"id": "shop-1", "version": 1, "taken_at": TAKEN_AT, "beliefs": 9,
                      "journal": None,
                      "error": None}]}
    lines = run(shop, "sessions", str(shop.ledger)).stdout.splitlines()
    assert lines[0].split() == ["SESSION", "VERSION", "SAVED", "AT", "BELIEFS"]
    assert lines[1].split() == ["shop-1", "1", "2026-01-01T00:03:20Z", "9"]


def test_sources_and_json(shop: Shop) -> None:
    done = run(shop, "sources", str(shop.ledger), "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["version"] == JSON_VERSION and data["command"] == "sources"
    rows = {row["source"]: row for row in data["sources"]}
    assert sorted(rows) == ["document:10-K", "document:blog", "tool:registry", "tool:shop_filings"]
    with open_ledger(shop.ledger) as ledger:
        for source, row in rows.items():
            record = ledger.record_of(source)
            last = ledger.outcomes(source)[-1]
            assert row == {"source": source, "reliability": record.reliability,
                           "prior": record.prior, "right": record.correct, "wrong": record.wrong,
                           "samples": record.correct + record.wrong,
                           "last_outcome": {"correct": last.correct, "at": last.at,
                                            "reason": last.reason, "key": last.key}}
    assert rows["document:blog"]["wrong"] == 1 and rows["document:blog"]["right"] == 0
    assert rows["document:blog"]["last_outcome"]["reason"] == "denied"
    assert rows["tool:shop_filings"]["prior"] == 0.95  # without the module: the policy's tool prior
    text = run(shop, "sources", str(shop.ledger)).stdout.splitlines()
    assert text[0].split() == ["SOURCE", "RELIABILITY", "RIGHT", "WRONG", "SAMPLES", "LAST",
                               "OUTCOME"]
    blog = next(line for line in text if line.startswith("document:blog"))
    assert blog.split()[1:5] == ["0.818", "0", "1", "1"]
    assert blog.endswith("wrong at 2026-01-01T00:03:20Z: denied")


def test_sources_take_the_imported_tools_declared_trust(shop: Shop) -> None:
    done = run(shop, "sources", "--import", "shop", str(shop.ledger), "--json")
    rows = {row["source"]: row for row in json.loads(done.stdout)["sources"]}
    with open_ledger(shop.ledger) as ledger:
        record = ledger.record_of("tool:shop_filings", prior=0.99)  # @tool(trust="high")
    assert rows["tool:shop_filings"]["prior"] == 0.99
    assert rows["tool:shop_filings"]["reliability"] == record.reliability
    assert format(record.reliability, ".4f") == "0.9909"  # (10 × 0.99 + 1) / 11


# -- graph ---------------------------------------------------------------------------------
def test_graph_dot_mermaid_and_file(shop: Shop, model: Any, tmp_path: Path) -> None:
    from corollary.render import to_dot, to_mermaid

    kb = snapshot_base(shop, model)
    dot = run(shop, "graph", "--import", "shop", str(shop.snapshot), "--format", "dot")
    assert dot.returncode == 0, dot.stderr
    assert dot.stdout == to_dot(kb)
    cone = run(shop, "graph", "--import", "shop", str(shop.snapshot), "signal",
               "--format", "mermaid", "--output", str(tmp_path / "signal.mmd"))
    assert cone.returncode == 0 and cone.stdout == ""
    assert (tmp_path / "signal.mmd").read_text() == to_mermaid(kb, "signal")
    data = json.loads(run(shop, "graph", "--import", "shop", str(shop.snapshot), "signal",
                          "--json").stdout)
    assert data["command"] == "graph" and data["key"] == "signal"
    assert [n["label"] for n in data["nodes"] if n["kind"] == "belief"] == [
        "revenue:Q2 = 100.0 [IN 0.99]", "revenue:Q3 = 110.0 [IN 0.99]",
        "growth = 0.1 [IN 0.99]", "price:ACME = 101.5 [IN 0.09]", "signal = 'buy' [IN 0.09]"]


def test_graph_svg_without_graphviz_says_how_to_install_it(shop: Shop, tmp_path: Path) -> None:
    bare = tmp_path / "bin"
    bare.mkdir()
    env = env_for(shop.home, PATH=str(bare))
    line = one_line_error(run(shop, "graph", "--import", "shop", str(shop.snapshot),
                              "--format", "svg", env=env))
    assert line.startswith("corollary: --format svg needs Graphviz's 'dot' on PATH")
    assert "apt-get install graphviz" in line and "--format dot" in line


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not on PATH")
def test_graph_svg_with_graphviz(shop: Shop, tmp_path: Path) -> None:
    out = tmp_path / "kb.svg"
    done = run(shop, "graph", "--import", "shop", str(shop.snapshot), "--format", "svg",
               "--output", str(out))
    assert done.returncode == 0, done.stderr
    svg = out.read_text()
    assert svg.lstrip().startswith("<?xml") and "</svg>" in svg
    assert "signal = &#39;buy&#39; [IN 0.09]" in svg


def test_reading_a_base_without_promises_leaves_the_statistics_unimported(shop: Shop) -> None:
    # scipy.stats (promises, calibration) is most of a command's start-up: a base that carries
    # no promise must not pay for it
    script = ("import sys, shop\n"
              "from corollary.cli import main\n"
              f"assert main(['beliefs', {str(shop.snapshot)!r}, '--json']) == 0\n"
              "print(sorted(m for m in ('scipy.stats', 'corollary.promises.guarantee') if m in sys.modules))\n")
    done = subprocess.run([sys.executable, "-c", script], cwd=shop.home, env=env_for(shop.home),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "[]"


def test_a_snapshot_taken_with_a_shared_ledger(shop: Shop, tmp_path: Path) -> None:
    with open_ledger(tmp_path / "shared.db", clock=ManualClock(0)) as ledger:
        kb = BeliefBase(ledger=ledger, clock=ManualClock(0))
        kb.assert_("hq", "Austin", source="tool:registry")
        kb.retract("hq", fault="source")
        kb.assert_("hq", "Dallas", source="tool:registry")
        kb.save(tmp_path / "kb.cor")
        expected = kb.confidence("hq")
    alone = run(shop, "beliefs", str(tmp_path / "kb.cor"), "--json")
    assert alone.returncode == 0
    assert alone.stderr == ("corollary: warning: the snapshot was taken with a shared ledger: "
                            "pass --ledger PATH to read its sources' track records (reading it "
                            "with priors only)\n")
    assert json.loads(alone.stdout)["beliefs"][0]["confidence"] == 0.95
    attached = run(shop, "beliefs", str(tmp_path / "kb.cor"), "--ledger",
                   str(tmp_path / "shared.db"), "--json")
    assert attached.stderr == ""
    data = json.loads(attached.stdout)
    assert data["base"] == {"snapshot": str(tmp_path / "kb.cor"), "ledger": str(tmp_path / "shared.db")}
    assert data["beliefs"][0]["confidence"] == expected == (10 * 0.95) / 11


def test_an_unreadable_session_is_listed_and_refused(shop: Shop, tmp_path: Path) -> None:
    db = tmp_path / "ledger.db"
    with open_ledger(db, clock=ManualClock(0)) as ledger:
        BeliefBase(ledger=ledger, clock=ManualClock(0)).save_session("good")
        ledger.store.save_session("bad", b"not a snapshot at all")
    listed = json.loads(run(shop, "sessions", str(db), "--json").stdout)["sessions"]
    assert [(s["id"], s["version"], s["beliefs"]) for s in listed] == [("bad", None, None),
                                                                      ("good", 1, 0)]
    assert listed[0]["error"].startswith("session 'bad': ")
    assert listed[1]["error"] is None
    text = run(shop, "sessions", str(db)).stdout.splitlines()
    assert text[1].split()[:6] == ["bad", "-", "-", "-", "unreadable:", "session"]
    assert "corrupt or truncated snapshot" in text[1]
    line = one_line_error(run(shop, "beliefs", "--ledger", str(db), "--session", "bad"))
    assert line.startswith("corollary: session 'bad': ")


# -- what agents wrote reaches the terminal escaped ----------------------------------------------
#: sets the window title, returns to the line's start, erases the line; then a bidi override
HOSTILE = "\x1b]0;owned\x07\r\x1b[2K\u202e\x9b"


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A snapshot and a ledger whose key, source, reason and session id carry HOSTILE."""
    home = tmp_path_factory.mktemp("hostile")
    with open_ledger(home / "ledger.db", clock=ManualClock(TAKEN_AT)) as ledger:
        kb = BeliefBase(clock=ManualClock(TAKEN_AT), ledger=ledger)
        kb.assert_("k" + HOSTILE, "v" + HOSTILE, source="tool:t" + HOSTILE, half_life=1)
        kb.assert_("c" + HOSTILE, 1, source="tool:a")
        kb.assert_("c" + HOSTILE, 2, source="tool:b")
        kb.record_outcome("tool:t" + HOSTILE, False, reason="r" + HOSTILE)
        kb.save_session("s" + HOSTILE)
    kb.save(home / "hostile.cor")
    return home


@pytest.mark.parametrize("args", [
    ["explain", "hostile.cor", "k" + HOSTILE],
    ["explain", "hostile.cor", "nope" + HOSTILE],  # the error line names the key
    ["beliefs", "hostile.cor"],
    ["conflicts", "hostile.cor"],
    ["faded", "hostile.cor", "--threshold", "1", "--at", str(TAKEN_AT + 1)],  # aged: faded
    ["graph", "hostile.cor"],
    ["graph", "hostile.cor", "--format", "mermaid"],
    ["sessions", "ledger.db"],
    ["sources", "ledger.db"],
    ["beliefs", "--ledger", "ledger.db", "--session", "s" + HOSTILE],
    ["beliefs", "--ledger", "ledger.db", "--session", "gone" + HOSTILE],
])
def test_control_characters_reach_the_terminal_escaped(shop: Shop, hostile: Path,
                                                       args: list[str]) -> None:
    done = run(shop, *args, cwd=hostile)
    shown = done.stdout + done.stderr
    assert shown.strip()
    # no control character but the newline, no bidi control; each shown as its escape
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", shown), shown
    if args[0] != "graph":  # DOT and Mermaid have escapes of their own
        assert r"\x1b]0;owned\x07\r\x1b[2K\u202e\x9b" in shown


@pytest.mark.parametrize("args", [["beliefs", "hostile.cor"], ["conflicts", "hostile.cor"],
                                  ["sessions", "ledger.db"], ["sources", "ledger.db"],
                                  ["graph", "hostile.cor"], ["explain", "hostile.cor", "k" + HOSTILE]])
def test_json_keeps_every_character_and_prints_none_raw(shop: Shop, hostile: Path,
                                                        args: list[str]) -> None:
    done = run(shop, *args, "--json", cwd=hostile)
    assert done.returncode == 0, done.stderr
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]", done.stdout)
    texts, stack = [], [json.loads(done.stdout)]
    while stack:  # every string of the document, read back
        item = stack.pop()
        if isinstance(item, dict):
            stack.extend([*item.keys(), *item.values()])
        elif isinstance(item, list):
            stack.extend(item)
        elif isinstance(item, str):
            texts.append(item)
    assert any(HOSTILE in text for text in texts)


def test_one_bad_session_row_is_reported_and_the_rest_listed(shop: Shop, tmp_path: Path) -> None:
    """A ledger edited by hand: a snapshot stored as text, an id stored as a BLOB. Before, the
    first made `sessions` fail whole, the second printed "internal error: TypeError"."""
    import sqlite3

    db = tmp_path / "ledger.db"
    with open_ledger(db, clock=ManualClock(TAKEN_AT)) as ledger:
        kb = BeliefBase(ledger=ledger, clock=ManualClock(TAKEN_AT))
        kb.assert_("hq", "Austin", source="tool:registry")
        kb.save_session("a-good")
        kb.save_session("b-text")
        kb.save_session("z-good")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE sessions SET data = ? WHERE session_id = 'b-text'",
                     (json.dumps(kb.to_dict(), default=repr),))
        conn.execute("INSERT INTO sessions (session_id, data, updated_at, version) "
                     "VALUES (?, ?, 0, 1)", (b"c-blob", b"x"))
    conn.close()
    done = run(shop, "sessions", str(db), "--json")
    assert done.returncode == 0, done.stderr
    rows = json.loads(done.stdout)["sessions"]
    assert [(r["id"], r["version"], r["beliefs"], r["error"] is None) for r in rows] == [
        ("a-good", 1, 1, True), ("b-text", None, None, False), ("z-good", 1, 1, True),
        ("b'c-blob'", None, None, False)]
    assert "session 'b-text' holds str, not bytes" in rows[1]["error"]
    assert rows[3]["error"] == "corrupt ledger: a session id stored as bytes, not text"
    text = run(shop, "sessions", str(db))
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert [line.split()[0] for line in lines[1:]] == ["a-good", "b-text", "z-good", "b'c-blob'"]
    assert "ledger.db: corrupt ledger: session 'b-text' holds str" in lines[2]
    assert "unreadable: corrupt ledger: a session id stored as bytes" in lines[4]
    # the good sessions still read
    good = run(shop, "beliefs", "--ledger", str(db), "--session", "z-good", "--json")
    assert json.loads(good.stdout)["beliefs"][0]["value"] == "Austin"
