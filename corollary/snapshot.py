"""Snapshots: a whole belief base as schema-versioned plain data, in msgpack or JSON.

A snapshot holds the structure (beliefs, premises, justifications, withdrawals), the settings,
the time it was taken and, unless the ledger is shared, the ledger. Labels and confidences are
not stored: they are a function of structure and time, so a restored base recomputes exactly
what the saved one would show at the same time. Rules and tools are saved by name and bound
again on restore; string tables keep repeated sources and origins small.
"""

from __future__ import annotations

import gc
import itertools
import os
import warnings
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from . import __version__
from ._io import atomic_write, decode_bytes, decode_file, encode, format_for
from .clock import Clock
from .conflicts import ConflictPolicy, policy_from_dict
from .errors import SnapshotError
from .graph import Justification, Premise
from .ledger import TrustLedger
from .policy import TrustPolicy
from .rules import REGISTRY as RULES
from .rules import Rule
from .tools import REGISTRY as TOOLS
from .values import canon, plain

if TYPE_CHECKING:  # pragma: no cover
    from .base import BeliefBase

SNAPSHOT_FORMAT = "corollary-snapshot"
SNAPSHOT_VERSION = 1
_KEEP = object()


def base_to_dict(kb: BeliefBase) -> dict[str, Any]:
    """Plain data for ``kb`` (see the module docstring)."""
    engine = kb._engine
    beliefs = sorted(engine.beliefs(), key=lambda b: b.seq)
    index = {id(b): i for i, b in enumerate(beliefs)}
    strings: dict[str, int] = {}

    def s(text: str) -> int:
        i = strings.get(text)
        if i is None:
            i = strings[text] = len(strings)
        return i

    rows, premises, justs = [], [], []
    for i, b in enumerate(beliefs):
        rows.append([b.key, plain(b.value), b.seq, b.blocked])
        for p in b.premises:
            premises.append([i, s(p.source), -1 if p.origin == p.source else s(p.origin), p.at,
                             p.half_life, p.ttl])
    for j in sorted((j for b in beliefs for j in b.justs), key=lambda j: j.seq):
        info = {k: plain(v) for k, v in j.info.items()}
        justs.append([j.kind, j.name, index[id(j.output)], [index[id(x)] for x in j.inputs],
                      j.step, info])
    policy = kb.conflict_policy
    return {
        "format": SNAPSHOT_FORMAT,
        "version": SNAPSHOT_VERSION,
        "corollary": __version__,
        "taken_at": kb.now(),
        "policy": kb.policy.to_dict(),
        "conflicts": policy.to_dict() if policy is not None else None,
        "learn_from_checks": kb.learn_from_checks,
        "shared_ledger": kb.shared_ledger,
        "ledger": None if kb.shared_ledger else kb.ledger.to_dict(),
        "tools": sorted(kb._tools),
        "rules": [r.name for r in kb._rules],
        "fired": {name: sorted(list(c) for c in combos) for name, combos in kb._fired.items()},
        "strings": list(strings),
        "beliefs": rows,
        "premises": premises,
        "justifications": justs,
        "promises": {k: v.to_dict() for k, v in kb.promises.items()},
        "verdicts": [[k, plain(held.value), plain(v)] for (k, v_id), v in
                     sorted(kb._verdicts.items(), key=lambda kv: repr(kv[0]))
                     if (held := engine.find(k, v_id)) is not None],
        "calibrator": kb.calibrator.to_dict() if kb.calibrator is not None else None,
    }


def _bind(names: Iterable[str], given: Iterable[Any], registry: Mapping[str, Any], what: str,
          name_of: Callable[[Any], str], path: object) -> list[Any]:
    table = dict(registry)
    table.update({name_of(x): x for x in given})
    missing = [n for n in names if n not in table]
    if missing:
        raise SnapshotError(
            f"the snapshot uses {what} {missing} that are not defined here; import the module "
            f"that defines them or pass {what}=[...]", path)
    return [table[n] for n in names]


def base_from_dict(data: Mapping[str, Any], ledger: TrustLedger | None = None,
                   clock: Clock | None = None, *, rules: Iterable[Rule] = (),
                   tools: Iterable[Callable[..., Any]] = (), conflicts: Any = _KEEP,
                   path: object = None) -> BeliefBase:
    """Rebuild a base from :func:`base_to_dict` output."""
    # A restore allocates millions of small objects and frees none: the cyclic collector's
    # passes over them would find nothing and cost more than the restore itself.
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _base_from_dict(data, ledger, clock, rules=rules, tools=tools,
                               conflicts=conflicts, path=path)
    finally:
        if enabled:
            gc.enable()


def _base_from_dict(data: Mapping[str, Any], ledger: TrustLedger | None,
                    clock: Clock | None, *, rules: Iterable[Rule], tools: Iterable[Callable[..., Any]],
                    conflicts: Any, path: object) -> BeliefBase:
    from .base import BeliefBase
    from .tools import spec_of

    rules, tools = list(rules), list(tools)
    if not isinstance(data, Mapping) or data.get("format") != SNAPSHOT_FORMAT:
        raise SnapshotError("not a corollary snapshot", path)
    version = data.get("version")
    if not isinstance(version, int) or version < 1:
        raise SnapshotError(f"unreadable snapshot version {version!r}", path)
    if version > SNAPSHOT_VERSION:
        raise SnapshotError(
            f"snapshot schema version {version} is newer than this corollary reads "
            f"({SNAPSHOT_VERSION}); upgrade corollary to load it", path)
    try:
        policy = TrustPolicy.from_dict(data["policy"])
        if ledger is None:
            if data["ledger"] is not None:
                ledger = TrustLedger.from_dict(data["ledger"], clock=clock, path=path)
            elif data.get("shared_ledger"):
                warnings.warn("this snapshot was taken with a shared ledger; pass ledger= to "
                              "attach it (using an empty one)", stacklevel=3)
        if conflicts is _KEEP:
            saved = data["conflicts"]
            if saved is not None and saved.get("policy") == "AskHuman":
                raise SnapshotError("the snapshot settled conflicts with AskHuman; pass "
                                    "conflicts=AskHuman(ask) to load it", path)
            conflicts = policy_from_dict(saved)
        if conflicts is not None and not isinstance(conflicts, ConflictPolicy):
            raise SnapshotError("conflicts must be a conflict policy", path)
        bound_tools = _bind(data["tools"], tools, TOOLS, "tools", lambda t: spec_of(t).name, path)
        bound_rules = _bind(data["rules"], rules, RULES, "rules", lambda r: r.name, path)
        kb = BeliefBase(policy=policy, ledger=ledger, clock=clock, conflicts=conflicts,
                        tools=bound_tools, learn_from_checks=bool(data["learn_from_checks"]))
        engine = kb._engine
        strings = list(data["strings"])
        beliefs = []
        for key, value, seq, blocked in data["beliefs"]:
            b = engine.belief(key, value, canon(value))
            b.seq = int(seq)
            b.blocked = blocked
            beliefs.append(b)
        kb._fired = {name: {tuple(c) for c in combos} for name, combos in data["fired"].items()}
        # sequence numbers are never reused: the fired-rule memo may still name beliefs that
        # were forgotten after it was written, and a new belief must not pass for one of them
        used = itertools.chain((b.seq for b in beliefs),
                               (s for combos in kb._fired.values() for c in combos for s in c))
        engine._seq = itertools.count(max(used, default=0) + 1)
        for i, source, origin, at, half_life, ttl in data["premises"]:
            src = strings[source]
            engine.set_premise(beliefs[i], Premise(src, src if origin == -1 else strings[origin],
                                                   float(at), half_life, ttl))
        for kind, name, out, inputs, step, info in data["justifications"]:
            engine.add_justification(Justification(kind, name, beliefs[out],
                                                   tuple(beliefs[x] for x in inputs), float(step),
                                                   dict(info)))
        for r in bound_rules:
            kb._rules.append(r)
            engine.track_touched = True
            kb._hooks = True
            for key in set(r.inputs):
                kb._rules_by_key.setdefault(key, []).append(r)
            kb._fired.setdefault(r.name, set())
        _restore_guarantees(kb, data)
        # rules and tools passed in that the snapshot did not use join the restored base
        for t in tools:
            if spec_of(t).name not in kb._tools:
                kb.add_tool(t)
        for r in rules:
            if r not in kb._rules:
                kb.add_rule(r)
    except SnapshotError:
        raise
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as exc:
        raise SnapshotError(f"malformed snapshot ({exc.__class__.__name__}: {exc})", path) from exc
    kb._engine.touched.clear()
    return kb


def _restore_guarantees(kb: BeliefBase, data: Mapping[str, Any]) -> None:
    promises = data.get("promises") or {}
    if promises:
        from .guarantee import promise_from_dict

        kb.promises = {k: promise_from_dict(v) for k, v in promises.items()}
    kb._verdicts = {(k, canon(value)): v for k, value, v in data.get("verdicts") or []}
    if data.get("calibrator") is not None:
        from .calibration import Platt

        kb.calibrator = Platt.from_dict(data["calibrator"])


def save(kb: BeliefBase, path: str | os.PathLike[str], *, format: str | None = None) -> None:
    """Write ``kb`` to ``path`` atomically: msgpack unless the suffix or ``format`` says JSON."""
    fmt = format_for(path, format, "msgpack")
    atomic_write(path, encode(base_to_dict(kb), fmt))


def load(path: str | os.PathLike[str], ledger: TrustLedger | None = None,
         clock: Clock | None = None, **options: Any) -> BeliefBase:
    """Read a snapshot; a corrupt, truncated, foreign or newer file raises ``SnapshotError``."""
    return base_from_dict(decode_file(path, "snapshot"), ledger=ledger, clock=clock, path=path,
                          **options)


def save_session(kb: BeliefBase, session_id: str, *, overwrite: bool = False) -> int:
    """Keep ``kb``'s snapshot (msgpack) in its ledger's store under ``session_id``.

    With a durable ledger (SQLite, PostgreSQL, JSON file) the session lives beside the shared
    trust ledger, so any process that opens the ledger can resume it. Saves are versioned:
    unless ``overwrite``, the save succeeds only if the stored session is still the version
    this base loaded or last saved (or, for a base that never did either, if there is no such
    session yet), so two processes that load, change and save one session cannot silently
    lose a change; the loser gets :class:`~corollary.errors.ConcurrentWriteError`. Returns
    the session's new version.
    """
    from .errors import ConcurrentWriteError, InvalidTypeError
    from .stores.base import check_session

    if not isinstance(overwrite, bool):
        raise InvalidTypeError("overwrite must be a bool")
    check_session(session_id)
    store = kb.ledger.store
    if not hasattr(store, "save_session"):
        raise SnapshotError(f"the ledger's store ({type(store).__name__}) keeps no sessions")
    versions = _session_versions(kb)
    expected = None if overwrite else versions.get(session_id, 0)
    data = encode(base_to_dict(kb), "msgpack")
    if not hasattr(store, "read_session"):  # a store without versions: it keeps the last save
        store.save_session(session_id, data)
        return 0
    try:
        version = store.save_session(session_id, data, expected_version=expected)
    except ConcurrentWriteError as exc:
        seen = ("never loaded or saved it here" if expected == 0
                else f"loaded or last saved version {expected}")
        raise ConcurrentWriteError(
            f"session {session_id!r} was saved by another writer since this base "
            f"{seen}; nothing was written. Reload it (BeliefBase.load_session) and reapply "
            f"your changes, or save with overwrite=True to replace it ({exc})",
            getattr(exc, "path", None)) from exc
    versions[session_id] = int(version)
    return int(version)


def load_session(ledger: TrustLedger, session_id: str, clock: Clock | None = None,
                 **options: Any) -> BeliefBase:
    """Resume the base saved under ``session_id`` in ``ledger``'s store, attached to ``ledger``.

    The base remembers the version it loaded, for its next :func:`save_session`.
    """
    store = ledger.store
    if not hasattr(store, "load_session"):
        raise SnapshotError(f"the ledger's store ({type(store).__name__}) keeps no sessions")
    where = f"session {session_id!r}"
    read = getattr(store, "read_session", None)
    if read is not None:
        raw, version = read(session_id)
    else:  # a store without versions: saves from this base will expect none
        raw, version = store.load_session(session_id), 0
    kb = base_from_dict(decode_bytes(raw, "snapshot", where), ledger=ledger, clock=clock,
                        path=where, **options)
    _session_versions(kb)[session_id] = int(version)
    return kb


def _session_versions(kb: BeliefBase) -> dict[str, int]:
    """The session versions ``kb`` loaded or saved, by session id."""
    versions: dict[str, int] = vars(kb).setdefault("_session_versions", {})
    return versions
