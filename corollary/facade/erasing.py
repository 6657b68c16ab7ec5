"""What ``kb.forget`` does to a session's journal: the past rewritten so that the forgotten bytes
are gone (docs/journal.md, "Forgetting").

A journal keeps every change as an entry, and checkpoints (whole snapshots) along the way. A
forget runs as one entry that carries the state it left (a whole-state entry, as a promise
change does: every process that applies it takes that state, so no process needs to know what
was forgotten), and, in the same transaction, before that entry is appended:

- each earlier entry that names what was forgotten is rewritten: an ``assert_many`` loses the
  rows that name it (and stays, if any row is left), any other entry becomes a ``redacted``
  entry, which keeps its number, its time and its operation counts and replays as nothing;
- each checkpoint and each whole-state entry that holds it is loaded, the same forgetting is
  applied to it (:func:`corollary.facade.forgetting.erase`), and it is written again;
- the ledger's outcomes about it lose their key and reason (their counts stay).

So a reopen reads the forget entry's state, and the entries after it replay as before; a read
of the past (``kb.as_of``) before the forget reads the past without the rewritten entries (an
entry that said other things besides loses them there: the present is exact, the past before
a forget is the past minus every change that named what went). The store frees the bytes once
the transaction committed (``reclaim``: SQLite's write-ahead log truncated, PostgreSQL's
``VACUUM``).

An entry "names" what was forgotten when a string anywhere in it (arguments, subjects, states
after, what it resolved) is a forgotten key, a key in the forgotten scope or the forgotten
source, or is a key one of whose values was forgotten next to that value.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from ..foundations._io import decode_bytes, encode
from ..foundations.values import canon
from ..snapshot.state import state_to_dict
from .forgetting import REDACTED_OP, Erased, ForgetSpec, erase
from .journal_entries import Entry, decode_entry, encode_entry, pack_args
from .saving import state_of

if TYPE_CHECKING:  # pragma: no cover
    from .journaled import Journal

__all__ = ["REDACTED", "Needles", "rewrite_past"]

#: The operation of an entry that ``kb.forget`` erased: it replays as nothing.
REDACTED = REDACTED_OP


class Needles:
    """What an entry must not name once a forget ran (see the module docstring)."""

    def __init__(self, spec: ForgetSpec, done: Erased) -> None:
        self.keys = set(done.keys)
        if spec.key is not None and not spec.has_value:
            self.keys.add(spec.key)
        self.scope = spec.scope
        self.source = spec.source
        self.values: dict[str, set[Any]] = {}
        for key, vid in done.values:
            if key not in self.keys:
                self.values.setdefault(key, set()).add(vid)
        #: the sentences redacted from documents that stay
        self.words = set(done.words)
        scope = spec.scope
        words = [*(k for k in self.keys if scope is None or not scope.contains(k)),
                 *self.values, *(scope.prefixes if scope else ()),
                 *([spec.source] if spec.source else []),
                 *self.words]  # a scope's keys: by its prefixes
        #: a first look at the raw bytes (strings are kept as UTF-8 in entries and snapshots):
        #: bytes that hold none of the words cannot name what was forgotten
        self.raw = re.compile(b"|".join(re.escape(w.encode()) for w in sorted(words))) \
            if words else None

    def may_name(self, raw: bytes) -> bool:
        return self.raw is not None and self.raw.search(raw) is not None

    def names(self, *parts: Any) -> bool:
        """Whether any of ``parts`` (plain data, nested) names what was forgotten."""
        strings: set[str] = set()
        scalars: list[Any] = []
        for x in _walk(parts):
            if isinstance(x, str):
                strings.add(x)
            scalars.append(x)
        for s in strings:
            if s in self.keys or s == self.source or (
                    self.scope is not None and self.scope.contains(s)):
                return True
            if self.words and any(w in s for w in self.words):
                return True
        for key, vids in self.values.items():
            if key in strings and any(_vid(x) in vids for x in scalars):
                return True
        return False


def _walk(obj: Any) -> Iterator[Any]:
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            yield x  # a tuple value is one value too
            stack.extend(x)
        elif isinstance(x, Mapping):
            stack.extend(x.keys())
            stack.extend(x.values())
        else:
            yield x


def _vid(x: Any) -> Any:
    try:
        return canon(x)
    except Exception:  # not a value a belief can hold
        return None


def _redacted(entry: Entry) -> bytes:
    return encode_entry({"op": REDACTED, "at": entry.at, "a": pack_args((), {}),
                         "ops": list(entry.ops), "subj": [], "after": [], "inc": entry.inc,
                         "n": entry.seq})


def _body(entry: Entry, **changed: Any) -> bytes:
    """``entry`` encoded again with some fields changed."""
    body: dict[str, Any] = {"op": entry.op, "at": entry.at, "a": entry.packed_args,
                            "ops": list(entry.ops), "subj": [list(s) for s in entry.subjects],
                            "after": [list(a) for a in entry.after], "inc": entry.inc,
                            "n": entry.seq}
    if entry.resolved:
        body["r"] = entry.resolved
    if entry.snapshot is not None:
        body["snap"] = entry.snapshot
    body.update(changed)
    return encode_entry(body)


def _narrowed(entry: Entry, needles: Needles) -> bytes:
    """An entry naming what was forgotten, rewritten: an ``assert_many`` without the rows
    that name it (when any row is left), any other a redacted entry."""
    if entry.op == "assert_many" and entry.args and isinstance(entry.args[0], list):
        rows = [r for r in entry.args[0] if not needles.names(r)]
        if rows:
            return _body(entry, a=pack_args((rows,), {}),
                         subj=[list(s) for s in entry.subjects if not needles.names(s)],
                         after=[list(a) for a in entry.after if not needles.names(a)])
    return _redacted(entry)


def _erased_state(journal: Journal, data: bytes, spec: ForgetSpec,
                  words: set[str]) -> bytes | None:
    """A snapshot's bytes with the forgetting applied (``None``: it held nothing of it)."""
    doc = decode_bytes(data, "snapshot", journal.where())
    past = journal.load(data)
    done = erase(past.parts.engine, spec, past.parts.promises, words)
    if not done.beliefs and not done.reasons and not done.words:
        return None
    fresh = state_to_dict(state_of(past))
    fresh["taken_at"] = doc["taken_at"]
    return encode(fresh, "msgpack")


def rewrite_past(journal: Journal, spec: ForgetSpec, done: Erased) -> tuple[int, int]:
    """Rewrite the entries and checkpoints of ``journal`` that hold what ``spec`` and
    ``done`` say was forgotten (under the write lock, in its transaction); return how many of
    each (whole-state entries rewritten count as checkpoints)."""
    store, sid, where = journal.store, journal.sid, journal.where()
    needles = Needles(spec, done)
    entries: dict[int, bytes] = {}
    states = 0
    for seq, raw in _entries(store, sid, journal.seen):
        if not needles.may_name(raw):
            continue
        entry = decode_entry(seq, raw, where)
        if entry.op == REDACTED:
            continue
        if entry.snapshot is not None:  # a whole-state entry: its state, with the forgetting
            erased = _erased_state(journal, entry.snapshot, spec, needles.words)
            if erased is not None:
                entries[seq] = _body(entry, snap=erased)
                states += 1
            continue
        if needles.names(entry.args, entry.kwargs, entry.subjects, entry.after,
                         entry.resolved):
            entries[seq] = _narrowed(entry, needles)
    checkpoints: dict[int, bytes] = {}
    found = store.read_checkpoint(sid)
    while found is not None:
        seq, data = found
        if needles.may_name(data):
            erased = _erased_state(journal, data, spec, needles.words)
            if erased is not None:
                checkpoints[seq] = erased
        found = store.read_checkpoint(sid, seq - 1) if seq > 0 else None
    store.rewrite_journal(sid, entries, checkpoints)  # type: ignore[attr-defined]
    if 0 in checkpoints:  # the first checkpoint tells this journal from a replacement
        journal.origin = _digest(checkpoints[0])
    return len(entries), len(checkpoints) + states


#: Entries read at a time (a long journal is never held in memory whole).
CHUNK = 1024


def _entries(store: Any, session: str, upto: int) -> Iterator[tuple[int, bytes]]:
    for low in range(0, upto, CHUNK):
        yield from store.journal_entries(session, low, min(upto, low + CHUNK))


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()  # as the journal's own digest
