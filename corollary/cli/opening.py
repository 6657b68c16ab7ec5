"""Opening what a command reads: the user's modules, a base (a snapshot file or a session in a
ledger) at the right time, and ledgers that must already exist.

A base is read at the time its snapshot was taken (the document's ``taken_at``, on a
:class:`~corollary.ManualClock`), so a base saved by a simulation or a test reads as it was saved
rather than hours later at the wall clock; ``--at SECONDS`` or ``--now`` say otherwise.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import math
import os
import re
import sys
import warnings
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import attrs

from ..facade.base import BeliefBase
from ..foundations.clock import Clock, ManualClock, system_clock
from ..foundations.errors import (
    InvalidInputError,
    NameTakenError,
    SessionNotFoundError,
    StoreError,
)
from ..reasons.registry import DEFINED, kind_and_name
from ..reasons.rules import Rule
from ..reasons.tools import ToolSpec
from ..serving.opening import (  # opened one way for every surface; kept importable here
    NOTHING_IMPORTED,
    Imported,
    check_bindings,
    journal_doc,
    open_to_serve,
    saved_policy,
)
from ..snapshot.state import read_file, read_session
from ..storage.base import keeps_journals
from ..storage.targets import default_ledger_path, resolve_target
from ..trust.ledger import TrustLedger, open_ledger
from .output import warn

__all__ = ["Imported", "Opened", "add_change_options", "base_to_change", "check_bindings", "import_modules", "journal_doc",
           "journal_sessions", "ledger_kind", "ledger_name", "open_base", "open_ledger_to_read", "open_to_serve",
           "saved_policy", "NOTHING_IMPORTED"]


@attrs.frozen
class Opened:
    """A base a command reads, and where it came from (the ``base`` field of ``--json``)."""

    kb: BeliefBase
    where: dict[str, Any]


def add_change_options(cmd: Any, session_help: str) -> None:
    """The options every command that changes a base shares: where the base is
    (``--ledger``, ``--session``, with ``session_help`` saying what the command does there),
    ``--import`` and ``--json`` (the base itself is the command's own ``BASE``; it is changed
    through :func:`base_to_change`)."""
    cmd.add_argument("--ledger", metavar="PATH", help="the ledger keeping --session (or the "
                                                       "snapshot's shared ledger)")
    cmd.add_argument("--session", metavar="ID", help=session_help)
    cmd.add_argument("--import", dest="imports", action="append", default=[], metavar="MODULE",
                     help="import a module that defines the base's rules and tools first")
    cmd.add_argument("--json", action="store_true", help="print one JSON document")


def import_modules(names: Sequence[str]) -> Imported:
    """Import the user's modules that define rules and tools (``--import``), by module name
    (``shop.rules``, found from the current directory too) or by file path (``rules.py``).

    Returns what they define: every rule and tool defined while each was imported (with
    those of the modules it imports), and those found in the namespace of a module imported
    before (``sys.modules`` keeps it, so it defines nothing again). Two different ones under
    one name are refused (:class:`~corollary.foundations.errors.NameTakenError`): which one a
    session would be bound to is not known.

    Examples
    --------
    >>> import_modules([])
    Imported(rules=(), tools=())
    """
    if names and os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())  # as `python -m` would
    found: dict[int, Any] = {}  # by identity, in order: a rule or tool named twice counts once
    for name in names:
        before = {id(x) for x in DEFINED.members()}
        try:
            if name.endswith(".py") or os.sep in name or (os.altsep and os.altsep in name):
                module = _import_file(Path(name))
            else:
                module = importlib.import_module(name)
        except ImportError as exc:
            raise InvalidInputError(f"--import {name}: {exc}") from exc
        except KeyboardInterrupt:
            raise
        except BaseException as exc:  # noqa: BLE001 - the user's module failed while it ran,
            # with anything it can raise: SystemExit, GeneratorExit, its own BaseException
            raise InvalidInputError(f"--import {name}: {type(exc).__name__}: {exc}") from exc
        defined = [x for x in DEFINED.members() if id(x) not in before]
        for x in [*defined, *vars(module).values()]:
            if _bindable(x):
                found.setdefault(id(x), x)
    _refuse_shared_names(found.values())
    return Imported(rules=tuple(x for x in found.values() if isinstance(x, Rule)),
                    tools=tuple(x for x in found.values() if not isinstance(x, Rule)))


def _bindable(x: Any) -> bool:
    """Whether ``x`` is a rule or tool a snapshot can name."""
    return isinstance(x, Rule) or isinstance(getattr(x, "__corollary_tool__", None), ToolSpec)


def _refuse_shared_names(members: Iterable[Any]) -> None:
    seen: dict[tuple[str, str], Any] = {}
    for x in members:
        key = kind_and_name(x)
        if seen.setdefault(key, x) is not x:
            raise NameTakenError(f"--import defines two {key[0]}s named {key[1]!r}: give one of "
                                 "them another name (@rule(name=...), @tool(name=...))")


def _import_file(path: Path) -> ModuleType:
    if not path.is_file():
        raise ImportError(f"no such file: {path}")
    name = path.stem
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot import {path} as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def ledger_kind(path: str | os.PathLike[str]) -> str | None:
    """What kind of ledger the file at ``path`` is (``"a SQLite ledger"``, ``"a ledger
    file"``), or ``None`` for anything else (a snapshot, a missing file): a command given a
    ledger where it reads a snapshot or a key says so, rather than "corrupt snapshot".

    Examples
    --------
    >>> ledger_kind("no/such/file") is None
    True
    """
    try:
        with open(path, "rb") as f:
            head = f.read(4096)
    except OSError:
        return None
    if head.startswith(b"SQLite format 3\x00"):
        return "a SQLite ledger"
    if re.match(rb'\s*\{\s*"format"\s*:\s*"corollary-ledger"', head):  # its first field
        return "a ledger file"
    return None


def ledger_name(target: str | None) -> str:
    """How a ledger is named in output: as given, or the default it resolved to."""
    if target is not None:
        return target
    return os.environ.get("COROLLARY_LEDGER", "").strip() or str(default_ledger_path())


def open_ledger_to_read(target: str | None) -> TrustLedger:
    """Open a ledger that must exist already (a read never creates an empty one)."""
    backend, location = resolve_target(target)
    if isinstance(location, Path) and not location.exists():
        raise StoreError(f"no such ledger: {ledger_name(target)}")
    if not backend.durable:
        raise InvalidInputError(f"a {backend.name} ledger holds nothing to read: give a file or "
                                "URL")
    return open_ledger(target)


def _clock(taken_at: Any, at: float | None, now: bool) -> Clock:
    if now:
        return system_clock
    if at is not None:
        return ManualClock(at)
    if isinstance(taken_at, bool) or not isinstance(taken_at, (int, float)) \
            or not math.isfinite(taken_at):
        return ManualClock(0)  # the document is malformed: reading it will say so
    return ManualClock(taken_at)


def journal_sessions(ledger: TrustLedger) -> list[str]:
    """The ledger's journaled sessions (none if it keeps no journals)."""
    if not keeps_journals(ledger.store):
        return []
    return list(ledger.store.journal_sessions())  # type: ignore[attr-defined]


@contextmanager
def open_base(snapshot: str | None, ledger: str | None, session: str | None,
              at: float | None = None, now: bool = False,
              as_of: float | None = None) -> Iterator[Opened]:
    """Open the base a command reads: ``snapshot`` (a file; with ``ledger``, attached to it) or
    ``session`` in ``ledger`` (default: the default ledger), at the time it was saved unless
    ``at`` or ``now`` say otherwise. The ledger is closed when the block ends.

    A journaled session (what ``corollary mcp`` keeps) is read as its journal stands now, every
    writer's entries applied, at the wall clock (or ``at``); ``as_of`` reads it as it stood at
    that journal time instead (:meth:`~corollary.BeliefBase.as_of`).
    """
    opened = None
    try:
        if session is not None:
            opened = open_ledger_to_read(ledger)
            name = ledger_name(ledger)
            doc = journal_doc(opened, session)
            if doc is not None:
                check_bindings(doc, f"session {session!r}")
                clock = ManualClock(at) if at is not None else system_clock
                # read with the session's own policy, as corollary mcp serves it
                kb: BeliefBase = BeliefBase.open_session(opened, session, clock=clock,
                                                         conflict_policy=saved_policy(doc))
                where: dict[str, Any] = {"ledger": name, "session": session,
                                         "journal_seq": kb.journal_seq}  # type: ignore[attr-defined]
                if as_of is not None:
                    kb = kb.as_of(as_of)  # type: ignore[attr-defined]
                    where.update(as_of=as_of, journal_seq=kb.journal_seq)  # type: ignore[attr-defined]
                yield Opened(kb, where)
                return
            if as_of is not None:
                raise InvalidInputError(f"--as-of reads a journaled session; session {session!r} "
                                        "is a whole snapshot (corollary convert makes it one)")
            try:
                doc, version = read_session(opened.store, session)
            except SessionNotFoundError:
                raise SessionNotFoundError(
                    f"no session {session!r} in {name}{_sessions_hint(opened, session)}") from None
            where = {"ledger": name, "session": session, "session_version": version}
            source = f"session {session!r}"
        else:
            assert snapshot is not None
            kind = ledger_kind(snapshot)
            if kind is not None:
                raise InvalidInputError(f"{snapshot} is {kind}, not a snapshot: read a session "
                                        f"in it with --ledger {snapshot} --session ID")
            if as_of is not None:
                raise InvalidInputError("--as-of reads a journaled session: give --ledger PATH "
                                        "--session ID")
            doc = read_file(snapshot)
            where = {"snapshot": snapshot}
            source = snapshot
            if ledger is not None:
                opened = open_ledger_to_read(ledger)
                where["ledger"] = ledger_name(ledger)
        check_bindings(doc, source)
        clock = _clock(doc.get("taken_at") if isinstance(doc, Mapping) else None, at, now)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            kb = BeliefBase.from_dict(doc, ledger=opened, clock=clock, path=source)
        for w in caught:
            text = str(w.message)
            if "shared ledger" in text:
                text = ("the snapshot was taken with a shared ledger: pass --ledger PATH to read "
                        "its sources' track records (reading it with priors only)")
            warn(text)
        yield Opened(kb, where)
    finally:
        if opened is not None:
            opened.close()


def _sessions_hint(ledger: TrustLedger, session: str) -> str:
    sessions = sorted(set(ledger.store.list_sessions()) | set(journal_sessions(ledger)))
    if not sessions:
        return " (it holds no sessions)"
    close = difflib.get_close_matches(session, sessions, n=3)
    if close:
        return " (did you mean " + ", ".join(repr(s) for s in close) + "?)"
    shown = ", ".join(repr(s) for s in sorted(sessions)[:10])
    return f" (sessions: {shown}{', ...' if len(sessions) > 10 else ''})"


@contextmanager
def base_to_change(base: str | None, ledger_path: str | None, session: str | None,
                   imported: Imported) -> Iterator[BeliefBase]:
    """The base a changing command (``forget``; ``remember`` opens the same way) changes: the
    session ``session`` in the ledger, opened as ``mcp`` opens it (:func:`open_to_serve`), or
    the snapshot file ``base``; written back once the block ends without an error (a journal
    keeps its changes by itself), the ledger closed either way."""
    ledger = open_ledger(ledger_path) if ledger_path is not None or session else None
    try:
        if session is not None:
            assert ledger is not None
            kb, how = open_to_serve(ledger, session, imported)
        else:
            assert base is not None
            kb = BeliefBase.load(base, ledger=ledger, rules=imported.rules, tools=imported.tools)
            how = "snapshot file"
        yield kb
        if session is not None and how in ("snapshot", "new snapshot"):
            kb.save_session(session)
        elif base is not None:
            kb.save(base)
    finally:
        if ledger is not None:
            ledger.close()
