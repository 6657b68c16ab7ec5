"""``corollary remember (BASE | --ledger L --session S) FILE --source S --model URL``: remember a
text file (or a JSON list of chat messages) into a snapshot or a session, with an
OpenAI-compatible model (docs/remember.md, docs/cli.md).

A snapshot file is read, changed and written back (atomically); a session is opened as
``corollary mcp`` opens it (a journal on SQLite and PostgreSQL: the change is one entry; a
whole-snapshot session on other ledgers: saved again). ``--model-name`` names the model the
server runs (default ``default``; the key is ``$OPENAI_API_KEY`` when set).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..foundations.clock import parse_instant
from ..foundations.errors import InvalidInputError
from ..foundations.values import plain
from .output import confidence, emit_json, say, table

__all__ = ["add_model_options", "add_remember_command", "model_of", "remember",
           "seconds_or_iso"]


def seconds_or_iso(text: str) -> float:
    """``--at``: POSIX seconds, or ISO 8601 (a time with a zone, or a bare date: midnight UTC),
    read by :func:`corollary.foundations.clock.parse_instant`.

    >>> seconds_or_iso("10"), seconds_or_iso("1970-01-01T00:01:00Z")
    (10.0, 60.0)
    """
    try:
        return float(text)
    except ValueError:
        pass
    try:
        seconds = parse_instant(text, "--at")
    except InvalidInputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    assert seconds is not None
    return seconds


def add_model_options(parser: argparse.ArgumentParser, required: bool) -> None:
    """``--model URL`` and ``--model-name NAME`` (``corollary remember`` and ``corollary mcp``)."""
    parser.add_argument("--model", metavar="URL", required=required,
                        help="an OpenAI-compatible server's base URL (vLLM, llama.cpp, Ollama: "
                             "e.g. http://127.0.0.1:8080/v1)"
                             + ("" if required else "; the remember tool extracts with it"))
    parser.add_argument("--model-name", metavar="NAME", default="default",
                        help="the model the server runs (default 'default')")


def model_of(args: argparse.Namespace) -> Any:
    """The model ``--model`` and ``--model-name`` name (``None`` without ``--model``)."""
    if getattr(args, "model", None) is None:
        return None
    from ..models import OpenAIChat

    return OpenAIChat(args.model, args.model_name)


def add_remember_command(add: Any) -> None:
    """Add ``corollary remember`` through the parser's ``add(name, help)``."""
    cmd = add("remember", "remember what a text file (or a JSON list of chat messages) says, "
                          "with an OpenAI-compatible model")
    cmd.add_argument("base", nargs="?", metavar="BASE",
                     help="a snapshot file (kb.save), written back")
    cmd.add_argument("file", metavar="FILE",
                     help="the text ('-' for stdin); a JSON list of {speaker, text, at} is the "
                          "chat form")
    cmd.add_argument("--source", metavar="S",
                     help="who said the text, as 'kind:name' (not with the chat form)")
    cmd.add_argument("--at", type=seconds_or_iso, metavar="T",
                     help="when it was said: POSIX seconds or ISO 8601 with a zone (default: now)")
    cmd.add_argument("--document", metavar="KEY", help="the document belief's key")
    add_model_options(cmd, required=True)
    cmd.add_argument("--ledger", metavar="PATH", help="the ledger keeping --session (or the "
                                                       "snapshot's shared ledger)")
    cmd.add_argument("--session", metavar="ID", help="remember into this session instead of BASE")
    cmd.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                     help="import a module that defines the base's rules and tools first")
    cmd.add_argument("--json", action="store_true", help="print one JSON document")


def _read_input(name: str) -> tuple[str | None, list[Any] | None]:
    text = sys.stdin.read() if name == "-" else Path(name).read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        try:
            messages = json.loads(text)
        except ValueError:
            return text, None
        if isinstance(messages, list) and all(isinstance(m, dict) for m in messages):
            return None, [_message_time(i, m) for i, m in enumerate(messages)]
    return text, None


def _message_time(index: int, message: dict[str, Any]) -> dict[str, Any]:
    """A chat file's message with its ``at`` read as ``--at`` is: POSIX seconds, or ISO 8601
    text (:func:`corollary.foundations.clock.parse_instant`, the one parser of times)."""
    if isinstance(message.get("at"), str):
        return {**message, "at": parse_instant(message["at"], f"message {index}: at")}
    return message


def _refusal(named: dict[str, Any]) -> str:
    """One refusal as the table's footer says it: the reason and the fact it names."""
    fact = f"{named['key'] or '?'} = {json.dumps(plain(named['value']), ensure_ascii=False)}"
    quote = f" ({named['quote']!r})" if named["quote"] is not None else ""
    return f"{named['reason']}: {fact}{quote}"


def remember(args: argparse.Namespace) -> int:
    """Run ``corollary remember``."""
    from ..facade.base import BeliefBase
    from ..trust.ledger import open_ledger
    from .opening import import_modules, open_to_serve

    if (args.base is None) == (args.session is None):
        args.command_parser.error("give a snapshot BASE or --ledger PATH --session ID")
    text, messages = _read_input(args.file)
    if messages is not None and (args.source is not None or args.document is not None):
        raise InvalidInputError("a chat file names each message's speaker: no --source or "
                                "--document")
    if messages is None and args.source is None:
        raise InvalidInputError("--source S: who said the text")
    imported = import_modules(args.imports)
    model = model_of(args)
    ledger = open_ledger(args.ledger) if args.ledger is not None or args.session else None
    try:
        if args.session is not None:
            assert ledger is not None
            kb, how = open_to_serve(ledger, args.session, imported)
        else:
            kb = BeliefBase.load(args.base, ledger=ledger, rules=imported.rules,
                                 tools=imported.tools)
            how = "snapshot file"
        if messages is not None:
            made = kb.remember(messages=messages, model=model)
        else:
            made = kb.remember(text, source=args.source, model=model, at=args.at,
                               document=args.document)
        if args.session is not None and how in ("snapshot", "new snapshot"):
            kb.save_session(args.session)
        elif args.session is None:
            kb.save(args.base)
    finally:
        if ledger is not None:
            ledger.close()
    if args.json:
        emit_json({"command": "remember", "remembered": [
            {"key": r.key, "value": plain(r.value), "quote": r.quote, "label": r.label,
             "confidence": r.confidence, "document": r.document,
             "superseded": [plain(v) for v in r.superseded], "merged_from": r.merged_from}
            for r in made], "refused": [r.named() for r in made.refused],
            "requests": made.requests})
        return 0
    rows = [[r.key, json.dumps(plain(r.value), ensure_ascii=False), r.label,
             confidence(r.confidence), repr(r.quote)] for r in made]
    say(table(["KEY", "VALUE", "LABEL", "CONFIDENCE", "QUOTE"], rows) if rows
        else "nothing remembered")
    if made.refused:
        say(f"refused {len(made.refused)}: "
            + "; ".join(_refusal(r.named()) for r in made.refused))
    return 0
