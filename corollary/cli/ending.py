"""``corollary end (BASE | --ledger L --session S) KEY [--value V] --source S [--at T]``: say that
a fact no longer holds, as ``kb.end`` does (docs/model.md, "Ending a fact"; docs/cli.md)."""

from __future__ import annotations

import argparse
from typing import Any

from .opening import add_change_options
from .output import emit_json, say
from .times import instant_arg

__all__ = ["add_end_command", "end"]


def add_end_command(add: Any) -> None:
    """Add ``corollary end`` through the parser's ``add(name, help)``."""
    cmd = add("end", "say that a fact no longer holds from a time on, on a source's word (kb.end)")
    cmd.add_argument("base", nargs="?", metavar="BASE",
                     help="a snapshot file (kb.save), written back")
    cmd.add_argument("key", nargs="?", metavar="KEY", help="the key that no longer holds")
    cmd.add_argument("--value", metavar="V", help="only this value of KEY (JSON when it parses, "
                                                  "else text)")
    cmd.add_argument("--source", metavar="S", required=True, help="whose word the end is")
    cmd.add_argument("--at", metavar="T", type=instant_arg, help="when it stopped holding: POSIX seconds or an "
                                               "ISO 8601 time with a zone (default: now)")
    cmd.add_argument("--reason", metavar="TEXT", help="why (shown in the proof)")
    add_change_options(cmd, "end in this session instead of BASE")


def end(args: argparse.Namespace) -> int:
    """Run ``corollary end``."""
    from ..changes import End, apply
    from .commands import parse_value
    from .opening import base_to_change, import_modules

    if args.session is not None and args.key is None:
        args.key, args.base = args.base, None  # `end --session ID KEY`: the one name is KEY
    if (args.base is None) == (args.session is None):
        args.command_parser.error("give a snapshot BASE or --ledger PATH --session ID")
    if args.key is None:
        args.command_parser.error("give the KEY that no longer holds")
    imported = import_modules(args.imports)
    value = None if args.value is None else parse_value(args.value)
    at = args.at
    with base_to_change(args.base, args.ledger, args.session, imported) as kb:
        apply(kb, End(args.key, value, source=args.source, at=at, reason=args.reason))
        proof = kb.explain(args.key)
    if args.json:
        emit_json({"command": "end", "key": args.key, "value": value, "source": args.source,
                   "at": at, "reason": args.reason, "proof": str(proof)})
    else:
        say(str(proof))
    return 0


