"""``corollary depend (BASE | --ledger L --session S) KEY VALUE (--on K ... | --if-changes K)``:
declare a dependency or a replacement, as ``kb.depend`` / ``kb.replace_when`` do (docs/model.md,
"Dependencies and declared replacements"; docs/cli.md)."""

from __future__ import annotations

import argparse
from typing import Any

from .opening import add_change_options
from .output import emit_json, say

__all__ = ["add_depend_command", "depend"]


def add_depend_command(add: Any) -> None:
    """Add ``corollary depend`` through the parser's ``add(name, help)``."""
    cmd = add("depend", "declare that KEY = VALUE rests on what other keys hold now (--on), or "
                        "that KEY becomes VALUE once another key changes (--if-changes)")
    cmd.add_argument("names", nargs="+", metavar="[BASE] KEY VALUE",
                     help="a snapshot file (kb.save, written back; none with --session), the "
                          "key and its value (JSON when it parses, else text)")
    cmd.add_argument("--on", action="append", default=[], metavar="KEY",
                     help="a key it rests on, as it holds now (repeat for more)")
    cmd.add_argument("--if-changes", dest="if_changes", metavar="KEY",
                     help="the key whose change from what it holds now makes VALUE KEY's")
    cmd.add_argument("--source", required=True, metavar="S", help="who says so, 'kind:name'")
    cmd.add_argument("--document", metavar="KEY", help="the held document that said it")
    cmd.add_argument("--quote", metavar="TEXT", help="its words in --document")
    add_change_options(cmd, "change this session instead of BASE")


def depend(args: argparse.Namespace) -> int:
    """Run ``corollary depend``."""
    from ..changes import apply, dependency
    from .commands import parse_value
    from .opening import base_to_change, import_modules

    names = list(args.names)
    base = names.pop(0) if len(names) == 3 else None
    if len(names) != 2 or (base is None) == (args.session is None):
        args.command_parser.error("give BASE KEY VALUE, or --ledger PATH --session ID KEY VALUE")
    if (args.document is None) != (args.quote is None):
        args.command_parser.error("--document and --quote go together")
    key, value = names[0], parse_value(names[1])
    citation = None if args.document is None else (args.document, args.quote)
    imported = import_modules(args.imports)
    with base_to_change(base, args.ledger, args.session, imported) as kb:
        believed = apply(kb, dependency(key, value, source=args.source, on=args.on or None,
                                        if_changes=args.if_changes, citation=citation))
        label = kb.label(key, believed)
    if args.json:
        emit_json({"command": "depend", "key": key, "value": believed, "label": label,
                   "on": args.on, "if_changes": args.if_changes})
    else:
        how = (f"once {args.if_changes} changes" if args.if_changes is not None
               else "resting on " + ", ".join(args.on))
        say(f"{key} = {believed!r} [{label}] {how}")
    return 0
