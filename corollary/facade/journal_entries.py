"""Journal entries: what one change of a journaled session keeps, as bytes, and the records read
back from them (:class:`HistoryEntry`, :class:`WatchEvent`).

An entry is a sealed msgpack envelope ``[MAGIC, version, checksum, body]``: the checksum
(BLAKE2b-128 of the body) catches damaged bytes, and a version above :data:`ENTRY_VERSION` is
refused with :class:`~corollary.foundations.errors.JournalVersionError` before the body is read.
The body is a map:

``op``
    the public method (``"assert_"``, ``"claim"``, ``"call"``, ...);
``at``
    its journal time (seconds): the replay runs the operation with the clock at this time;
``a``
    the arguments as given (msgpack bytes; tuples and ``timedelta`` survive the round trip): the
    operation's declaration says what it keeps (:mod:`corollary.facade.operations`); entries
    written since declarations pass by position what the method's parameters take by position,
    and leave out what was left at its default, which replays the same as the caller's spelling;
``ops``
    the base's operation counter before and after (outcome event ids derive from it);
``subj``
    ``[key, value, source, reason]`` of each belief the change names, for history;
``after``
    ``[key, label, confidence, value]`` of each of those keys once the change was made;
``n`` (optional)
    the entry's own sequence number (1, 2, ...): a row copied, duplicated or moved to another
    place in the journal reads back with a number that differs from its place, and is refused
    as corrupt; entries written before entries carried it have none;
``inc`` (optional)
    the journal's incarnation: a random id the first entry's writer draws, carried by every
    entry. Outcome event ids derive from it (a journal started again under the same session id
    never reuses an id), and a base that finds another incarnation refuses to go on;
``r`` (optional)
    what the change resolved when it was made, which a replay applies instead of deciding again:
    ``{"held": {key: value}}``, the held value it took of each key (a retract without a value,
    a claim's inputs), ``{"verdict": [key, value, record]}``, the verdict an ``answer`` kept;
``snap`` (promise changes: ``guarantee``, ``remove_guarantee``, ``fit_calibrator``)
    the base's whole state once the change was made (a snapshot's bytes), which the replay
    takes: the entry needs no checkpoint, so pruning checkpoints never breaks a replay.

``a``, ``subj`` and ``after`` are msgpack bytes inside the body, read only when needed.

Values are kept exactly (a tuple stays a tuple), so every process holds the same values. See
docs/journal.md.

>>> raw = encode_entry({"op": "assert_", "at": 1.0, "a": pack_args(("k", 1, "tool:t"), {}),
...                     "ops": [0, 0], "subj": [["k", 1, "tool:t", None]],
...                     "after": [["k", "IN", 0.9, 1]]})
>>> entry = decode_entry(1, raw)
>>> entry.op, entry.args, entry.after[0][1]
('assert_', ('k', 1, 'tool:t'), 'IN')
"""

from __future__ import annotations

import datetime
import hashlib
import math
from collections.abc import Callable, Mapping
from typing import Any

import attrs
import msgpack

from ..foundations.errors import (
    InvalidInputError,
    JournalCorruptError,
    JournalVersionError,
)
from ..foundations.values import canon

__all__ = ["ENTRY_VERSION", "Entry", "HistoryEntry", "WatchEvent", "decode_entry",
           "encode_entry", "pack_args"]

#: ``history_entry``'s "any value of the key".
_ANY: Any = object()
#: The version of the entry format this code writes (and the newest it reads).
ENTRY_VERSION = 1
#: The first field of every entry.
MAGIC = "corollary-journal-entry"
_TUPLE, _SECONDS = 1, 2


def _default(obj: Any) -> Any:
    """msgpack's fallback for what it does not pack as it is (``strict_types``)."""
    if isinstance(obj, tuple):
        return msgpack.ExtType(_TUPLE, _pack(list(obj)))
    if isinstance(obj, datetime.timedelta):
        return msgpack.ExtType(_SECONDS, _pack(obj.total_seconds()))
    if isinstance(obj, bool):
        return bool(obj)
    if isinstance(obj, bytes):
        return bytes(obj)
    if isinstance(obj, datetime.datetime) and obj.tzinfo is not None:
        return obj.timestamp()  # a valid time: its POSIX seconds mean the same on replay
    for kind in (int, float, str):
        if isinstance(obj, kind):
            return kind(obj)
    if isinstance(obj, Mapping):
        return dict(obj)
    if isinstance(obj, list):
        return list(obj)
    if attrs.has(type(obj)):
        return attrs.asdict(obj, recurse=False)
    item = getattr(obj, "item", None)  # a numpy scalar
    if callable(item) and getattr(obj, "shape", None) == ():
        return item()
    raise InvalidInputError(f"a journaled change takes plain data (text, numbers, lists, maps); "
                            f"{type(obj).__name__} cannot be kept in a session journal")


def _pack(obj: Any) -> bytes:
    try:
        packed: bytes = msgpack.packb(obj, use_bin_type=True, strict_types=True,
                                      default=_default)
        return packed
    except (OverflowError, ValueError, TypeError) as exc:
        if isinstance(exc, InvalidInputError):
            raise
        raise InvalidInputError(f"cannot be kept in a session journal: {exc}") from None


def _ext(code: int, data: bytes) -> Any:
    if code == _TUPLE:
        return tuple(_unpack(data))
    if code == _SECONDS:
        return datetime.timedelta(seconds=_unpack(data))
    raise ValueError(f"unknown extension type {code}")


def _unpack(data: bytes) -> Any:
    return msgpack.unpackb(data, raw=False, ext_hook=_ext, strict_map_key=True)


def pack_args(args: tuple[Any, ...], kwargs: Mapping[str, Any]) -> bytes:
    """A change's arguments as bytes (raises ``InvalidInputError`` for what cannot be kept)."""
    return _pack([list(args), dict(kwargs)])


def encode_entry(body: Mapping[str, Any]) -> bytes:
    """An entry's bytes: the body sealed with its checksum and the format version. The
    arguments (``a``, already packed by :func:`pack_args`), subjects and after-states are kept
    as bytes inside the body, so that its head reads without them."""
    fields = dict(body)
    for name in ("subj", "after", "r"):
        if name in fields:
            fields[name] = _pack(fields[name])
    data = _pack(fields)
    check = hashlib.blake2b(data, digest_size=16).digest()
    sealed: bytes = msgpack.packb([MAGIC, ENTRY_VERSION, check, data], use_bin_type=True)
    return sealed


class Entry:
    """A decoded journal entry (see the module docstring). The arguments, subjects and
    after-states are read from their bytes when first asked for: opening a session reads only
    the head (time, operation, counters) of the entry its checkpoint was taken after."""

    __slots__ = ("seq", "at", "op", "ops", "_blobs", "_args", "_where", "_resolved", "snapshot",
                 "inc")

    def __init__(self, seq: int, at: float, op: str, ops: tuple[int, int],
                 blobs: tuple[bytes, bytes, bytes], where: object = None,
                 resolved: bytes | None = None, snapshot: bytes | None = None,
                 inc: str = "") -> None:
        self._resolved = resolved
        #: the journal's incarnation (``""``: an entry written before entries carried it)
        self.inc = inc
        #: the state a promise change left (``snap``), else ``None``
        self.snapshot = snapshot
        self.seq = seq
        self.at = at
        self.op = op
        self.ops = ops
        self._blobs = blobs
        self._args: tuple[Any, ...] | None = None
        self._where = where

    def _read(self) -> tuple[Any, ...]:
        if self._args is None:
            a, subj, after = self._blobs
            try:
                args, kwargs = _unpack(a)
                subjects = tuple(tuple(s) for s in _unpack(subj))
                afters = tuple(tuple(s) for s in _unpack(after))
                if not isinstance(kwargs, dict) or any(
                        len(s) != 4 for s in subjects + afters):
                    raise ValueError("wrong shapes")
            except Exception as exc:
                raise _corrupt(self.seq, f"malformed body ({type(exc).__name__}: {exc})",
                               self._where) from None
            self._args = (tuple(args), kwargs, subjects, afters)
        return self._args

    @property
    def resolved(self) -> dict[str, Any]:
        """What the change resolved when it was made (``r``; empty when it resolved nothing)."""
        if self._resolved is None:
            return {}
        try:
            found = _unpack(self._resolved)
            if not isinstance(found, dict):
                raise ValueError("not a map")
        except Exception as exc:
            raise _corrupt(self.seq, f"malformed body ({type(exc).__name__}: {exc})",
                           self._where) from None
        return found

    @property
    def packed_args(self) -> bytes:
        """The arguments as the entry holds them (packed), to write again unread."""
        return self._blobs[0]

    @property
    def args(self) -> tuple[Any, ...]:
        return self._read()[0]  # type: ignore[no-any-return]

    @property
    def kwargs(self) -> dict[str, Any]:
        return self._read()[1]  # type: ignore[no-any-return]

    @property
    def subjects(self) -> tuple[tuple[Any, ...], ...]:
        return self._read()[2]  # type: ignore[no-any-return]

    @property
    def after(self) -> tuple[tuple[Any, ...], ...]:
        return self._read()[3]  # type: ignore[no-any-return]


def _corrupt(seq: int, why: str, where: object) -> JournalCorruptError:
    return JournalCorruptError(f"corrupt journal entry {seq}: {why}", where)


def decode_entry(seq: int, raw: bytes, where: object = None) -> Entry:
    """Read entry ``seq``; damaged bytes raise ``JournalCorruptError``, a newer format
    ``JournalVersionError``."""
    try:
        outer = msgpack.unpackb(raw, raw=False)
    except Exception as exc:  # msgpack raises many kinds for damaged bytes
        raise _corrupt(seq, f"unreadable ({type(exc).__name__})", where) from None
    if not (isinstance(outer, list) and len(outer) == 4 and outer[0] == MAGIC):
        raise _corrupt(seq, "not a journal entry", where)
    _, version, check, data = outer
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise _corrupt(seq, f"entry version {version!r}", where)
    if version > ENTRY_VERSION:
        raise JournalVersionError(f"journal entry {seq} has format version {version}, newer "
                                  f"than this corollary reads ({ENTRY_VERSION}); upgrade "
                                  "corollary", where)
    if not (isinstance(check, bytes) and isinstance(data, bytes)
            and hashlib.blake2b(data, digest_size=16).digest() == check):
        raise _corrupt(seq, "checksum mismatch (damaged bytes)", where)
    try:
        body = msgpack.unpackb(data, raw=False)
        at, op, ops = float(body["at"]), body["op"], (int(body["ops"][0]), int(body["ops"][1]))
        blobs = (body["a"], body["subj"], body["after"])
        resolved, snapshot, inc = body.get("r"), body.get("snap"), body.get("inc", "")
        own = body.get("n", seq)
    except Exception as exc:
        raise _corrupt(seq, f"malformed body ({type(exc).__name__}: {exc})", where) from None
    if own != seq or isinstance(own, bool):
        raise _corrupt(seq, f"it says it is entry {own!r} (a row duplicated or moved)", where)
    if (not isinstance(op, str) or not math.isfinite(at) or not isinstance(inc, str)
            or not all(isinstance(b, bytes) for b in (*blobs, resolved or b"", snapshot or b""))):
        raise _corrupt(seq, "malformed body", where)
    return Entry(seq, at, op, ops, blobs, where, resolved, snapshot, inc)


@attrs.frozen(slots=True)
class HistoryEntry:
    """One change of a journaled session, as ``kb.history()`` lists it.

    Attributes
    ----------
    seq : int
        Its place in the session's one order (1, 2, ...).
    time : float
        Its journal time (POSIX seconds).
    operation : str
        The method that made it (``"assert_"``, ``"retract"``, ``"call"``, ...).
    key, value, source, reason
        What it names (``None`` where it names none, or several keys and no key was asked
        for: ``keys`` lists them).
    label : str or None
        The label of ``value`` (of ``key``) once the change was made: ``"IN"`` when it is the
        value held, ``"OUT"`` when it is not (retracted, or the key holds another value), or
        ``"CONFLICT"`` when it is one of two or more values held in an open conflict. A change
        that names the key but no value of it (``nogood``, ``record_outcome``) gives the key's
        label.
    confidence : float or None
        ``value``'s confidence then (0.0 when OUT; ``None`` in a conflict, where the entry
        keeps the key's highest confidence only).
    keys : tuple of str
        Every key the change names.
    valid_from, valid_until : float or None
        The valid time an assertion gave its fact (POSIX seconds; ``None``: from when it was
        observed, and open-ended); docs/model.md, "Time and change".
    """

    seq: int
    time: float
    operation: str
    key: str | None
    value: Any
    source: str | None
    reason: str | None
    label: str | None
    confidence: float | None
    keys: tuple[str, ...] = ()
    valid_from: float | None = None
    valid_until: float | None = None


def history_entries(entry: Entry, key: str | None = None) -> list[HistoryEntry]:
    """The history records of ``entry`` (about ``key`` when given): one, or, for a
    ``remember`` naming several values of ``key``, one per value in the order the call named
    them, each with its own label (each value is a claim of its own: none replaced another,
    where an ``assert_many`` naming a key twice left only its last value)."""
    if key is None or entry.op != "remember":
        return [history_entry(entry, key)]
    values: dict[Any, Any] = {}
    for s in entry.subjects:
        if s[0] == key:
            values.setdefault(canon(s[1]), s[1])
    if len(values) < 2:
        return [history_entry(entry, key)]
    return [history_entry(entry, key, value) for value in values.values()]


def history_entry(entry: Entry, key: str | None = None, value: Any = _ANY) -> HistoryEntry:
    """The history record of ``entry`` (about ``key`` when given; about its ``value`` when
    given too)."""
    subjects = [s for s in entry.subjects if isinstance(s[0], str)]
    keys = tuple(dict.fromkeys(s[0] for s in subjects))
    chosen = None
    if key is not None:
        # the last naming it: a change naming a key twice (assert_many) left the last value
        chosen = next((s for s in reversed(subjects) if s[0] == key and (
            value is _ANY or canon(s[1]) == canon(value))), None)
    elif len(subjects) == 1 or (len(entry.subjects) == 1):
        chosen = entry.subjects[0]
    after = None
    if chosen is not None:
        after = next((a for a in entry.after if a[0] == chosen[0]), None)
    k, value, source, reason = chosen if chosen is not None else (None, None, None, None)
    named = value
    label, confidence = (None, None) if after is None else _value_label(entry.op, value, after)
    valid: tuple[Any, Any] = (None, None)
    if entry.op in ("assert_", "claim") and chosen is not None:  # (a claim's: by keyword)
        kwargs = entry.kwargs
        valid = (kwargs.get("valid_from"), kwargs.get("valid_until"))
    elif entry.op == "assert_many" and chosen is not None and entry.args:
        for row in reversed(entry.args[0]):  # the last row naming the key, as ``chosen`` is
            if isinstance(row, Mapping) and row.get("key") == chosen[0]:
                valid = (row.get("valid_from"), row.get("valid_until"))
                break
            if isinstance(row, (list, tuple)) and row and row[0] == chosen[0]:
                valid = (*list(row[6:8]), None, None)[:2]
                break
    elif entry.op == "remember" and chosen is not None and len(entry.args) > 2:
        for row in reversed(entry.args[2]):  # a fact: [key, value, quote, doc, valid_from, ...]
            if row[0] == chosen[0] and canon(row[1]) == canon(named):
                valid = (row[4], None)
                break
    return HistoryEntry(entry.seq, entry.at, entry.op, k, value, source, reason, label,
                        confidence, keys, *valid)


def _value_label(op: str, value: Any, after: tuple[Any, ...]) -> tuple[str | None, float | None]:
    """The label and confidence of ``value`` once the change was made, from the key's state
    the entry kept (``after``: the key's label, its highest confidence, the value it holds):
    a retracted value, or one the key does not hold, is OUT whatever the key holds. A change
    naming the key but no value of it (a nogood, an outcome) gives the key's own state."""
    _, label, confidence, held = after
    if op == "retract" or label == "OUT":
        return "OUT", 0.0
    if value is None and op not in ("assert_", "assert_many", "claim"):
        return label, confidence
    if label == "IN":
        same = type(held) is type(value) and held == value
        return ("IN", confidence) if same else ("OUT", 0.0)
    return label, None


@attrs.frozen(slots=True)
class WatchEvent:
    """A change of a held value or label, seen by ``kb.watch`` after an entry was applied.

    Attributes
    ----------
    key : str
    value : object
        The value whose label changed.
    before, after : str or None
        Its label before and after the entry (``None``: the value did not exist).
    entry : HistoryEntry
        The change that did it (this process's own, or another writer's).
    """

    key: str
    value: Any
    before: str | None
    after: str | None
    entry: HistoryEntry


#: ``callback(event)`` of :meth:`kb.watch <corollary.facade.journaled.Journal.watch>`.
WatchCallback = Callable[[WatchEvent], Any]
