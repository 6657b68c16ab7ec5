"""The JSON-file ledger store: a readable file for small ledgers and single machines.

The file is a whole-ledger document with a versioned header (``"format": "corollary-ledger"``),
the totals behind every reliability and every outcome, so :meth:`TrustLedger.load
<corollary.ledger.TrustLedger.load>` reads it too. Every write rewrites it atomically (temporary
file, fsync, rename). Concurrent writers take an exclusive ``flock`` on a sidecar
``<file>.lock`` and first merge, by event id, whatever other writers added since they last
read the file, so no writer ever drops another's outcomes. Sessions live in a sidecar
directory ``<file>.sessions/``.

Rewriting the whole file makes each write cost O(outcomes): use SQLite beyond a few tens of
thousands of outcomes.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

from .._io import atomic_write
from ..errors import InvalidInputError, StoreError
from ..ledger import LEDGER_FORMAT, LEDGER_VERSION, MemoryStore, Outcome, Totals
from .base import (
    SessionNotFoundError,
    StoreCorruptError,
    StoreVersionError,
    check_half_life,
    check_session,
    dedupe,
)

#: Marks a file written by this store (its outcomes in commit order).
STORE_KIND = "jsonfile"


class JSONFileStore:
    """Outcomes in one JSON file, safe for several writing processes on one host.

    Parameters
    ----------
    path : str or path-like
        The file (created on the first write).
    half_life : float, optional
        The ledger's memory half-life in seconds. A file keeps totals folded with the
        half-life it was written with, so reopening it with another one is refused.
    settings : mapping, optional
        Ledger settings written into the header (``prior_weight``, ``memory_half_life``,
        ``max_history``, ``policy``), for :meth:`TrustLedger.load` readers.

    Examples
    --------
    >>> import tempfile, os
    >>> from corollary.ledger import TrustLedger
    >>> path = os.path.join(tempfile.mkdtemp(), "trust.json")
    >>> ledger = TrustLedger.open(path)
    >>> _ = ledger.record_outcome("tool:scraper", True, at=0)
    >>> TrustLedger.load(path).record_of("tool:scraper", at=0).correct
    1
    """

    def __init__(self, path: str | os.PathLike[str], half_life: float | None = None, *,
                 settings: Mapping[str, Any] | None = None) -> None:
        self.half_life = check_half_life(half_life)
        self.path = Path(path).expanduser()
        self.location = self.path
        self.lock_path = self.path.with_name(self.path.name + ".lock")
        self.sessions_dir = self.path.with_name(self.path.name + ".sessions")
        self._settings = dict(settings or {})
        self._settings["memory_half_life"] = self.half_life
        self._mem = MemoryStore(self.half_life, max_history=2**62)
        self._order: list[Outcome] = []
        self._stamp: tuple[int, int, int] | None = None
        self._generation = 0
        self._pending: set[str] = set()
        self.header: dict[str, Any] = {}
        with self._locked(exclusive=False):
            self._merge(initial=True)

    # -- reading the file ----------------------------------------------------------------
    @staticmethod
    def read_header(path: str | os.PathLike[str]) -> dict[str, Any] | None:
        """The settings stored in a ledger file, or ``None`` if there is no file yet."""
        data = _read(Path(path))
        if data is None:
            return None
        return {k: data.get(k) for k in ("prior_weight", "memory_half_life", "max_history",
                                         "policy")}

    def _file_stamp(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _merge(self, initial: bool = False) -> set[str]:
        """Fold in outcomes other writers put in the file since we last read it."""
        stamp = self._file_stamp()
        if stamp is None or stamp == self._stamp:
            return set()
        data = _read(self.path)
        if data is None:
            return set()
        half_life = data.get("memory_half_life")
        if half_life != self.half_life:
            raise InvalidInputError(
                f"{self.path}: written with memory_half_life={half_life!r}, opened with "
                f"{self.half_life!r}; open it with the same half-life (or use SQLite, which "
                "keeps raw outcomes only)")
        try:
            outcomes = [Outcome.from_dict(o) for o in data["outcomes"]]
            if initial:
                # take the totals as written (they may also cover history a TrustLedger.save
                # dropped), and the outcomes for their event ids and the audit trail
                self.header = {k: v for k, v in data.items() if k not in ("outcomes", "totals")}
                self._mem.restore(data["totals"], outcomes)
                self._order = list(outcomes)
                outcomes = []
            generation = int(data.get("generation", 0))
        except (KeyError, TypeError, ValueError) as exc:
            raise StoreCorruptError(f"malformed ledger file ({exc.__class__.__name__}: {exc}); "
                                    "left untouched", self.path) from exc
        added = self._mem.add(outcomes)
        self._order.extend(added)
        self._stamp = stamp
        self._generation = max(self._generation, generation)
        changed = {o.source for o in added}
        return set() if initial else changed

    @contextlib.contextmanager
    def _locked(self, exclusive: bool) -> Iterator[None]:
        self.lock_path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            yield
        finally:
            os.close(fd)  # releases the lock

    # -- the OutcomeStore protocol -------------------------------------------------------
    def add(self, outcomes: list[Outcome]) -> list[Outcome]:
        """Merge others' outcomes, add ours (known event ids skipped), rewrite the file."""
        batch = dedupe(outcomes)
        if not batch:
            return []
        with self._locked(exclusive=True):
            self._pending |= self._merge()
            added = self._mem.add(batch)
            if added:
                self._order.extend(added)
                self._write()
        return added

    def _write(self) -> None:
        self._generation += 1
        doc = dict(self.header)
        doc.update({"format": LEDGER_FORMAT, "version": LEDGER_VERSION, "store": STORE_KIND,
                    "generation": self._generation})
        for name, value in self._settings.items():
            doc.setdefault(name, value)
        doc.setdefault("prior_weight", 10.0)
        doc.setdefault("max_history", 10_000)
        doc.setdefault("policy", _default_policy())
        totals = []
        for (source, topic), t in sorted(self._mem._totals.items(),
                                         key=lambda kv: (kv[0][0], kv[0][1] is not None,
                                                         kv[0][1] or "")):
            totals.append([source, topic, t.right, t.total, t.anchor, t.weighted_right,
                           t.weighted_total])
        doc["totals"] = totals
        doc["outcomes"] = [o.to_dict() for o in self._order]
        data = json.dumps(doc, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        atomic_write(self.path, data.encode())
        self._stamp = self._file_stamp()
        self.header = {k: v for k, v in doc.items() if k not in ("outcomes", "totals")}

    def totals(self, source: str, topic: str | None = None) -> Totals:
        """The aggregates of ``source`` as of this process's last read of the file."""
        return self._mem.totals(source, topic)

    def topics(self, source: str) -> list[str]:
        """The topics ``source`` has outcomes in."""
        return self._mem.topics(source)

    def outcomes(self, source: str | None = None, topic: str | None = None) -> list[Outcome]:
        """Every outcome in the file, oldest recorded first."""
        return [o for o in self._order
                if (source is None or o.source == source) and (topic is None or o.topic == topic)]

    def sources(self) -> list[str]:
        """Every source with at least one outcome."""
        return self._mem.sources()

    def changed_sources(self) -> set[str]:
        """Sources other writers added outcomes to since the last call."""
        if self._file_stamp() != self._stamp:
            with self._locked(exclusive=False):
                self._pending |= self._merge()
        changed, self._pending = self._pending, set()
        return changed

    def count(self) -> int:
        """How many outcomes the file holds (as of the last read)."""
        return len(self._order)

    # -- sessions: a sidecar directory of atomic files -----------------------------------
    def _session_path(self, session_id: str) -> Path:
        return self.sessions_dir / f"s_{quote(check_session(session_id), safe='')}.bin"

    def save_session(self, session_id: str, data: bytes) -> None:
        """Keep ``data`` (a base's snapshot) under ``session_id``, replacing any earlier one."""
        check_session(session_id, data)
        atomic_write(self._session_path(session_id), bytes(data))

    def load_session(self, session_id: str) -> bytes:
        """The snapshot saved under ``session_id``; ``SessionNotFoundError`` if there is none."""
        try:
            return self._session_path(session_id).read_bytes()
        except FileNotFoundError:
            raise SessionNotFoundError(f"no session {session_id!r}", self.path) from None

    def list_sessions(self) -> list[str]:
        """Ids of the saved sessions, sorted."""
        if not self.sessions_dir.is_dir():
            return []
        return sorted(unquote(p.name[2:-4]) for p in self.sessions_dir.glob("s_*.bin"))

    def delete_session(self, session_id: str) -> bool:
        """Forget a session; whether there was one."""
        try:
            self._session_path(session_id).unlink()
        except FileNotFoundError:
            return False
        return True

    def close(self) -> None:
        """Nothing to release: every write is already on disk."""
        return None

    def __repr__(self) -> str:
        return f"JSONFileStore({str(self.path)!r})"


def _default_policy() -> dict[str, Any]:
    from ..policy import TrustPolicy

    return TrustPolicy().to_dict()


def _read(path: Path) -> dict[str, Any] | None:
    """The parsed file; ``None`` if it does not exist; typed errors for anything else."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except IsADirectoryError as exc:
        raise StoreCorruptError("is a directory, not a ledger file", path) from exc
    except OSError as exc:
        raise StoreError(f"cannot read the ledger file: {exc}", path) from exc
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise StoreCorruptError(f"corrupt or truncated ledger file ({exc.__class__.__name__}: "
                                f"{exc}); left untouched", path) from exc
    if not isinstance(data, dict) or data.get("format") != LEDGER_FORMAT:
        raise StoreCorruptError("not a corollary ledger file; left untouched", path)
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise StoreCorruptError(f"ledger file without a valid version ({version!r})", path)
    if version > LEDGER_VERSION:
        raise StoreVersionError(
            f"ledger format version {version} is newer than this corollary reads "
            f"({LEDGER_VERSION}); upgrade corollary", path)
    if not isinstance(data.get("outcomes"), list):
        raise StoreCorruptError("malformed ledger file (no outcome list)", path)
    return data
