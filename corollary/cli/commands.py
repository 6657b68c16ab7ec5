"""The commands: each parses nothing, reads through the base's public API (and ``kb.engine`` for
the graph), and prints a table, a proof, a picture or one JSON document (docs/cli.md)."""

from __future__ import annotations

import argparse
import difflib
import json
import math
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from ..facade.base import BeliefBase
from ..facade.journal_entries import decode_entry, history_entries
from ..facade.recall import Recalled, source_mark
from ..foundations._format import format_number
from ..foundations.errors import (
    CorollaryError,
    InvalidInputError,
    MissingProgramError,
    SessionNotFoundError,
    UnknownBeliefError,
    UnknownSourceError,
)
from ..foundations.scope import Scope
from ..foundations.values import plain, shown_value
from ..reasons.registry import DEFINED
from ..reasons.tools import spec_of
from ..render import graph_data, to_dot, to_mermaid
from ..serving.opening import open_to_follow
from ..snapshot.state import read_session
from ..trust.ledger import DEFAULT_PRIOR, TrustLedger
from .opening import (
    Opened,
    check_bindings,
    journal_doc,
    journal_sessions,
    ledger_kind,
    ledger_name,
    open_base,
    open_ledger_to_read,
)
from .output import JSON_VERSION, confidence, emit_json, iso, json_text, say, table, terminal_safe

__all__ = ["beliefs", "conflicts", "convert", "explain", "faded", "graph", "history",
           "parse_value", "recall", "sessions", "sources", "ui"]


def parse_value(text: str) -> Any:
    """``--value``: JSON when it parses as JSON (``42``, ``0.1``, ``true``, ``"7"``), else the
    text itself.

    >>> parse_value("Bob"), parse_value("100"), parse_value('"100"'), parse_value("[1, 2]")
    ('Bob', 100, '100', [1, 2])
    """
    try:
        return json.loads(text)
    except ValueError:
        return text


def _opened(args: argparse.Namespace) -> Any:
    return open_base(args.base, args.ledger, args.session, at=args.at, now=args.now,
                     as_of=args.as_of)


def _world(args: argparse.Namespace, opened: Opened) -> Any:
    """What explain, beliefs and recall read: the base, or with ``--at T`` what holds in the
    world at ``T`` (``kb.at(T)``, on a base whose clock is ``T`` too)."""
    return opened.kb if args.at is None else opened.kb.at(args.at)


def _document(command: str, opened: Opened, **fields: Any) -> dict[str, Any]:
    return {"version": JSON_VERSION, "command": command, "base": opened.where,
            "at": opened.kb.now(), **fields}


def _check_key(kb: BeliefBase, key: str) -> None:
    """An unknown key fails with the keys it may have meant."""
    if key in kb:
        return
    close = difflib.get_close_matches(key, kb.keys(), n=3)
    hint = " (did you mean " + ", ".join(repr(k) for k in sorted(close)) + "?)" if close else ""
    raise UnknownBeliefError(f"no belief about {key!r}{hint}")


def _check_value(kb: BeliefBase, key: str, value: Any) -> None:
    try:
        kb.label(key, value)
    except UnknownBeliefError:
        known = ", ".join(sorted(repr(b.value) for b in kb.engine.values_of(key)))
        raise UnknownBeliefError(
            f"no belief {key} = {value!r} (values held or known: {known})") from None


def explain(args: argparse.Namespace) -> int:
    """``corollary explain BASE KEY [--value V]``: the proof of a belief."""
    with _opened(args) as opened:
        kb = opened.kb
        _check_key(kb, args.key)
        value = None if args.value is None else parse_value(args.value)
        if value is not None:
            _check_value(kb, args.key, value)
        proof = _world(args, opened).explain(args.key, value)
        if args.json:
            # the tree cut into blocks as the text is: a chain thousands of beliefs deep
            # nests four JSON levels per belief, past what JSON readers (and json.dumps) take
            blocks = proof.to_blocks()
            emit_json(_document("explain", opened, key=args.key, value=plain(value),
                                text=str(proof), proof=blocks["proof"],
                                continued=blocks["continued"]))
        else:
            say(str(proof))
    return 0


def beliefs(args: argparse.Namespace) -> int:
    """``corollary beliefs BASE [--min-confidence X] [--scope PREFIX] [--limit N] [--offset M]``:
    the held beliefs (inside the scope), sorted by key, one page of them."""
    with _opened(args) as opened:
        scope = None if args.scope is None else Scope.of(args.scope)
        held = sorted((h for h in _world(args, opened).beliefs(args.min_confidence)
                       if scope is None or scope.contains(h.key)),
                      key=lambda h: (h.key, -h.confidence))
        total = len(held)
        held = held[args.offset:None if args.limit is None else args.offset + args.limit]
        if args.json:
            paged = {} if args.scope is None and args.limit is None and not args.offset else {
                "scope": args.scope, "limit": args.limit, "offset": args.offset, "total": total}
            emit_json(_document("beliefs", opened, min_confidence=args.min_confidence, **paged,
                                beliefs=[{"key": h.key, "value": plain(h.value), "label": "IN",
                                          "confidence": h.confidence} for h in held]))
        else:
            say(table(["KEY", "VALUE", "CONFIDENCE"],
                        [[h.key, repr(h.value), confidence(h.confidence)] for h in held]))
    return 0


def recall(args: argparse.Namespace) -> int:
    """``corollary recall BASE QUERY [-k N] [--min-confidence X]``: the held beliefs that bear
    on a query, most relevant and most trusted first (``kb.recall``)."""
    with _opened(args) as opened:
        found = _world(args, opened).recall(args.query, args.k,
                                            min_confidence=args.min_confidence)
        if args.json:
            emit_json(_document("recall", opened, query=args.query, k=args.k,
                                min_confidence=args.min_confidence,
                                beliefs=[_recalled_json(r) for r in found]))
        elif not found:
            print(f"nothing held matches {args.query!r}")
        else:
            # best first; the scores themselves are in --json (their scale means little to
            # a reader, and moves with any change of the ranking)
            print(table(["KEY", "VALUE", "CONFIDENCE", "WHY"],
                        [[r.key, repr(r.value), confidence(r.confidence) + (
                            " (open conflict)" if r.conflict else ""), ", ".join(r.why) + (
                            f" ({source_mark(r.source_of)})" if r.source_of else "")]
                         for r in found]))
    return 0


def _recalled_json(r: Recalled) -> dict[str, Any]:
    """One recalled belief in ``recall --json``; a document (a transcript remembered facts
    cite) also names the facts it states, each held or not (docs/recall.md)."""
    found = {"key": r.key, "value": plain(r.value), "label": "IN", "confidence": r.confidence,
             "score": r.score, "why": list(r.why), "conflict": r.conflict}
    if r.source_of:
        found["source_of"] = [{"key": f.key, "value": plain(f.value), "held": f.held}
                              for f in r.source_of]
    return found


def conflicts(args: argparse.Namespace) -> int:
    """``corollary conflicts BASE``: keys holding two values no policy settled."""
    with _opened(args) as opened:
        found = sorted(opened.kb.conflicts(), key=lambda c: c.key)
        if args.json:
            emit_json(_document("conflicts", opened, conflicts=[
                {"key": c.key, "candidates": [
                    {"value": plain(x.value), "confidence": x.confidence, "sources": list(x.sources)}
                    for x in c.candidates]} for c in found]))
        elif not found:
            say("no open conflicts")
        else:
            for c in found:
                say(f"{terminal_safe(c.key, keep='')}:")
                rows = [[shown_value(x.value), confidence(x.confidence), ", ".join(x.sources)]
                        for x in c.candidates]
                for line in table(["", "", ""], rows).splitlines()[1:]:
                    say("  " + line)
    return 0


def faded(args: argparse.Namespace) -> int:
    """``corollary faded BASE [--threshold X]``: held premises whose evidence faded."""
    with _opened(args) as opened:
        found = sorted(opened.kb.faded(args.threshold), key=lambda f: (f.key, f.confidence))
        if args.json:
            emit_json(_document("faded", opened, threshold=args.threshold, faded=[
                {"key": f.key, "value": plain(f.value), "confidence": f.confidence,
                 "sources": list(f.sources)} for f in found]))
        else:
            say(table(["KEY", "VALUE", "CONFIDENCE", "SOURCES"],
                        [[f.key, repr(f.value), confidence(f.confidence), ", ".join(f.sources)]
                         for f in found]))
    return 0


_NO_DOT = ("--format svg needs Graphviz's 'dot' on PATH: install Graphviz (apt-get install "
           "graphviz, brew install graphviz, winget install graphviz, or see "
           "https://graphviz.org/download/), or write --format dot and render it elsewhere")


def graph(args: argparse.Namespace) -> int:
    """``corollary graph BASE [KEY] --format dot|mermaid|svg [--output FILE]``."""
    with _opened(args) as opened:
        kb = opened.kb
        if args.key is not None:
            _check_key(kb, args.key)
        if args.json:
            data = graph_data(kb, args.key)
            text = json_text(_document("graph", opened, key=args.key, nodes=data["nodes"],
                                       edges=data["edges"])) + "\n"
        elif args.format == "mermaid":
            text = to_mermaid(kb, args.key)
        elif args.format == "svg":
            text = _svg(to_dot(kb, args.key))
        else:
            text = to_dot(kb, args.key)
    if args.output is None:
        sys.stdout.write(text if args.json else terminal_safe(text))
    else:
        Path(args.output).write_text(text, encoding="utf-8")
    return 0


def _svg(dot_text: str) -> str:
    program = shutil.which("dot")
    if program is None:
        raise MissingProgramError(_NO_DOT)
    done = subprocess.run([program, "-Tsvg"], input=dot_text, capture_output=True, text=True,
                          timeout=300)
    if done.returncode != 0:
        first = (done.stderr.strip().splitlines() or ["no message"])[0]
        raise MissingProgramError(f"Graphviz's dot failed (exit {done.returncode}): {first}")
    return done.stdout


def sessions(args: argparse.Namespace) -> int:
    """``corollary sessions LEDGER``: the sessions saved in a ledger."""
    with open_ledger_to_read(args.ledger) as ledger:
        listed = ledger.store.list_sessions()
        # an id a hand-edited or damaged ledger stores as a BLOB (or a number) is no session
        # id: it is reported in its own row, not compared with the others (that raised
        # TypeError and listed nothing)
        journaled = set(journal_sessions(ledger))
        names = sorted({s for s in listed if isinstance(s, str)} | journaled)
        rows = [_journal_row(ledger, session) if session in journaled
                else _session_row(ledger, session) for session in names]
        rows += [{"id": repr(s), "version": None, "taken_at": None, "beliefs": None,
                  "journal": None,
                  "error": f"corrupt ledger: a session id stored as {type(s).__name__}, not text"}
                 for s in sorted((s for s in listed if not isinstance(s, str)), key=repr)]
    if args.json:
        emit_json({"version": JSON_VERSION, "command": "sessions",
                   "ledger": ledger_name(args.ledger), "sessions": rows})
    elif not rows:
        say(f"no sessions in {ledger_name(args.ledger)}")
    else:
        say(table(["SESSION", "VERSION", "SAVED AT", "BELIEFS"], [
            [r["id"], (f"journal {r['journal']}" if r["journal"] is not None
                       else str(r["version"] or "-")), iso(r["taken_at"]),
             "-" if r["beliefs"] is None else str(r["beliefs"])]
            + ([f"unreadable: {r['error']}"] if r["error"] else []) for r in rows]))
    return 0


def _session_row(ledger: TrustLedger, session: str) -> dict[str, Any]:
    """A session's row; one that cannot be read says why, in ``error``."""
    row: dict[str, Any] = {"id": session, "version": None, "taken_at": None,
                           "beliefs": None, "journal": None, "error": None}
    try:
        doc, version = read_session(ledger.store, session)
        taken_at = doc.get("taken_at") if isinstance(doc, dict) else None
        beliefs_ = doc.get("beliefs") if isinstance(doc, dict) else None
    except (CorollaryError, ValueError, KeyError, TypeError) as exc:
        # one unreadable session (a snapshot stored as text is a StoreCorruptError): say so
        # and go on, or one bad row hid every session
        row["error"] = str(exc)
        return row
    row["version"] = version
    row["taken_at"] = taken_at if isinstance(taken_at, (int, float)) and not isinstance(
        taken_at, bool) else None
    row["beliefs"] = len(beliefs_) if isinstance(beliefs_, list) else None
    return row


def _journal_row(ledger: TrustLedger, session: str) -> dict[str, Any]:
    """A journaled session's row: ``journal`` is its last entry's number, ``taken_at`` that
    entry's time (the newest checkpoint's, before any entry), ``beliefs`` the checkpoint's."""
    row: dict[str, Any] = {"id": session, "version": None, "taken_at": None,
                           "beliefs": None, "journal": None, "error": None}
    store: Any = ledger.store
    try:
        head = store.journal_head(session)
        doc = journal_doc(ledger, session)
        last = store.journal_entries(session, head - 1, head) if head else []
        taken_at = decode_entry(*last[0]).at if last else (
            doc.get("taken_at") if isinstance(doc, dict) else None)
    except (CorollaryError, ValueError, KeyError, TypeError) as exc:
        row["error"] = str(exc)
        return row
    row["journal"] = head
    row["taken_at"] = taken_at if isinstance(taken_at, (int, float)) and not isinstance(
        taken_at, bool) else None
    row["beliefs"] = _journal_beliefs(ledger, session, head, doc)
    return row


def _journal_beliefs(ledger: TrustLedger, session: str, head: int, doc: Any) -> int | None:
    """How many beliefs the journaled session holds now: its checkpoint's count when no entry
    follows it, else the session opened and counted (``None`` when it cannot be opened here,
    e.g. its rules were not ``--import``ed)."""
    store: Any = ledger.store
    found = store.read_checkpoint(session)
    beliefs_ = doc.get("beliefs") if isinstance(doc, dict) else None
    if found is not None and found[0] == head and isinstance(beliefs_, list):
        return len(beliefs_)
    try:
        return len(BeliefBase.open_session(ledger, session))
    except CorollaryError:
        return None


def history(args: argparse.Namespace) -> int:
    """``corollary history --session ID [KEY] [--since T]``: a journaled session's changes
    (read from its journal: no rule or tool needs importing)."""
    kind = None if args.key is None or args.ledger is not None else ledger_kind(args.key)
    if kind is not None:  # `history support.db --session X`: the one name is the ledger
        raise InvalidInputError(f"{args.key} is {kind}, not a key: give it as --ledger "
                                f"{args.key}")
    with open_ledger_to_read(args.ledger) as ledger:
        if journal_doc(ledger, args.session) is None:
            raise SessionNotFoundError(f"no journaled session {args.session!r} in "
                                       f"{ledger_name(args.ledger)} (corollary convert turns a "
                                       "saved session into one)")
        store: Any = ledger.store
        after = 0
        if args.since is not None:
            after = store.journal_seq_at(args.session, math.nextafter(args.since, -math.inf))
        found = []
        for seq, raw in store.journal_entries(args.session, after):
            entry = decode_entry(seq, raw, f"session {args.session!r}")
            if args.key is None or any(s[0] == args.key for s in entry.subjects):
                found.extend(history_entries(entry, args.key))
    if args.json:
        emit_json({"version": JSON_VERSION, "command": "history",
                   "ledger": ledger_name(args.ledger), "session": args.session,
                   "key": args.key, "since": args.since, "changes": [
                       {"seq": h.seq, "time": h.time, "operation": h.operation, "key": h.key,
                        "value": plain(h.value), "source": h.source, "reason": h.reason,
                        "label": h.label, "confidence": h.confidence, "keys": list(h.keys)}
                       for h in found]})
    elif not found:
        say(f"no changes in session {args.session!r}"
            + (f" naming {args.key!r}" if args.key else ""))
    else:
        say(table(["SEQ", "TIME", "OPERATION", "KEY", "VALUE", "SOURCE", "LABEL", "CONFIDENCE",
                   "REASON"], [
            [str(h.seq), iso(h.time), h.operation,
             h.key if h.key is not None else ", ".join(h.keys) or "-",
             "-" if h.value is None else repr(h.value), h.source or "-", h.label or "-",
             "-" if h.confidence is None else confidence(h.confidence), h.reason or "-"]
            for h in found]))
    return 0


def convert(args: argparse.Namespace) -> int:
    """``corollary convert LEDGER SESSION``: the saved session becomes a journaled one."""
    with open_ledger_to_read(args.ledger) as ledger:
        doc, _ = read_session(ledger.store, args.session)
        check_bindings(doc, f"session {args.session!r}")
        BeliefBase.convert_session(ledger, args.session, overwrite=args.overwrite)
    say(f"session {args.session!r} is now journaled in {ledger_name(args.ledger)} "
        "(its saved snapshot is left as it was)")
    return 0


def _source_row(ledger: TrustLedger, source: str, at: float) -> dict[str, Any]:
    try:
        record = ledger.record_of(source, at=at)
    except UnknownSourceError:  # a kind the default policy does not know: the uniform prior
        record = ledger.record_of(source, at=at, prior=DEFAULT_PRIOR)
    kept = ledger.outcomes(source)
    last = None
    if kept:
        o = kept[-1]
        last = {"correct": o.correct, "at": o.at, "reason": o.reason, "key": o.key}
    return {"source": source, "reliability": record.reliability, "prior": record.prior,
            "right": record.correct, "wrong": record.wrong,
            "samples": record.correct + record.wrong, "last_outcome": last}


def _declare_tools(ledger: TrustLedger) -> None:
    """The imported tools' declared trust is their sources' prior, as a base would say."""
    for fn in DEFINED.latest("tool").values():
        spec = spec_of(fn)
        if spec.trust is not None:
            ledger.declare_prior(spec.source, ledger.policy.prior(spec.source, spec.trust))


def sources(args: argparse.Namespace) -> int:
    """``corollary sources LEDGER``: each source's track record (priors from the imported
    tools' declared trust, else the default policy)."""
    with open_ledger_to_read(args.ledger) as ledger:
        _declare_tools(ledger)
        at = ledger.clock() if args.at is None else args.at
        rows = [_source_row(ledger, s, at) for s in sorted(ledger.sources())]
    if args.json:
        emit_json({"version": JSON_VERSION, "command": "sources",
                   "ledger": ledger_name(args.ledger), "at": at, "sources": rows})
    elif not rows:
        say(f"no outcomes in {ledger_name(args.ledger)}")
    else:
        lines = []
        for r in rows:
            last = r["last_outcome"]
            told = "-"
            if last is not None:
                told = f"{'right' if last['correct'] else 'wrong'} at {iso(last['at'])}"
                if last["reason"]:
                    told += f": {last['reason']}"
            lines.append([r["source"], format_number(r["reliability"]), str(r["right"]),
                          str(r["wrong"]), str(r["samples"]), told])
        say(table(["SOURCE", "RELIABILITY", "RIGHT", "WRONG", "SAMPLES", "LAST OUTCOME"], lines))
    return 0


def ui(args: argparse.Namespace) -> int:
    """``corollary ui (BASE | --ledger L --session S)``: serve the browser inspector
    (docs/ui.md). A journaled session is opened live (``BeliefBase.open_session``, at the wall
    clock), so the page follows other processes' changes; a whole-snapshot session is read as
    it was saved."""
    from ..serving.http import UI_TOKEN_ENV, check_exposure, listen, read_token
    from ..ui import serve

    # before the base is read (a big one takes seconds): an exposed server without a token,
    # a busy port
    check_exposure(args.host, read_token(args.token_file, variable=UI_TOKEN_ENV), UI_TOKEN_ENV)
    listening = listen(args.host, args.port)
    options = {"host": args.host, "port": args.port, "token_file": args.token_file,
               "allowed_hosts": args.allowed_hosts, "open_browser": args.open_browser,
               "listening": listening}
    if args.session is not None and args.at is None and args.as_of is None:
        live = _journaled(args.ledger, args.session)
        if live is not None:
            with live.ledger:
                serve(live, **options)
            return 0
    with _opened(args) as opened:
        serve(opened.kb, **options)
    return 0


def _journaled(target: str | None, session: str) -> BeliefBase | None:
    """The journaled session ``session`` opened live at the wall clock, or ``None`` when the
    ledger keeps no journal of that id (a whole-snapshot session is read as saved; nothing is
    created or converted): :func:`corollary.serving.opening.open_to_follow`."""
    ledger = open_ledger_to_read(target)
    try:
        kb = open_to_follow(ledger, session)
    except BaseException:
        ledger.close()
        raise
    if kb is None:
        ledger.close()
    return kb
