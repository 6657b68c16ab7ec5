"""Snapshots: a whole belief base as schema-versioned plain data, in msgpack or JSON.

A snapshot holds the structure (beliefs, premises, justifications, withdrawals), the settings,
the time it was taken and, unless the ledger is shared, the ledger. Labels and confidences are
not stored: they are a function of structure and time, so a restored base recomputes exactly
what the saved one would show at the same time. Rules and tools are saved by name and bound
again on restore; string tables keep repeated sources and origins small.

The base hands its state over explicitly (:class:`BaseState`); :func:`state_to_dict` writes it.
Restoring is two steps. :func:`read_snapshot` checks every field of the document against what
:func:`state_to_dict` writes (types, ranges, finiteness, references between tables, known kinds
and sources, values as :func:`~corollary.foundations.values.canon` accepts them) and builds nothing; a
document that fails raises :class:`~corollary.foundations.errors.SnapshotError` naming the path and the
field. Only then does the base build itself from the checked :class:`SnapshotPlan`
(:meth:`corollary.BeliefBase.from_dict`). Files are sealed with a checksum
(:func:`corollary.foundations._io.encode`) from schema version 2 on. Schema version 3 adds ``calls``: the
tool call remembered with each premise that ``kb.call`` made (:mod:`corollary.reasons.calls`), as rows
``[belief, source, arguments]``.
"""

from __future__ import annotations

import math
import os
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import compress, islice
from operator import attrgetter, eq, itemgetter, le, lt
from typing import TYPE_CHECKING, Any

import attrs

from .._version import __version__
from ..foundations._collector import collector_paused
from ..foundations._fields import MAX_INT, Fields, plain_key, plain_unit, plain_value
from ..foundations._io import (
    SNAPSHOT_FORMAT,
    SNAPSHOT_VERSION,
    atomic_write,
    decode_bytes,
    decode_file,
    encode,
    format_for,
)
from ..foundations.errors import (
    ConcurrentWriteError,
    CorollaryError,
    InvalidTypeError,
    NameTakenError,
    SessionJournaledError,
    SnapshotError,
    StratificationError,
)
from ..foundations.values import INT_MAX, INT_MIN, canon, plain
from ..reasons.calls import CallMemory
from ..reasons.registry import DEFINED
from ..reasons.rules import Rule
from ..reasons.tools import spec_of
from ..storage.base import SessionStore, check_session
from ..storage.memory import MemoryStore
from ..tms import ANY, KINDS, Belief, Engine, Item, Justification, Nogood, StepKind, strata
from ..tms.conflicts import ConflictPolicy, read_policy
from ..tms.records import record_earlier, record_stated_span
from ..trust.ledger import TrustLedger
from ..trust.outcomes import LedgerDocument, validate_ledger_document
from ..trust.policy import TrustPolicy, policy_fields

if TYPE_CHECKING:  # pragma: no cover
    from ..promises.book import PromiseBook

__all__ = ["SNAPSHOT_FORMAT", "SNAPSHOT_VERSION", "BaseState", "SnapshotPlan", "read_file",
           "read_session", "read_snapshot", "save_session", "state_to_dict", "write_file"]

_KEEP = object()
_MISSING = object()
_KEYS = ("format", "version", "corollary", "taken_at", "policy", "conflicts", "learn_from_checks",
         "shared_ledger", "ledger", "tools", "rules", "fired", "strings", "beliefs", "premises",
         "justifications", "promises", "verdicts", "calibrator", "calls", "nogoods")
#: Fields that files of schema versions before the one given may lack: version 1 files written
#: before promises existed, and files written before calls were remembered and exceptions and
#: nogoods existed (version 3).
_SINCE = {"promises": 2, "verdicts": 2, "calibrator": 2, "calls": 3, "nogoods": 3}
#: Fields a file of any version may lack, written only when not empty (so a base that never
#: removed a rule writes what it wrote before): ``removed_rules``, the names of the rules the
#: base's changes removed and did not add again, which ``rules=`` given to a load do not join.
_WHEN_ANY = ("removed_rules",)
_PROMISE_KEYS = ("threshold", "method", "max_error", "max_risk", "delta", "min_support", "n",
                 "answer", "group", "report", "fingerprint")


@attrs.frozen
class BaseState:
    """Everything a snapshot keeps of a base, handed over by the base itself
    (:meth:`corollary.BeliefBase.to_dict`): the settings, the TMS (read through its public read
    API), the rule memo, the ledger unless it is shared, and the promises."""

    taken_at: float
    policy: TrustPolicy
    conflicts: ConflictPolicy | None
    learn_from_checks: bool
    shared_ledger: bool
    ledger: TrustLedger
    tools: list[str]
    rules: list[str]
    fired: Mapping[str, set[tuple[int, ...]]]
    engine: Engine
    promises: PromiseBook
    calls: CallMemory = attrs.field(factory=CallMemory)
    #: the names of the rules the base's changes removed and did not add again
    removed_rules: list[str] = attrs.field(factory=list)


def state_to_dict(state: BaseState) -> dict[str, Any]:
    """Plain data for a base's state (see the module docstring)."""
    with collector_paused():  # like a restore, it builds millions of containers, frees none
        return _state_to_dict(state)


_SCALARS = frozenset({str, int, float, bool, type(None)})


def _state_to_dict(state: BaseState) -> dict[str, Any]:
    engine = state.engine
    beliefs = sorted(engine.beliefs(), key=attrgetter("seq"))
    seqs = [b.seq for b in beliefs]
    strings: dict[str, int] = {}
    number = strings.setdefault
    rows, premises, justs = [], [], []
    for i, b in enumerate(beliefs):
        value = b.value
        rows.append([b.key, value if type(value) in _SCALARS else plain(value), b.seq, b.withdrawn])
        for p in b.premises:
            source = number(p.source, len(strings))
            premises.append([i, source, -1 if p.origin == p.source else number(p.origin, len(strings)),
                             p.at, p.half_life, p.ttl])
            if p.stated_valid_time:  # a valid time: certainty, valid_from, valid_until
                premises[-1].extend((p.certainty, *record_stated_span(p.record)))
                earlier = record_earlier(p.record)
                if earlier:  # other intervals of the same value: a tenth column
                    premises[-1].append([list(span) for span in earlier])  # type: ignore[arg-type]
            elif p.certainty < 1.0:  # a certainty the source stated: a seventh column
                premises[-1].append(p.certainty)

    def row(b: Any) -> int:
        # a belief's row is its rank by number, found by bisection (few beliefs are in steps)
        i = bisect_left(seqs, b.seq)
        assert i < len(seqs) and beliefs[i] is b, "a step reads a belief the base lost"
        return i

    for j in sorted((j for b in beliefs for j in b.justs), key=attrgetter("seq")):
        info = {k: plain(v) for k, v in j.info.items()}
        justs.append([j.kind.name, j.name, row(j.output), [row(x) for x in j.inputs], j.step, info,
                      [_item_to_data(item) for item in j.unless]])
    policy = state.conflicts
    promises = state.promises
    return {
        "format": SNAPSHOT_FORMAT,
        "version": SNAPSHOT_VERSION,
        "corollary": __version__,
        "taken_at": state.taken_at,
        "policy": state.policy.to_dict(),
        "conflicts": policy.to_dict() if policy is not None else None,
        "learn_from_checks": state.learn_from_checks,
        "shared_ledger": state.shared_ledger,
        "ledger": None if state.shared_ledger else state.ledger.to_dict(),
        "tools": sorted(state.tools),
        "rules": list(state.rules),
        "fired": {name: sorted(list(c) for c in combos) for name, combos in state.fired.items()},
        "strings": list(strings),
        "beliefs": rows,
        "premises": premises,
        "justifications": justs,
        "promises": promises.saved(),
        "verdicts": [[k, plain(held.value), plain(v)] for (k, v_id), v in
                     sorted(promises.verdicts.items(), key=lambda kv: repr(kv[0]))
                     if (held := engine.find(k, v_id)) is not None],
        "calibrator": None if promises.calibrator is None else promises.calibrator.to_dict(),
        "nogoods": [[ng.name, [_item_to_data(item) for item in ng.items]]
                    for ng in engine.nogoods.values()],
        "calls": sorted([row(b), strings[source], plain(arguments)]
                        for b, source, arguments in state.calls.entries(engine)),
        **({"removed_rules": sorted(state.removed_rules)} if state.removed_rules else {}),
    }


# -- reading: every field checked, nothing built -------------------------------------------------
@attrs.define(slots=True)
class SnapshotPlan:
    """A checked snapshot (:func:`read_snapshot`): everything a base is built from."""

    policy: TrustPolicy
    conflicts: ConflictPolicy | None
    learn_from_checks: bool
    ledger: TrustLedger | None  # the ledger passed in, if any
    own_ledger: LedgerDocument | None  # the ledger the snapshot carried, when none was passed
    missing_ledger: bool  # taken with a shared ledger, and none was passed
    tools: list[Callable[..., Any]]
    rules: list[Rule]
    extra_tools: list[Callable[..., Any]]
    extra_rules: list[Rule]
    fired: dict[str, set[tuple[int, ...]]]
    next_seq: int
    strings: list[str]
    beliefs: Sequence[Any]
    vids: list[Any]
    premises: Sequence[Any]
    justifications: Sequence[Any]
    kinds: list[StepKind]
    unless: list[tuple[Item, ...]]
    nogoods: list[tuple[str, tuple[Item, ...]]]
    where: object
    promises: dict[str, Any]
    bindings: dict[str, Any]
    verdicts: dict[tuple[str, Any], Any]
    calibrator: Any
    calls: list[tuple[int, str, dict[str, Any]]] = attrs.field(factory=list)
    #: the names of the rules the snapshot's base removed and did not add again: ``rules=``
    #: given to its load do not join it (they are not among ``extra_rules``)
    removed_rules: list[str] = attrs.field(factory=list)


def read_snapshot(data: Any, path: object = None, *, ledger: TrustLedger | None = None,
                  rules: Iterable[Rule] = (),
                  tools: Iterable[Callable[..., Any]] = (), conflicts: Any = _KEEP,
                  functions: Iterable[Callable[..., Any]] = ()) -> SnapshotPlan:
    """Check a snapshot document field by field and return what to build the base from.

    Nothing is built or changed (no registry, no ledger passed in). A document that is not
    exactly what :func:`state_to_dict` writes raises ``SnapshotError`` naming ``path`` and the
    field: wrong types; NaN or infinite times; step confidences and priors outside [0, 1];
    unknown justification kinds, conflict policies and source kinds; indices between the
    tables out of range; repeated beliefs, premises, justifications and rule firings;
    malformed ledgers, promises, verdicts and calibrators; unknown or missing fields; a
    promise whose signal or group function is not among ``functions`` (by qualified name).
    """
    if ledger is not None and not isinstance(ledger, TrustLedger):
        raise InvalidTypeError("ledger must be a TrustLedger")
    given_rules, given_tools = list(rules), list(tools)
    for r in given_rules:
        if not isinstance(r, Rule):
            raise InvalidTypeError("rules must be @rule functions")
    data, version = _versioned(data, path)
    f = Fields(path, "snapshot")
    optional = [k for k, since in _SINCE.items() if version < since]
    f.mapping(data, "the snapshot", [k for k in _KEYS if k not in optional],
              [*optional, *_WHEN_ANY])
    f.text(data["corollary"], "corollary", empty=True)
    f.number(data["taken_at"], "taken_at")
    policy = policy_fields(f, data["policy"], "policy")
    saved_conflicts = read_policy(data["conflicts"], f)
    learn = f.boolean(data["learn_from_checks"], "learn_from_checks")
    shared = f.boolean(data["shared_ledger"], "shared_ledger")
    if shared != (data["ledger"] is None):
        f.fail("ledger", "must be present exactly when the ledger was not shared")
    own = None
    if data["ledger"] is not None:
        doc = validate_ledger_document(data["ledger"], path, prefix="ledger.", what="snapshot")
        if ledger is None:
            own = doc
    if conflicts is _KEEP:
        if saved_conflicts is None and data["conflicts"] is not None:  # it keeps what is not saved
            tag = data["conflicts"]["policy"]
            raise SnapshotError(f"the snapshot settled conflicts with {tag}, which keeps what a "
                                f"snapshot does not save; pass conflict_policy={tag}(...) to load it",
                                path)
        conflicts = saved_conflicts
    if conflicts is not None and not isinstance(conflicts, ConflictPolicy):
        raise SnapshotError("conflict_policy must be a conflict policy", path)

    bound_tools, extra_tools = _bind_tools(f, data["tools"], given_tools, policy)
    rule_names = _names(f, data["rules"], "rules")
    bound_rules = _bind(f, rule_names, given_rules, "rule", lambda r: r.name)
    removed = _names(f, data.get("removed_rules", []), "removed_rules")
    if set(removed) & set(rule_names):
        f.fail("removed_rules", "names a rule the snapshot uses")
    extra_rules = [r for r in given_rules if r.name not in {*rule_names, *removed}]
    fired, top = _fired(f, data["fired"], set(rule_names))
    strings = _names(f, data["strings"], "strings")
    beliefs = f.items(data["beliefs"], "beliefs")
    vids, last = _beliefs(f, beliefs)
    premises = f.items(data["premises"], "premises")
    _premises(f, premises, len(beliefs), strings, policy)
    justs = f.items(data["justifications"], "justifications")
    kinds, unless = _justifications(f, justs, len(beliefs), set(rule_names), policy,
                                    7 if version >= 3 else 6)
    nogoods = _nogoods(f, data.get("nogoods", []))
    promises, bindings = _promises(f, data.get("promises", {}), _functions(functions))
    verdicts = _verdicts(f, data.get("verdicts", []), beliefs, vids)
    calibrator = _calibrator(f, data.get("calibrator"))
    calls = _calls(f, data.get("calls", []), len(beliefs), premises, strings)

    return SnapshotPlan(
        policy=policy, conflicts=conflicts, learn_from_checks=learn, ledger=ledger,
        own_ledger=own, missing_ledger=ledger is None and shared,
        tools=bound_tools, rules=bound_rules, extra_tools=extra_tools, extra_rules=extra_rules,
        fired=fired, next_seq=max(last, top) + 1, strings=strings, beliefs=beliefs, vids=vids,
        premises=premises, justifications=justs, kinds=kinds, unless=unless, nogoods=nogoods,
        where=path, promises=promises, bindings=bindings, verdicts=verdicts,
        calibrator=calibrator, calls=calls, removed_rules=removed)


def _versioned(data: Any, path: object) -> tuple[dict[str, Any], int]:
    """A copy of the snapshot document, and its schema version (one this corollary reads)."""
    if not isinstance(data, Mapping) or data.get("format") != SNAPSHOT_FORMAT:
        raise SnapshotError("not a corollary snapshot", path)
    data = dict(data)
    version = data.get("version")
    if type(version) is not int or version < 1:
        raise SnapshotError(f"unreadable snapshot version {version!r}", path)
    if version > SNAPSHOT_VERSION:
        raise SnapshotError(
            f"snapshot schema version {version} is newer than this corollary reads "
            f"({SNAPSHOT_VERSION}); upgrade corollary to load it", path)
    return data, version


def _names(f: Fields, value: Any, field: str) -> list[str]:
    """A list of distinct non-empty strings."""
    names: list[str] = []
    for i, name in enumerate(f.items(value, field)):
        names.append(f.text(name, f"{field}[{i}]"))
    if len(set(names)) != len(names):
        repeated = next(i for i, name in enumerate(names) if name in names[:i])
        f.fail(f"{field}[{repeated}]", f"repeats {names[repeated]!r}")
    return names


def _bind(f: Fields, names: list[str], given: list[Any], kind: str,
          name_of: Callable[[Any], str]) -> list[Any]:
    """The members ``names`` name: the ones given, else the one the process defines
    (docs/extending.md, "how rules and tools are found")."""
    what = f"{kind}s"
    table: dict[str, Any] = {}
    for x in given:  # given twice under one name: which one is meant is not known
        if table.setdefault(name_of(x), x) is not x and table[name_of(x)] != x:
            raise NameTakenError(f"{what}= holds two different members named {name_of(x)!r}")
    for n in names:
        if n not in table:
            found = DEFINED.find(kind, n)  # a name two live members share is refused
            if found is not None:
                table[n] = found
    missing = [n for n in names if n not in table]
    if missing:
        raise SnapshotError(
            f"the snapshot uses {what} {missing} that are not defined here; import the module "
            f"that defines them or pass {what}=[...]", f.where)
    return [table[n] for n in names]


def _bind_tools(f: Fields, value: Any, given: list[Any], policy: TrustPolicy
                ) -> tuple[list[Any], list[Any]]:
    names = _names(f, value, "tools")
    bound = _bind(f, names, given, "tool", lambda t: spec_of(t).name)
    extra = [t for t in given if spec_of(t).name not in set(names)]
    for t in [*bound, *extra]:
        spec = spec_of(t)
        try:  # a tool's declared trust must be a level this policy knows
            policy.prior(spec.source, spec.trust)
        except CorollaryError as exc:
            f.fail("tools", f"cannot be bound under the snapshot's policy: {exc}")
    return bound, extra


def _fired(f: Fields, value: Any, rules: set[str]) -> tuple[dict[str, set[tuple[int, ...]]], int]:
    """The fired-rule memo (rule name -> combinations of input belief numbers) and its largest
    belief number."""
    memo: dict[str, set[tuple[int, ...]]] = {}
    top = 0
    for name, combos in f.table(value, "fired").items():
        if name not in rules:
            f.fail(f"fired.{name}", "names a rule the snapshot does not use")
        seen: set[tuple[int, ...]] = set()
        previous: tuple[int, ...] = ()
        for i, combo in enumerate(f.items(combos, f"fired.{name}")):
            field = f"fired.{name}[{i}]"
            for k, seq in enumerate(f.items(combo, field)):
                if type(seq) is not int or not 1 <= seq <= MAX_INT:
                    f.integer(seq, f"{field}[{k}]", 1, MAX_INT)
                top = seq if seq > top else top
            ident = tuple(combo)
            if seen and not previous < ident:  # written sorted: this also refuses repeats
                f.fail(field, f"must come after {list(previous)} (combinations are sorted)")
            seen.add(ident)
            previous = ident
        memo[name] = seen
    missing = sorted(rules - set(memo))
    if missing:  # a base keeps an entry for each of its rules, fired or not
        f.fail("fired", f"lacks the rules {missing}")
    return memo, top


def _beliefs(f: Fields, rows: Any) -> tuple[list[Any], int]:
    """Each belief's value identity (:func:`canon`), and the last belief number."""
    found = _beliefs_at_once(rows)
    return found if found is not None else _beliefs_one_by_one(f, rows)


def _beliefs_at_once(rows: Any) -> tuple[list[Any], int] | None:
    """The common case, checked a column at a time in C loops (a million-belief snapshot spends
    its load time here); ``None`` at anything unusual, and :func:`_beliefs_one_by_one` then
    decides and names the field. Accepts exactly what that accepts, or less."""
    n = len(rows)
    if not n:
        return [], 0
    if set(map(type, rows)) != {list} or set(map(len, rows)) != {4}:
        return None
    keys, values, seqs, withdrawn = (list(map(itemgetter(c), rows)) for c in range(4))
    if (set(map(type, keys)) != {str} or not all(map(str.isascii, keys))
            or any(map(str.isspace, keys)) or "" in keys):
        return None
    if (set(map(type, seqs)) != {int} or seqs[0] < 1 or seqs[-1] > MAX_INT
            or not all(map(lt, seqs, islice(seqs, 1, None)))):
        return None
    if not set(map(type, withdrawn)) <= {type(None), str} or "" in withdrawn:
        return None
    if not all(map(str.isascii, filter(None, withdrawn))):
        return None
    kinds = set(map(type, values))
    if kinds == {str} and all(map(str.isascii, values)):
        vids = values  # an ASCII string is its own identity
    elif kinds == {int} and INT_MIN <= min(values) and max(values) <= INT_MAX:
        vids = values  # so is an integer that fits in 64 bits
    else:
        try:
            vids = list(map(canon, values))
        except CorollaryError:
            return None
    if len(set(keys)) != n and _repeated(keys, vids) is not None:
        return None
    return vids, seqs[-1]


def _repeated(keys: list[str], vids: list[Any]) -> int | None:
    """The position of the first belief that repeats an earlier one (same key and value)."""
    seen: dict[str, Any] = {}
    for i, (key, vid) in enumerate(zip(keys, vids, strict=True)):
        held = seen.get(key, _MISSING)
        if held is _MISSING:
            seen[key] = vid
        elif type(held) is set:
            if vid in held:
                return i
            held.add(vid)
        elif held == vid:
            return i
        else:
            seen[key] = {held, vid}
    return None


def _beliefs_one_by_one(f: Fields, rows: Any) -> tuple[list[Any], int]:
    vids: list[Any] = []
    keys: list[str] = []
    last = 0
    for i, row in enumerate(rows):
        key, value, seq, withdrawn = f.items(row, f"beliefs[{i}]", 4)
        keys.append(f.key(key, f"beliefs[{i}][0] (key)"))
        vids.append(f.value(value, f"beliefs[{i}][1] (value)"))
        f.integer(seq, f"beliefs[{i}][2] (number)", last + 1, MAX_INT)
        last = seq
        if withdrawn is not None:
            f.text(withdrawn, f"beliefs[{i}][3] (withdrawn)")
    repeated = _repeated(keys, vids)
    if repeated is not None:
        f.fail(f"beliefs[{repeated}]",
               f"repeats the belief {keys[repeated]} = {rows[repeated][1]!r:.80}")
    return vids, last


def _premises(f: Fields, rows: Any, beliefs: int, strings: list[str], policy: TrustPolicy) -> None:
    if not _premises_at_once(f, rows, beliefs, strings, policy):
        _premises_one_by_one(f, rows, beliefs, strings, policy)


def _premises_at_once(f: Fields, rows: Any, beliefs: int, strings: list[str],
                      policy: TrustPolicy) -> bool:
    """The common case a column at a time, as :func:`_beliefs_at_once`: ``False`` at anything
    unusual (the row-by-row check then decides and names the field)."""
    n = len(rows)
    if not n:
        return True
    if set(map(type, rows)) != {list} or set(map(len, rows)) != {6}:
        return False
    idx, src, at = (list(map(itemgetter(c), rows)) for c in (0, 1, 3))
    m = len(strings)
    if (set(map(type, idx)) != {int} or idx[0] < 0 or idx[-1] >= beliefs
            or not all(map(le, idx, islice(idx, 1, None)))):
        return False
    if set(map(type, src)) != {int} or min(src) < 0 or max(src) >= m:
        return False
    if set(map(type, at)) != {float} or not all(map(math.isfinite, at)):
        return False
    # origins, half-lives and ttls take few distinct values (per source, per tool): check those
    longest = 0.0
    try:
        tails = set(map(itemgetter(2, 4, 5), rows))
    except TypeError:  # a list or a map where a number belongs
        return False
    for origin, half_life, ttl in tails:
        if type(origin) is not int or not -1 <= origin < m:
            return False
        for seconds in (half_life, ttl):
            if seconds is not None and (type(seconds) is not float or not 0.0 < seconds < math.inf):
                return False
        if ttl is not None and ttl > longest:
            longest = ttl
    if longest and not math.isfinite(max(at) + longest):  # every expiry is a time
        return False
    # beliefs come in order, so a repeated (belief, source) sits in a run of one belief
    run: set[int] = set()
    for k in compress(range(1, n), map(eq, idx, islice(idx, 1, None))):
        if idx[k - 1] != idx[k - 2] or k == 1:
            run = {src[k - 1]}
        if src[k] in run:
            return False
        run.add(src[k])
    for s in set(src):
        f.source(strings[s], f"strings[{s}] (a premise's source)", policy)
    return True


def _premises_one_by_one(f: Fields, rows: Any, beliefs: int, strings: list[str],
                         policy: TrustPolicy) -> None:
    width = len(strings) + 1
    sources: set[int] = set()
    seen: set[int] = set()
    last = 0
    for j, row in enumerate(rows):
        field = f"premises[{j}]"
        if type(row) is list and len(row) == 10:  # other intervals of the same value
            spans = f.items(row[9], f"{field}[9] (earlier intervals)")
            for k, span in enumerate(spans):
                start, end = f.items(span, f"{field}[9][{k}]", 2)
                start = f.number(start, f"{field}[9][{k}][0] (valid from)")
                if end is not None and not f.number(end, f"{field}[9][{k}][1]") > start:
                    f.fail(f"{field}[9][{k}][1] (valid until)", "must come after its start")
            row = row[:9]
        if type(row) is list and len(row) == 9:  # with a valid time (and the certainty)
            f.number(row[6], f"{field}[6] (certainty)", above=0.0)
            if not row[6] <= 1.0:
                f.fail(f"{field}[6] (certainty)", f"must be at most 1, not {row[6]!r}")
            start = None if row[7] is None else f.number(row[7], f"{field}[7] (valid from)")
            end = None if row[8] is None else f.number(row[8], f"{field}[8] (valid until)")
            if start is None and end is None:
                f.fail(field, "has valid-time columns with neither a start nor an end")
            if start is not None and end is not None and not end > start:
                f.fail(f"{field}[8] (valid until)", f"must come after {start!r}, not {end!r}")
            row = row[:6]
        elif type(row) is list and len(row) == 7:  # with the certainty its source stated
            f.number(row[6], f"{field}[6] (certainty)", above=0.0)
            if not row[6] < 1.0:
                f.fail(f"{field}[6] (certainty)", f"must be below 1 (1 is not written), not "
                                                  f"{row[6]!r}")
            row = row[:6]
        i, src, origin, at, half_life, ttl = f.items(row, field, 6)
        f.integer(i, f"{field}[0] (belief)", last, beliefs - 1)  # written belief by belief
        last = i
        f.integer(src, f"{field}[1] (source)", 0, len(strings) - 1)
        if src not in sources:
            f.source(strings[src], f"strings[{src}] (the source of {field})", policy)
            sources.add(src)
        f.integer(origin, f"{field}[2] (origin)", -1, len(strings) - 1)
        at = f.number(at, f"{field}[3] (asserted at)")
        f.duration(half_life, f"{field}[4] (half-life)")
        if ttl is not None and not math.isfinite(at + f.number(ttl, f"{field}[5] (ttl)",
                                                               above=0.0)):
            f.fail(f"{field}[5] (ttl)", "expires beyond any time a clock can tell")
        slot = i * width + src
        if slot in seen:
            f.fail(field, f"repeats the premise of {strings[src]!r} on beliefs[{i}]")
        seen.add(slot)


def _justifications(f: Fields, rows: Any, beliefs: int, rules: set[str], policy: TrustPolicy,
                    width: int) -> tuple[list[StepKind], list[tuple[Item, ...]]]:
    """Check the justification rows; return each row's kind and exceptions.

    A checkpoint holds a reason a row (10,000 declared replacements are 10,000 rows), so the
    common, valid row is checked inline and the field checker (which names the field in its
    error) is called only for what the inline test does not accept: it accepts exactly what the
    checker accepts or fails it with the same message. A source is checked once, not once a row.
    """
    seen: set[tuple[Any, ...]] = set()
    kinds = []
    unless: list[tuple[Item, ...]] = []
    sources: set[str] = set()
    last = beliefs - 1
    for j, row in enumerate(rows):
        field = f"justifications[{j}]"
        if type(row) is not list or len(row) != width:
            f.items(row, field, width)
        name_of_kind, name, out, inputs, step, info, *rest = row
        items = _items(f, rest[0], f"{field}[6] (unless)") if rest else ()
        kind = KINDS.get(name_of_kind) if type(name_of_kind) is str else None
        if kind is None:
            f.fail(f"{field}[0] (kind)", f"must be one of {sorted(KINDS)}, not {name_of_kind!r:.40}")
        if kind.by_rule:
            if type(name) is not str or name not in rules:
                f.fail(f"{field}[1] (rule)", f"names a rule the snapshot does not use: {name!r:.80}")
        elif type(name) is not str or name not in sources:
            sources.add(f.source(name, f"{field}[1] (model)", policy))
        if type(out) is not int or not 0 <= out <= last:
            f.integer(out, f"{field}[2] (output)", 0, last)
        if type(inputs) is not list:
            f.items(inputs, f"{field}[3] (inputs)")
        for k, x in enumerate(inputs):
            if type(x) is not int or not 0 <= x <= last:
                f.integer(x, f"{field}[3][{k}] (input)", 0, last)
        if not plain_unit(step):
            f.unit(step, f"{field}[4] (step confidence)")
        kind.check_info(f, name, info, f"{field}[5]")
        ident = (name_of_kind, name, out, tuple(inputs), tuple((k, v) for k, _, v in items))
        if ident in seen:
            f.fail(field, "repeats an earlier justification")
        seen.add(ident)
        kinds.append(kind)
        unless.append(items)
    return kinds, unless


def _item_to_data(item: Item) -> Any:
    """An exception or nogood item as plain data: its key, or ``[key, value]``."""
    key, value, vid = item
    return key if vid is ANY else [key, plain(value)]


def _items(f: Fields, value: Any, field: str, least: int = 0) -> tuple[Item, ...]:
    """Items saved by :func:`_item_to_data`: distinct, each a key or a ``[key, value]``."""
    items: list[Item] = []
    for i, entry in enumerate(f.items(value, field)):
        if isinstance(entry, str):
            item: Item = (f.key(entry, f"{field}[{i}]"), ANY, ANY)
        elif (type(entry) is list and len(entry) == 2 and plain_key(entry[0])
              and plain_value(entry[1])):  # a declared replacement's: checked inline
            item = (entry[0], entry[1], entry[1])
        else:
            key, held = f.items(entry, f"{field}[{i}]", 2)
            item = (f.key(key, f"{field}[{i}][0]"), held, f.value(held, f"{field}[{i}][1]"))
        if any((item[0], item[2]) == (k, v) for k, _, v in items):
            f.fail(f"{field}[{i}]", "repeats an item")
        items.append(item)
    if len(items) < least:
        f.fail(field, f"needs at least {least} items")
    return tuple(items)


def _nogoods(f: Fields, value: Any) -> list[tuple[str, tuple[Item, ...]]]:
    nogoods: list[tuple[str, tuple[Item, ...]]] = []
    names: set[str] = set()
    for i, row in enumerate(f.items(value, "nogoods")):
        name, items = f.items(row, f"nogoods[{i}]", 2)
        f.text(name, f"nogoods[{i}][0] (name)")
        if name in names:
            f.fail(f"nogoods[{i}]", f"repeats the nogood name {name!r}")
        names.add(name)
        nogoods.append((name, _items(f, items, f"nogoods[{i}][1]", least=2)))
    return nogoods


def _scalar(f: Fields, value: Any, field: str) -> Any:
    """A group label or one-sided answer: plain data that can key a dict."""
    if value is not None and type(value) not in (bool, int, float, str):
        f.fail(field, f"must be a string, number, bool or null, not {type(value).__name__}")
    return f.value(value, field)


def _promise(f: Fields, value: Any, field: str) -> None:
    from ..promises.guarantee import METHODS, PROCEDURES

    d = f.mapping(value, field, _PROMISE_KEYS, ("binding", "procedure"))
    f.number(d["threshold"], f"{field}.threshold", finite=False)
    if d["method"] not in METHODS:
        f.fail(f"{field}.method", f"must be one of {list(METHODS)}, not {d['method']!r:.40}")
    if d.get("procedure") is not None and (d["method"] != "ltt" or d["procedure"] not in PROCEDURES):
        f.fail(f"{field}.procedure", f"must be null or, for ltt, one of {list(PROCEDURES)}, "
                                     f"not {d['procedure']!r:.40}")
    for k in ("max_error", "max_risk", "delta"):
        f.maybe_unit(d[k], f"{field}.{k}")
    f.integer(d["min_support"], f"{field}.min_support")
    f.integer(d["n"], f"{field}.n")
    f.value(d["answer"], f"{field}.answer")
    _scalar(f, d["group"], f"{field}.group")
    report = f.data(d["report"], f"{field}.report")
    if not isinstance(report, dict):
        f.fail(f"{field}.report", "must be a map")
    f.text(report.get("promise", ""), f"{field}.report.promise", empty=True)
    f.maybe_text(report.get("why"), f"{field}.report.why", empty=True)
    for i, w in enumerate(f.items(report.get("warnings", []), f"{field}.report.warnings")):
        f.text(w, f"{field}.report.warnings[{i}]", empty=True)
    if report.get("cross_fitted") is not None:
        f.integer(report["cross_fitted"], f"{field}.report.cross_fitted", 2, MAX_INT)
    f.text(d["fingerprint"], f"{field}.fingerprint")


def _functions(functions: Iterable[Callable[..., Any]]) -> dict[str, Callable[..., Any]]:
    """The functions passed to re-bind promises, by qualified name."""
    table = {}
    for fn in functions:
        if not callable(fn):
            raise InvalidTypeError(f"functions must be callables, not {type(fn).__name__}")
        table[f"{getattr(fn, '__module__', '?')}.{getattr(fn, '__qualname__', '?')}"] = fn
    return table


def _binding(f: Fields, value: Any, field: str, functions: Mapping[str, Callable[..., Any]]
             ) -> Any:
    from ..promises.bindings import Binding

    d = f.mapping(value, field, ("signal", "groups", "judge", "calibrator"))
    missing = []
    for part in ("signal", "groups"):
        if d[part] is None and part == "groups":
            continue
        r = f.mapping(d[part], f"{field}.{part}", ("kind", "name"))
        f.text(r["kind"], f"{field}.{part}.kind")
        f.text(r["name"], f"{field}.{part}.name")
        if r["kind"] == "function" and r["name"] not in functions:
            missing.append(r["name"])
    f.maybe_text(d["judge"], f"{field}.judge")
    _calibrator(f, d["calibrator"], f"{field}.calibrator")
    if missing:  # like rules: functions are saved by name and bound again on load
        short = ", ".join(name.rsplit(".", 1)[-1] for name in missing)
        raise SnapshotError(
            f"the snapshot's {field.removesuffix('.binding')} reads through the function(s) "
            f"{missing} that are not passed; pass functions=[{short}] to load it", f.where)
    try:
        return Binding.from_dict(d, functions)
    except CorollaryError as exc:
        f.fail(field, f"cannot be bound: {exc}")


def _promises(f: Fields, value: Any, functions: Mapping[str, Callable[..., Any]]
              ) -> tuple[dict[str, Any], dict[str, Any]]:
    table = f.table(value, "promises")
    if not table:
        return {}, {}  # no promise: leave the statistics (scipy.stats) unimported
    from ..promises.guarantee import promise_from_dict

    promises, bindings = {}, {}
    for name, d in table.items():
        field = f"promises.{name}"
        f.text(name, f"{field} (name)")
        if isinstance(d, dict) and "promises" in d:
            f.mapping(d, field, ("by", "promises"), ("binding",))
            f.text(d["by"], f"{field}.by")
            groups: set[Any] = set()
            for i, p in enumerate(f.items(d["promises"], f"{field}.promises")):
                _promise(f, p, f"{field}.promises[{i}]")
                group = f.value(p["group"], f"{field}.promises[{i}].group")
                if group in groups:
                    f.fail(f"{field}.promises[{i}].group", f"repeats the group {p['group']!r}")
                groups.add(group)
        else:
            _promise(f, d, field)
        if "binding" in d:
            bindings[name] = _binding(f, d["binding"], f"{field}.binding", functions)
        try:
            promises[name] = promise_from_dict({k: v for k, v in d.items() if k != "binding"})
        except (CorollaryError, TypeError, ValueError) as exc:
            f.fail(field, f"is not a valid promise: {exc}")
    return promises, bindings


_VERDICT_NUMBERS = ("signal_value", "calibrated")


def _verdicts(f: Fields, value: Any, beliefs: Sequence[Any], vids: list[Any]
              ) -> dict[tuple[str, Any], Any]:
    rows = f.items(value, "verdicts")
    if not rows:
        return {}
    from ..promises.book import ABSTAIN, OK, SIGNAL, VERDICT_EXTRA, VERDICT_FIELDS
    from ..promises.guarantee import METHODS

    # the beliefs verdicts may name: those of the keys they name (found in one C loop)
    wanted = {row[0] for row in rows if isinstance(row, (list, tuple)) and row
              and type(row[0]) is str}
    held_now = {(beliefs[i][0], vids[i]) for i in
                compress(range(len(beliefs)), map(wanted.__contains__, map(itemgetter(0), beliefs)))}
    verdicts: dict[tuple[str, Any], Any] = {}
    for i, row in enumerate(rows):
        field = f"verdicts[{i}]"
        key, held, record = f.items(row, field, 3)
        key = f.key(key, f"{field}[0] (key)")
        vid = f.value(held, f"{field}[1] (value)")
        if (key, vid) not in held_now:
            f.fail(field, f"is about {key} = {held!r:.80}, which the snapshot does not hold")
        if (key, vid) in verdicts:
            f.fail(field, f"repeats the verdict on {key} = {held!r:.80}")
        r = f.mapping(record, f"{field}[2]", (*VERDICT_FIELDS, "hash"), VERDICT_EXTRA)
        rf = f"{field}[2]"
        if r["key"] != key or f.value(r["value"], f"{rf}.value") != vid:
            f.fail(rf, "is the verdict on another belief")
        f.text(r["signal"], f"{rf}.signal")
        if r["signal"] == SIGNAL:  # a confidence, always read
            f.unit(r["signal_value"], f"{rf}.signal_value")
        elif r["signal"].startswith("platt:"):  # a calibrated signal, when it could be read
            f.maybe_unit(r["signal_value"], f"{rf}.signal_value")
        else:
            f.maybe_number(r["signal_value"], f"{rf}.signal_value")
        f.maybe_text(r.get("grouping"), f"{rf}.grouping")
        f.maybe_text(r.get("judge"), f"{rf}.judge")
        f.maybe_text(r.get("spec"), f"{rf}.spec")
        f.maybe_unit(r["calibrated"], f"{rf}.calibrated")
        if r["threshold"] != "inf":
            f.maybe_number(r["threshold"], f"{rf}.threshold")
        f.maybe_text(r["promise"], f"{rf}.promise")
        f.maybe_text(r["fingerprint"], f"{rf}.fingerprint")
        if r["method"] is not None and r["method"] not in METHODS:
            f.fail(f"{rf}.method", f"must be one of {list(METHODS)} or null")
        if r["parameters"] is not None:
            params = f.mapping(r["parameters"], f"{rf}.parameters",
                               ("max_error", "max_risk", "delta", "min_support", "n"))
            for k in ("max_error", "max_risk", "delta"):
                f.maybe_unit(params[k], f"{rf}.parameters.{k}")
            f.integer(params["min_support"], f"{rf}.parameters.min_support")
            f.integer(params["n"], f"{rf}.parameters.n")
        _scalar(f, r["group"], f"{rf}.group")
        f.integer(r["held"], f"{rf}.held")
        if r["status"] not in (OK, ABSTAIN):
            f.fail(f"{rf}.status", f"must be {OK!r} or {ABSTAIN!r}")
        f.text(r["why"], f"{rf}.why")
        for n, w in enumerate(f.items(r["warnings"], f"{rf}.warnings")):
            f.text(w, f"{rf}.warnings[{n}]", empty=True)
        f.number(r["at"], f"{rf}.at")
        f.text(r["hash"], f"{rf}.hash")
        verdicts[(key, vid)] = record
    return verdicts


def _calls(f: Fields, value: Any, beliefs: int, premises: Sequence[Any], strings: list[str]
           ) -> list[tuple[int, str, dict[str, Any]]]:
    """The remembered tool calls: ``[belief, source, arguments]`` rows, sorted, each naming a
    premise of the snapshot whose source is a tool, with plain-data arguments by name."""
    rows = f.items(value, "calls")
    found: list[tuple[int, str, dict[str, Any]]] = []
    previous: tuple[int, int] | None = None
    for n, row in enumerate(rows):
        field = f"calls[{n}]"
        i, src, arguments = f.items(row, field, 3)
        f.integer(i, f"{field}[0] (belief)", 0, beliefs - 1)
        f.integer(src, f"{field}[1] (source)", 0, len(strings) - 1)
        if previous is not None and not previous < (i, src):
            f.fail(field, "must come after the call before it (calls are sorted, one per premise)")
        previous = (i, src)
        source = strings[src]
        if not source.startswith("tool:"):
            f.fail(f"{field}[1] (source)", f"names {source!r}, not a tool")
        # premises are written belief by belief: find this belief's run by bisection
        at = bisect_left(premises, i, key=itemgetter(0))
        while at < len(premises) and premises[at][0] == i and premises[at][1] != src:
            at += 1
        if at == len(premises) or premises[at][0] != i:
            f.fail(field, f"is the call behind a premise the snapshot does not hold "
                          f"(beliefs[{i}] from {source!r})")
        if not isinstance(arguments, dict):
            f.fail(f"{field}[2] (arguments)", f"must be a map, not {type(arguments).__name__}")
        for name, argument in arguments.items():
            f.text(name, f"{field}[2] (an argument's name)")
            f.value(argument, f"{field}[2].{name}")
        found.append((i, source, arguments))
    return found


def _calibrator(f: Fields, value: Any, field: str = "calibrator") -> Any:
    if value is None:
        return None
    from ..promises.calibration import Platt

    d = f.mapping(value, field, ("kind", "a", "b", "constant", "n"))
    if d["kind"] not in ("platt", "constant"):
        f.fail(f"{field}.kind", f"must be 'platt' or 'constant', not {d['kind']!r:.40}")
    f.unit(d["constant"], f"{field}.constant")
    f.integer(d["n"], f"{field}.n", 1, MAX_INT)
    for k in ("a", "b"):
        if d["kind"] == "platt":
            f.number(d[k], f"{field}.{k}")
        elif d[k] is not None:
            f.fail(f"{field}.{k}", "must be null for a constant calibrator")
    try:
        return Platt.from_dict(d)
    except (CorollaryError, TypeError, ValueError) as exc:
        f.fail(field, f"is not a valid calibrator: {exc}")


# -- files and sessions ----------------------------------------------------------------------------
def write_file(state: BaseState, path: str | os.PathLike[str], *, format: str | None = None) -> None:
    """Write a base's state to ``path`` atomically: msgpack unless the suffix or ``format`` says
    JSON."""
    fmt = format_for(path, format, "msgpack")
    atomic_write(path, encode(state_to_dict(state), fmt))


def read_file(path: str | os.PathLike[str]) -> Any:
    """The document in a snapshot file (decoded and checksum-verified, not yet checked)."""
    return decode_file(path, "snapshot")


def save_session(state: BaseState, store: SessionStore, session_id: str,
                 expected_version: int | None) -> int:
    """Keep a base's snapshot (msgpack) in ``store`` under ``session_id``; return the new
    version. ``expected_version`` as :meth:`~corollary.storage.protocols.SessionStore.save_session`;
    a mismatch raises :class:`~corollary.foundations.errors.ConcurrentWriteError` saying what to do."""
    check_session(session_id)
    data = encode(state_to_dict(state), "msgpack")
    try:
        return int(store.save_session(session_id, data, expected_version=expected_version))
    except SessionJournaledError:
        raise  # it says what to call instead
    except ConcurrentWriteError as exc:
        seen = ("never loaded or saved it here" if expected_version == 0
                else f"loaded or last saved version {expected_version}")
        raise ConcurrentWriteError(
            f"session {session_id!r} was saved by another writer since this base "
            f"{seen}; nothing was written. Reload it (BeliefBase.load_session) and reapply "
            f"your changes, or save with overwrite=True to replace it ({exc})",
            getattr(exc, "path", None)) from exc


def read_session(store: SessionStore, session_id: str) -> tuple[Any, int]:
    """The snapshot document saved under ``session_id`` in ``store``, and its version."""
    raw, version = store.read_session(session_id)
    return decode_bytes(raw, "snapshot", f"session {session_id!r}"), int(version)


def restore_ledger(plan: SnapshotPlan, clock: Any) -> TrustLedger | None:
    """The ledger a restored base uses: the one passed to the load, or the snapshot's own
    outcomes in a new in-memory ledger (``None``: the base makes its default)."""
    own = plan.own_ledger
    if own is None:
        return plan.ledger
    store = MemoryStore(own.memory_half_life, own.max_history)
    store.restore(own.totals, own.outcomes)
    return TrustLedger(prior_weight=own.prior_weight, memory_half_life=own.memory_half_life,
                       max_history=own.max_history, policy=own.policy, clock=clock, store=store)


def restore_engine(engine: Engine, plan: SnapshotPlan) -> list[Belief]:
    """Fill a new engine with a checked snapshot's beliefs, premises, reasons and nogoods, in
    their saved order; return the beliefs by their index in the file.

    Raises :class:`SnapshotError` when the reasons are not stratified (a crafted file could make
    a belief rest on its own absence).
    """
    beliefs = engine.restore_beliefs(plan.beliefs, plan.vids)
    # sequence numbers are never reused: the fired-rule memo may still name beliefs that
    # were forgotten after it was written, and a new belief must not pass for one of them
    engine.continue_numbering(plan.next_seq)
    engine.restore_premises(beliefs, plan.premises, plan.strings)
    for row, kind, unless in zip(plan.justifications, plan.kinds, plan.unless, strict=True):
        name, out, inputs, step, info = row[1:6]
        engine.add_justification(Justification(kind, name, beliefs[out],
                                               tuple(beliefs[x] for x in inputs), float(step),
                                               dict(info), unless))
    for i, (name, items) in enumerate(plan.nogoods):
        engine.add_nogood(Nogood(name, items, i + 1))
    if engine.unless_count:
        try:
            strata.levels(engine, set(engine.beliefs()))
        except StratificationError as exc:
            raise SnapshotError(f"unstratified reasons: {exc}", plan.where) from exc
    return beliefs
