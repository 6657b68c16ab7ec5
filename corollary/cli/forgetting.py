"""``corollary forget (BASE | --ledger L --session S) [KEY] [--value V | --source S | --scope P]``:
erase a key (a document), a source's word or a scope, as ``kb.forget`` does (docs/model.md,
"Forgetting"; docs/cli.md)."""

from __future__ import annotations

import argparse
from typing import Any

from .opening import add_change_options
from .output import emit_json, say

__all__ = ["add_forget_command", "forget"]


def add_forget_command(add: Any) -> None:
    """Add ``corollary forget`` through the parser's ``add(name, help)``."""
    cmd = add("forget", "erase a key (a document), everything a source said, or every key in a "
                        "scope, with what rested only on it (kb.forget)")
    cmd.add_argument("base", nargs="?", metavar="BASE",
                     help="a snapshot file (kb.save), written back")
    cmd.add_argument("key", nargs="?", metavar="KEY", help="the key (or document) to forget")
    cmd.add_argument("--value", metavar="V", help="only this value of KEY (JSON when it parses, "
                                                  "else text)")
    cmd.add_argument("--source", metavar="S", help="forget everything this source said")
    cmd.add_argument("--scope", metavar="PREFIX", help="forget every key in this scope")
    cmd.add_argument("--by", metavar="WHO", help="who asked (kept in the journal)")
    cmd.add_argument("--reason", metavar="TEXT", help="why (kept in the journal: not what)")
    add_change_options(cmd, "forget in this session instead of BASE")


def forget(args: argparse.Namespace) -> int:
    """Run ``corollary forget``."""
    from ..changes import Forget, apply
    from ..facade.forgetting import NO_VALUE
    from .commands import parse_value
    from .opening import base_to_change, import_modules

    if args.session is not None and args.key is None:
        args.key, args.base = args.base, None  # `forget --session ID KEY`: the one name is KEY
    if (args.base is None) == (args.session is None):
        args.command_parser.error("give a snapshot BASE or --ledger PATH --session ID")
    imported = import_modules(args.imports)
    change = Forget(args.key, NO_VALUE if args.value is None else parse_value(args.value),
                    source=args.source, scope=args.scope, reason=args.reason, by=args.by)
    with base_to_change(args.base, args.ledger, args.session, imported) as kb:
        done = apply(kb, change)
    counts = {"beliefs": done.beliefs, "reasons": done.reasons, "kept": done.kept,
              "entries": done.entries, "checkpoints": done.checkpoints,
              "outcomes": done.outcomes}
    if args.json:
        emit_json({"command": "forget", "forgotten": counts})
    else:
        say(f"forgot {done.beliefs} belief(s) and {done.reasons} reason(s); {done.kept} kept on "
            f"other support; rewrote {done.entries} journal entries and {done.checkpoints} "
            f"checkpoints; blanked {done.outcomes} outcomes")
    return 0
