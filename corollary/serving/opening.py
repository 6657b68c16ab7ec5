"""Opening the base a surface serves: the session's journal where the store keeps journals
(converting a whole-snapshot session of that id once), else a whole snapshot saved after each
change; the ``--import``ed rules and tools bound first. ``corollary mcp``, ``corollary ui``
and ``corollary remember`` open what they serve here, then serve it through
:class:`~corollary.serving.ServedBase` (docs/extending.md, "a surface").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import attrs

from ..changes import AddRule, AddTool, apply
from ..facade.base import BeliefBase
from ..foundations._io import decode_bytes
from ..foundations.clock import Clock
from ..foundations.errors import SnapshotError
from ..reasons.registry import DEFINED, kind_and_name
from ..reasons.rules import Rule
from ..reasons.tools import spec_of
from ..snapshot.state import read_session
from ..storage.base import keeps_journals
from ..tms.conflicts import ConflictPolicy, PreferNewer, policy_from_dict
from ..trust.ledger import TrustLedger

__all__ = ["NOTHING_IMPORTED", "Imported", "check_bindings", "journal_doc", "open_to_follow",
           "open_to_serve", "saved_policy"]


@attrs.frozen
class Imported:
    """The rules and tools the ``--import`` modules define, in the order they were defined."""

    rules: tuple[Rule, ...] = ()
    tools: tuple[Callable[..., Any], ...] = ()


#: No module imported: nothing to add.
NOTHING_IMPORTED = Imported()


def check_bindings(doc: Any, where: object, imported: Imported = NOTHING_IMPORTED) -> None:
    """Refuse a snapshot whose rules or tools neither ``imported`` nor the process defines,
    saying what to ``--import`` (rules are named ``module.function`` unless given a name)."""
    if not isinstance(doc, Mapping):
        return
    given = {kind_and_name(x) for x in (*imported.rules, *imported.tools)}
    missing: dict[str, list[str]] = {}
    for field, kind in (("rules", "rule"), ("tools", "tool")):
        names = doc.get(field)
        if isinstance(names, list):
            absent = [n for n in names if isinstance(n, str) and (kind, n) not in given
                      and DEFINED.find(kind, n) is None]
            if absent:
                missing[field] = absent
    if not missing:
        return
    needs = " and ".join(f"{field} {names}" for field, names in missing.items())
    modules = sorted({n.rpartition(".")[0] for n in missing.get("rules", [])
                      if "." in n and not n.startswith("__main__.")})
    hint = (" ".join(f"--import {m}" for m in modules) + " (the module that defines them)"
            if modules else "--import MODULE with the module that defines them")
    raise SnapshotError(f"the snapshot needs {needs} that no imported module defines: "
                        f"pass {hint}", where)


def _keeps_journals(ledger: TrustLedger) -> bool:
    """Whether the ledger's store keeps session journals: it has the journal methods, and
    they do not refuse (the JSON-file store's raise :class:`JournalUnsupportedError`)."""
    return keeps_journals(ledger.store)


def journal_doc(ledger: TrustLedger, session: str) -> Any | None:
    """The newest checkpoint document of ``session``'s journal; ``None`` when the ledger keeps
    no journals or the session has none (docs/journal.md)."""
    store = ledger.store
    if not _keeps_journals(ledger):
        return None
    found = store.read_checkpoint(session)  # type: ignore[attr-defined]
    if found is None:
        return None
    return decode_bytes(found[1], "snapshot", f"session {session!r}")


def saved_policy(doc: Any) -> ConflictPolicy | None:
    """The conflict policy a snapshot or checkpoint document records (``None`` for none). A
    journal's policy is the configuration of the process that opens it (docs/journal.md): the
    CLI and ``corollary mcp`` open a session with the one it was saved with, so that it reads
    the same whoever reads it."""
    return policy_from_dict(doc.get("conflicts") if isinstance(doc, Mapping) else None)


def open_to_serve(ledger: TrustLedger, session: str, imported: Imported = NOTHING_IMPORTED,
                  *, clock: Clock | None = None) -> tuple[BeliefBase, str]:
    """The base ``corollary mcp`` (and ``corollary remember``) serves, and how it was found.

    A ledger that keeps journals (SQLite, PostgreSQL, memory) serves the session's journal
    (:meth:`~corollary.BeliefBase.open_session`): ``"journal"`` if it had one, ``"converted"``
    if a whole-snapshot session of that id was turned into one first (the snapshot is left as
    it was), ``"new"`` if the session is new. Any other ledger (a JSON file) serves a whole
    snapshot saved after every change: ``"snapshot"`` (an existing one) or ``"new snapshot"``
    (saved at once, so ``corollary sessions`` lists it from the start).

    A new session prefers newer values (``PreferNewer()``: a value whose validity starts later
    supersedes an older one, docs/agent.md); an existing one keeps the conflict policy it was
    saved with (a journal's: the one its newest checkpoint records), so a session reads the
    same whoever serves it.

    The ``--import``ed rules and tools are part of it either way: a new session starts with
    them, and an existing one that lacks some (kept by a server started without ``--import``,
    or before the module gained a rule) gets them, so what the server serves is what a restart
    would serve. On a journal each one added is a change of its own (one entry, which other
    servers of the session apply too); a snapshot is saved again once they are all added. A
    rule added fires at once over what is held; one that fails refuses the start (its entry,
    or the snapshot, is not written). Rules or tools the session needs that no imported
    module defines are refused first, naming what to ``--import``; the ones the session names
    are bound to the imported ones, whatever else of those names the process defines.

    Examples
    --------
    >>> from corollary import open_ledger, rule
    >>> @rule(output="double", inputs={"x": "x"}, name="doc.double")
    ... def double(x):
    ...     return 2 * x
    >>> with open_ledger(":memory:") as ledger:
    ...     kb, how = open_to_serve(ledger, "s", Imported(rules=(double,)))
    ...     kb.assert_("x", 21, source="tool:t")
    ...     how, kb.value("double"), [r.name for r in kb.rules]
    ('new', 42, ['doc.double'])
    """
    where = f"session {session!r}"
    capable = _keeps_journals(ledger)
    snapshots = ledger.store.list_sessions()
    if not capable:
        if session not in snapshots:
            kb = BeliefBase(ledger=ledger, clock=clock, rules=imported.rules,
                            tools=imported.tools, conflict_policy=PreferNewer())
            kb.save_session(session)  # the session exists from the start (corollary sessions)
            return kb, "new snapshot"
        doc, _ = read_session(ledger.store, session)
        check_bindings(doc, where, imported)
        kb = BeliefBase.load_session(ledger, session, clock=clock, **_named_in(doc, imported))
        if _add_imported(kb, imported):
            kb.save_session(session)
        return kb, "snapshot"
    doc = journal_doc(ledger, session)
    how = "journal"
    if doc is not None:
        check_bindings(doc, where, imported)
    elif session in snapshots:
        doc, _ = read_session(ledger.store, session)
        check_bindings(doc, where, imported)
        BeliefBase.convert_session(ledger, session, **_named_in(doc, imported))
        how = "converted"
    else:
        how = "new"
    policy = PreferNewer() if doc is None else saved_policy(doc)
    kb = BeliefBase.open_session(ledger, session, clock=clock, conflict_policy=policy,
                                 **_named_in(doc, imported))
    _add_imported(kb, imported)  # each one a journal entry of its own
    return kb, how


def _named_in(doc: Any, imported: Imported) -> dict[str, Any]:
    """``rules=``/``tools=`` for loading ``doc``: the imported members it names (passing one
    it does not name would add it without its own entry; :func:`_add_imported` adds those)."""
    if not isinstance(doc, Mapping):
        return {}
    rules, tools = doc.get("rules"), doc.get("tools")
    named_rules = set(rules) if isinstance(rules, list) else set()
    named_tools = set(tools) if isinstance(tools, list) else set()
    return {"rules": [r for r in imported.rules if r.name in named_rules],
            "tools": [t for t in imported.tools if spec_of(t).name in named_tools]}


def open_to_follow(ledger: TrustLedger, session: str, *, clock: Clock | None = None
                   ) -> BeliefBase | None:
    """The journaled session ``session`` opened live (at the wall clock unless ``clock``),
    read with the policy it was saved with; ``None`` when the ledger keeps no journal of that
    id (nothing is created or converted): what ``corollary ui`` follows.

    Examples
    --------
    >>> from corollary import open_ledger
    >>> with open_ledger(":memory:") as ledger:
    ...     open_to_follow(ledger, "none") is None
    True
    """
    doc = journal_doc(ledger, session)
    if doc is None:
        return None
    check_bindings(doc, f"session {session!r}")
    return BeliefBase.open_session(ledger, session, clock=clock,
                                   conflict_policy=saved_policy(doc))


def _add_imported(kb: BeliefBase, imported: Imported) -> bool:
    """Add the imported tools and rules ``kb`` lacks (tools first: rules may call them);
    return whether any was added."""
    tools = [t for t in imported.tools if spec_of(t).name not in kb.tools]
    held = {r.name for r in kb.rules}
    rules = [r for r in imported.rules if r.name not in held]
    for t in tools:
        apply(kb, AddTool(t))
    for r in rules:
        apply(kb, AddRule(r))
    return bool(tools or rules)
