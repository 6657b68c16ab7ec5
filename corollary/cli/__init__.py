"""The ``corollary`` command: inspect saved bases and ledgers, draw the graph, serve MCP.

``corollary`` alone (or ``--help``) prints help; ``corollary demo`` runs the demo. Commands that
read a base take a snapshot path or ``--ledger PATH --session ID``, ``--import MODULE`` for the
modules that define its rules and tools, and read it at the time it was saved (``--at SECONDS``,
``--now``). Read commands print one JSON document with ``--json``. Every failure is one line on
stderr and exit status 1 (2 for a usage error), never a traceback. See docs/cli.md.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from .._version import __version__
from ..foundations.errors import CorollaryError
from .times import instant_arg as _instant
from .times import seconds_arg as _seconds

__all__ = ["build_parser", "main"]

#: Set to 1 to let an unexpected error show its traceback (for bug reports).
DEBUG_ENV = "COROLLARY_DEBUG"


class _Parser(argparse.ArgumentParser):
    """argparse, with usage errors on one line."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _unit(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"must be in [0, 1], got {text!r}")
    return value


def _count(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"not a positive whole number: {text!r}")
    return int(text)


def _whole(text: str) -> int:
    if not text.isdigit():
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}")
    return int(text)


def _port(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise argparse.ArgumentTypeError(f"not a TCP port: {text!r}")
    return int(text)


def _imports(parser: argparse.ArgumentParser, dest: str) -> None:
    parser.add_argument("--import", dest=dest, action="append", default=[], metavar="MODULE",
                        help="import a module that defines the base's rules and tools first "
                             "(a module name or a .py path; repeatable)")


def _where(parser: argparse.ArgumentParser, *, session: str, as_of: str) -> None:
    """Where and when a base is read: --ledger/--session/--as-of, --import, --at/--now (the
    read commands and ``ui`` say what --session and --as-of do for them)."""
    where = parser.add_argument_group("a session instead of a snapshot")
    where.add_argument("--ledger", metavar="PATH",
                       help="a ledger (.db, .json, sqlite:///, postgresql://); with BASE, the "
                            "shared ledger the snapshot was taken with")
    where.add_argument("--session", metavar="ID", help=session)
    _imports(parser, "imports")
    when = parser.add_mutually_exclusive_group()
    when.add_argument("--at", type=_instant, metavar="T",
                      help="read the base at time T, ISO 8601 or POSIX seconds: its evidence "
                           "aged to T, and, for explain, beliefs and recall, what holds in the "
                           "world at T (kb.at(T); default: when it was saved)")
    when.add_argument("--now", action="store_true", help="read the base at the wall clock")
    where.add_argument("--as-of", dest="as_of", type=_instant, metavar="T", help=as_of)


def _base_options(parser: argparse.ArgumentParser, key: str | None) -> None:
    """BASE [KEY], --ledger/--session, --import, --at/--now, --json."""
    parser.add_argument("base", nargs="?", metavar="BASE", help="a snapshot file (kb.save)")
    if key == "required":
        parser.add_argument("key", metavar="KEY", help="the belief's key")
    elif key == "query":
        parser.add_argument("query", metavar="QUERY", help="what to look for (words)")
    elif key == "optional":
        parser.add_argument("key", nargs="?", metavar="KEY",
                            help="draw only the cone under this key")
    _where(parser, session="read the base saved under ID in --ledger (default: the default "
                           "ledger)",
           as_of="a journaled session as it stood at journal time T (ISO 8601 or POSIX "
                 "seconds)")
    parser.add_argument("--json", action="store_true", help="print one JSON document")


def _ledger_option(parser: argparse.ArgumentParser, text: str) -> None:
    """``--ledger PATH``, the one spelling every command takes (a positional LEDGER, the older
    spelling of ``sessions``, ``sources`` and ``convert``, is still read)."""
    parser.add_argument("--ledger", metavar="PATH", help=text)


def _read_commands(add: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """The commands that read a base: explain, beliefs, recall, conflicts, faded, graph."""
    show = add("explain", "print the proof of a belief")
    _base_options(show, "required")
    show.add_argument("--value", metavar="V",
                      help="explain this value of KEY (read as JSON when it parses, else as text)")
    held = add("beliefs", "list the held beliefs")
    _base_options(held, None)
    held.add_argument("--min-confidence", type=_unit, metavar="X",
                      help="only beliefs at or above this confidence")
    held.add_argument("--scope", action="append", default=None, metavar="PREFIX",
                      help="only keys equal to PREFIX or starting with PREFIX: (repeatable)")
    held.add_argument("--limit", type=_count, default=None, metavar="N",
                      help="list at most N beliefs (a page, in the listed order)")
    held.add_argument("--offset", type=_whole, default=0, metavar="M",
                      help="skip the first M beliefs of the listed order (default 0)")
    find = add("recall", "list the held beliefs that bear on a query, most relevant first")
    _base_options(find, "query")
    find.add_argument("-k", type=_count, default=10, metavar="N",
                      help="how many beliefs to list (default 10)")
    find.add_argument("--min-confidence", type=_unit, metavar="X",
                      help="only beliefs at or above this confidence (default: the policy's "
                           "min_confidence)")
    _base_options(add("conflicts", "list the open conflicts"), None)
    fade = add("faded", "list held premises whose evidence has faded")
    _base_options(fade, None)
    fade.add_argument("--min-confidence", "--threshold", type=_unit, metavar="X",
                      dest="threshold",  # --threshold: the old spelling, kept working
                      help="below this confidence (default: the policy's min_confidence)")
    draw = add("graph", "draw the justification graph (the whole base or the cone under KEY)")
    _base_options(draw, "optional")
    draw.add_argument("--format", choices=("dot", "mermaid", "svg"), default="dot",
                      help="Graphviz DOT (default), a Mermaid flowchart, or SVG through "
                           "Graphviz's dot")
    draw.add_argument("--output", "-o", metavar="FILE", help="write to FILE instead of stdout")


_DEFAULT_LEDGER = "the ledger (default: $COROLLARY_LEDGER, else the default ledger)"


def _ledger_commands(add: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """The commands that read a ledger: sessions, sources, history, convert."""
    for name, text in (("sessions", "list the sessions saved in a ledger"),
                       ("sources", "list each source's track record in a ledger")):
        cmd = add(name, text)
        cmd.add_argument("positional", nargs="?", metavar="LEDGER", help=argparse.SUPPRESS)
        _ledger_option(cmd, _DEFAULT_LEDGER)
        cmd.add_argument("--json", action="store_true", help="print one JSON document")
        _imports(cmd, "imports")
        if name == "sources":
            cmd.add_argument("--at", type=_instant, metavar="T",
                             help="score the track records at time T, ISO 8601 or POSIX seconds "
                                  "(it matters for a ledger that forgets; default: now)")
    past = add("history", "list a journaled session's changes, oldest first (kb.history)")
    past.add_argument("key", nargs="?", metavar="KEY", help="only the changes naming this key")
    _ledger_option(past, _DEFAULT_LEDGER)
    past.add_argument("--session", metavar="ID", required=True, help="the journaled session")
    past.add_argument("--since", type=_seconds, metavar="T",
                      help="only changes at or after journal time T (POSIX seconds)")
    past.add_argument("--json", action="store_true", help="print one JSON document")
    _imports(past, "imports")
    turn = add("convert", "turn a whole-snapshot session into a journaled one (same id)")
    turn.add_argument("positional", nargs="*", metavar="[LEDGER] SESSION", help=argparse.SUPPRESS)
    _ledger_option(turn, "a SQLite or PostgreSQL ledger (default: the default ledger)")
    turn.add_argument("--session", metavar="ID", help="the saved session to convert")
    turn.add_argument("--overwrite", action="store_true",
                      help="replace a journal the session already has")
    _imports(turn, "imports")


def _http_options(parser: argparse.ArgumentParser, token_env: str) -> None:
    """--token-file and --allowed-host, as ``mcp --transport http`` and ``ui`` take them."""
    parser.add_argument("--token-file", metavar="FILE",
                        help=f"every request must carry the token in FILE (default: "
                             f"${token_env}); required for a --host other than 127.0.0.1, "
                             "localhost or ::1")
    parser.add_argument("--allowed-host", dest="allowed_hosts", action="append", default=[],
                        metavar="NAME", help="a host name requests may name in Host and "
                                             "Origin, besides the loopback names and --host "
                                             "(repeatable; e.g. a reverse proxy's)")


def _serve_commands(add: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """The commands that serve a base: mcp, ui."""
    serve = add("mcp", "serve a base to agent frameworks over MCP (needs corollary[mcp])")
    _ledger_option(serve, "the ledger that keeps the session (created if new; default: "
                          "$COROLLARY_LEDGER, else ~/.local/share/corollary/ledger.db)")
    serve.add_argument("--session", metavar="ID", default="default",
                       help="the session to serve (created if new; default: 'default')")
    serve.add_argument("--transport", choices=("stdio", "http"), default="stdio",
                       help="stdio (default: a client starts the server) or streamable HTTP")
    serve.add_argument("--host", default="127.0.0.1", help="HTTP address (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=8000, help="HTTP port (default 8000)")
    _http_options(serve, "COROLLARY_MCP_TOKEN")
    serve.add_argument("--tokens-file", metavar="FILE",
                       help="serve many users over HTTP: each request's session is the one its "
                            "path (/sessions/ID/mcp) or Corollary-Session header names, if its "
                            "bearer token may open it; FILE maps each token to its sessions "
                            "(JSON; docs/many-users.md)")
    serve.add_argument("--max-sessions", type=int, default=1000, metavar="N",
                       help="with --tokens-file: at most N sessions open at once (default 1000)")
    serve.add_argument("--scope", dest="scope", action="append", default=None,
                       metavar="PREFIX",
                       help="confine the clients to keys equal to PREFIX or starting with "
                            "PREFIX: (repeatable; e.g. --scope customer:42 --scope store)")
    _imports(serve, "imports")
    from . import remembering

    remembering.add_model_options(serve, required=False)  # the remember tool's model
    look = add("ui", "inspect a base in a browser: beliefs, proofs, sources, promises (needs "
                     "corollary[ui])")
    look.add_argument("base", nargs="?", metavar="BASE", help="a snapshot file (kb.save)")
    _where(look, session="show the base saved under ID in --ledger; with a journal, follow "
                         "its changes live",
           as_of="a journaled session as it stood at journal time T (ISO 8601 or POSIX "
                 "seconds; read as it was, not followed live)")
    look.add_argument("--host", default="127.0.0.1", help="address (default 127.0.0.1)")
    look.add_argument("--port", type=_port, default=8765, help="port (default 8765)")
    look.add_argument("--open", dest="open_browser", action="store_true",
                      help="open the page in a web browser")
    _http_options(look, "COROLLARY_UI_TOKEN")


def _remember_commands(add: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """``corollary remember`` (corollary.cli.remembering)."""
    from . import remembering

    remembering.add_remember_command(add)


def _forget_commands(add: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """``corollary forget`` (corollary.cli.forgetting)."""
    from . import forgetting

    forgetting.add_forget_command(add)


def _depend_commands(add: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """``corollary depend`` (corollary.cli.depending)."""
    from . import depending

    depending.add_depend_command(add)


def _end_commands(add: Callable[[str, str], argparse.ArgumentParser]) -> None:
    """``corollary end`` (corollary.cli.ending)."""
    from . import ending

    ending.add_end_command(add)


#: Every command, in the order ``corollary --help`` lists them: each group adds its own.
COMMAND_GROUPS: tuple[Callable[[Callable[[str, str], argparse.ArgumentParser]], None], ...] = (
    _read_commands, _ledger_commands, _serve_commands, _remember_commands, _forget_commands,
    _end_commands, _depend_commands)


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``corollary`` (every command and option)."""
    parser = _Parser(prog="corollary",
                     description="Inspect saved belief bases and trust ledgers, draw the "
                                 "justification graph, serve a base over MCP.",
                     epilog="Run 'corollary COMMAND --help' for a command's options. "
                            "Docs: docs/cli.md, docs/mcp.md, docs/ui.md.")
    parser.add_argument("--version", action="version", version=f"corollary {__version__}")
    _imports(parser, "imports_first")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands",
                                     parser_class=_Parser)

    def add(name: str, text: str) -> argparse.ArgumentParser:
        command = commands.add_parser(name, help=text, description=text)
        command.set_defaults(command_parser=command)  # for usage errors found after parsing
        return command

    add("demo", "run the demo on the embedded defaults (it checks its own numbers)")
    for group in COMMAND_GROUPS:
        group(add)
    return parser


def _check_ledger_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """The older positional spellings (``sessions LEDGER``, ``convert LEDGER SESSION``) read
    as ``--ledger`` and ``--session``; a ledger given both ways is a usage error."""
    given = list(args.positional) if isinstance(args.positional, list) else (
        [] if args.positional is None else [args.positional])
    if args.command == "convert" and given and args.session is None:
        args.session = given.pop()  # the last name is the session
    if len(given) > 1 or (given and args.ledger is not None):
        parser.error("give the ledger once: --ledger PATH")
    if given:
        args.ledger = given[0]
    if args.command == "convert" and args.session is None:
        parser.error("give the session to convert: --session ID")


def _check_base_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Usage errors a parser cannot see: which base, and where."""
    if args.session is not None and args.base is not None and getattr(args, "key", 0) is None:
        args.key, args.base = args.base, None  # `graph --session ID KEY`: the one name is KEY
    if args.session is not None and args.base is not None:
        parser.error("give a snapshot path or --session ID, not both")
    if args.base is None and args.session is None:
        if args.ledger is not None:
            parser.error("--ledger without a snapshot needs --session ID")
        parser.error("give a snapshot path or --ledger PATH --session ID")


def _run(args: argparse.Namespace) -> int:
    from . import commands

    if args.command == "demo":
        from .demo import run_demo

        return run_demo()
    from .opening import import_modules

    imported = import_modules([*args.imports_first, *getattr(args, "imports", [])])
    from . import remembering

    if args.command == "mcp":
        from ..mcp import serve

        serve(ledger=args.ledger, session=args.session, transport=args.transport,
              host=args.host, port=args.port, token_file=args.token_file,
              allowed_hosts=args.allowed_hosts, rules=imported.rules, tools=imported.tools,
              scope=args.scope, model=remembering.model_of(args),
              tokens_file=args.tokens_file, max_sessions=args.max_sessions)
        return 0
    if args.command == "remember":
        return remembering.remember(args)
    if args.command == "forget":
        from .forgetting import forget

        return forget(args)
    if args.command == "end":
        from .ending import end

        return end(args)
    if args.command == "depend":
        from .depending import depend

        return depend(args)
    run: Callable[[argparse.Namespace], int] = getattr(commands, args.command)
    return run(args)


def _fail(message: str) -> int:
    from .output import terminal_safe

    print(f"corollary: {terminal_safe(message, keep='')}", file=sys.stderr)
    return 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``corollary`` with ``argv`` (default: the process's); return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    if hasattr(args, "base"):
        _check_base_args(args.command_parser, args)
    if hasattr(args, "positional"):
        _check_ledger_args(args.command_parser, args)
    try:
        return _run(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # the reader went away (`corollary beliefs ... | head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except CorollaryError as exc:
        return _fail(_one_line(str(exc)))
    except FileNotFoundError as exc:
        return _fail(f"no such file: {exc.filename}" if exc.filename else _one_line(str(exc)))
    except OSError as exc:
        where = f"{exc.filename}: " if exc.filename else ""
        return _fail(_one_line(f"{where}{exc.strerror or exc}"))
    except SystemExit as exc:
        # a user's rule or tool (or a library under a command) called sys.exit: a failure
        # like any other, unless it meant success
        if exc.code is None or exc.code == 0:
            raise
        return _fail(_one_line(f"stopped: SystemExit({exc.code!r})"))
    except Exception as exc:
        if os.environ.get(DEBUG_ENV) == "1":
            raise
        return _fail(_one_line(f"internal error: {type(exc).__name__}: {exc} (please report it; "
                               f"{DEBUG_ENV}=1 shows the traceback)"))
    except BaseException as exc:  # e.g. a user's rule raising its own BaseException subclass
        if os.environ.get(DEBUG_ENV) == "1":
            raise
        return _fail(_one_line(f"stopped: {type(exc).__name__}: {exc}"))


def _one_line(text: str) -> str:
    return " ".join(text.split()) if "\n" in text else text


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
