"""The JSON-file ledger store: a readable file for small ledgers and single machines.

The file is a whole-ledger document with a versioned header (``"format": "corollary-ledger"``),
the totals behind every reliability and every outcome, so :meth:`TrustLedger.load
<corollary.trust.ledger.TrustLedger.load>` reads it too. Every write rewrites it atomically (temporary
file, fsync, rename; the file keeps its mode). Concurrent writers take an exclusive ``flock`` on
a sidecar ``<file>.lock`` and first merge, by event id, whatever other writers added since they
last read the file, so no writer ever drops another's outcomes. Threads of one process share a
store through an in-process lock taken before the ``flock``. A write that fails (full disk,
file-size limit, read-only directory) raises :class:`~corollary.foundations.errors.StoreError` and leaves
the store as it was before the call, so a retry writes the same outcomes.

Sessions live in a sidecar directory ``<file>.sessions/``, one file per session holding its
id, its version and the snapshot; saves compare and set the version under the exclusive
``flock`` (see :meth:`JSONFileStore.save_session`).

Rewriting the whole file makes each write cost O(outcomes): use SQLite beyond a few tens of
thousands of outcomes. For the same reason this store keeps no session journals (docs/journal.md):
its journal methods raise :class:`~corollary.foundations.errors.JournalUnsupportedError`.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import hashlib
import json
import os
import stat
import threading
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

import attrs

from ..foundations._io import (
    LEDGER_FORMAT,
    LEDGER_VERSION,
    MAX_FILE_BYTES_ENV,
    atomic_write,
    check_path,
    decode_bytes,
    kind_of,
    os_cause,
    read_regular,
)
from ..foundations._io import max_file_bytes as resolve_max_bytes
from ..foundations.errors import (
    ConcurrentWriteError,
    InvalidInputError,
    JournalUnsupportedError,
    SessionNotFoundError,
    SnapshotError,
    StoreCorruptError,
    StoreError,
    StoreVersionError,
)
from ..sources.outcomes import (
    Outcome,
    Totals,
    names_forgotten,
    validate_ledger_document,
)
from .checks import check_expected_version, check_half_life, check_session, dedupe
from .memory import MemoryStore

#: Marks a file written by this store (its outcomes in commit order).
STORE_KIND = "jsonfile"
#: The first line of a session file; a JSON line ``{"id": ..., "version": n}`` and the
#: snapshot follow. Session files written before versions hold only the snapshot.
SESSION_MAGIC = b"corollary-session\n"
#: Session ids whose quoted form is longer are named by their SHA-256 (``h_<hex>.bin``):
#: ``s_<quoted>.bin`` must stay within the 255 bytes of a file name.
MAX_QUOTED_ID = 249
#: How the size bound is raised, for error messages.
_SETTING = f"max_file_bytes= (or ${MAX_FILE_BYTES_ENV})"
_O_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


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
    max_file_bytes : int, optional
        The largest file this store reads or writes (default ``$COROLLARY_MAX_FILE_BYTES``,
        else 4 GiB). A larger file is refused unread, and a write that would pass the bound
        raises :class:`~corollary.foundations.errors.StoreError` with nothing changed.

    Examples
    --------
    >>> import tempfile, os
    >>> from corollary.trust.ledger import TrustLedger, open_ledger
    >>> path = os.path.join(tempfile.mkdtemp(), "trust.json")
    >>> ledger = open_ledger(path)
    >>> _ = ledger.record_outcome("tool:scraper", True, at=0)
    >>> TrustLedger.load(path).record_of("tool:scraper", at=0).correct
    1
    """

    def __init__(self, path: str | os.PathLike[str], half_life: float | None = None, *,
                 settings: Mapping[str, Any] | None = None,
                 max_file_bytes: int | None = None) -> None:
        self.half_life = check_half_life(half_life)
        check_path(path)
        self.max_file_bytes = resolve_max_bytes(max_file_bytes)
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
        # threads of this process: one at a time merges, writes or reads the merged state
        # (taken before the flock, which only orders processes)
        self._lock = threading.RLock()
        self._file_stamp()  # refuse a FIFO or a device before making a lock file beside it
        with self._lock, self._locked(exclusive=False):
            self._merge(initial=True)

    def keep_settings(self, settings: Mapping[str, Any]) -> None:
        """Ledger settings to write into the header where the file has none yet."""
        with self._lock:
            self._settings = {**settings, "memory_half_life": self.half_life}

    # -- reading the file ----------------------------------------------------------------
    @staticmethod
    def read_header(path: str | os.PathLike[str],
                    max_file_bytes: int | None = None) -> dict[str, Any] | None:
        """The settings stored in a ledger file, or ``None`` if there is no file yet."""
        check_path(path)
        data = _read(Path(path).expanduser(), resolve_max_bytes(max_file_bytes))
        if data is None:
            return None
        return {k: data.get(k) for k in ("prior_weight", "memory_half_life", "max_history",
                                         "policy")}

    def _file_stamp(self) -> tuple[int, int, int] | None:
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"cannot read the ledger file: {os_cause(exc)}", self.path) from exc
        if not stat.S_ISREG(st.st_mode):
            raise StoreCorruptError(f"{kind_of(st.st_mode)}, not a regular file: not a ledger "
                                    "file; left untouched", self.path)
        return (st.st_ino, st.st_mtime_ns, st.st_size)

    def _merge(self, initial: bool = False) -> set[str]:
        """Fold in outcomes other writers put in the file since we last read it."""
        stamp = self._file_stamp()
        if stamp is None or stamp == self._stamp:
            return set()
        data = _read(self.path, self.max_file_bytes)
        if data is None:
            return set()
        half_life = data.get("memory_half_life")
        if half_life != self.half_life:
            raise InvalidInputError(
                f"{self.path}: written with memory_half_life={half_life!r}, opened with "
                f"{self.half_life!r}; open it with the same half-life (or use SQLite, which "
                "keeps raw outcomes only)")
        added: list[Outcome] = []
        totals: dict[tuple[str, str | None], Totals] = {}
        try:
            outcomes = [Outcome.from_dict(o) for o in data["outcomes"]]
            generation = int(data.get("generation", 0))
            if initial:
                # take the totals as written (they may also cover history a TrustLedger.save
                # dropped), and the outcomes for their event ids and the audit trail
                self._mem.restore(data["totals"], outcomes)
                self.header = {k: v for k, v in data.items() if k not in ("outcomes", "totals")}
                self._order = list(outcomes)
            else:
                added, totals = self._mem.stage(outcomes)
        except (KeyError, TypeError, ValueError) as exc:
            raise StoreCorruptError(f"malformed ledger file ({exc.__class__.__name__}: {exc}); "
                                    "left untouched", self.path) from exc
        if added:
            self._mem.commit(added, totals)
            self._order.extend(added)
        self._stamp = stamp
        self._generation = max(self._generation, generation)
        return {o.source for o in added}

    @contextlib.contextmanager
    def _locked(self, exclusive: bool) -> Iterator[None]:
        fd = self._open_lock(exclusive)
        if fd is None:
            yield
            return
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH)
            except OSError as exc:
                raise StoreError(f"cannot lock {self.lock_path}: {os_cause(exc)}",
                                 self.path) from exc
            yield
        finally:
            os.close(fd)  # releases the lock

    def _open_lock(self, exclusive: bool) -> int | None:
        """A descriptor of the lock file; ``None`` to read an existing file unlocked."""
        try:
            self.lock_path.parent.mkdir(parents=True, exist_ok=True)
            # 0o666 less the umask: every user who may write the ledger may lock it
            return os.open(self.lock_path, os.O_RDWR | os.O_CREAT | _O_CLOEXEC, 0o666)
        except OSError as exc:
            cause = exc
        with contextlib.suppress(OSError):
            # a directory or lock file this user may not write: flock needs no write access
            return os.open(self.lock_path, os.O_RDONLY | _O_CLOEXEC)
        if (not exclusive and cause.errno in (errno.EACCES, errno.EPERM, errno.EROFS)
                and self._file_stamp() is not None):
            # a ledger in a read-only place: writers replace the file in one rename, so a
            # reader sees a whole file without the lock
            return None
        raise StoreError(f"cannot create the lock file {self.lock_path}: {os_cause(cause)}",
                         self.path) from cause

    # -- the OutcomeStore protocol -------------------------------------------------------
    def add(self, outcomes: list[Outcome]) -> list[Outcome]:
        """Merge others' outcomes, add ours (known event ids skipped), rewrite the file.

        If the file cannot be written, :class:`~corollary.foundations.errors.StoreError` is raised and
        none of ``outcomes`` is kept (others' outcomes merged on the way stay), so a retry
        with the same event ids writes them.
        """
        batch = dedupe(outcomes)
        if not batch:
            return []
        with self._lock, self._locked(exclusive=True):
            self._pending |= self._merge()
            added, totals = self._mem.stage(batch)
            if added:
                self._write(added, totals)
                self._mem.commit(added, totals)
                self._order.extend(added)
        return added

    def redact_outcomes(self, keys: Iterable[str], prefixes: Iterable[str],
                        source: str | None) -> int:
        """Blank the key, reason and evidence of the outcomes naming what ``kb.forget``
        erased (their counts stay), and write the file again (a new file renamed over the old:
        the old bytes are left to the file system's free space). How many."""
        keys, prefixes = frozenset(keys), tuple(prefixes)
        with self._lock, self._locked(exclusive=True):
            self._pending |= self._merge()
            hit = [i for i, o in enumerate(self._order) if names_forgotten(
                o.key, o.reason, o.evidence, o.source, keys, prefixes, source)]
            if not hit:
                return 0
            order = list(self._order)
            for i in hit:
                order[i] = attrs.evolve(order[i], key=None, reason=None, evidence=None)
            before, self._order = self._order, order
            try:
                self._write([], {})
            except BaseException:
                self._order = before
                raise
            self._mem.redact_outcomes(keys, prefixes, source)
        return len(hit)

    def _write(self, added: list[Outcome], totals: Mapping[tuple[str, str | None], Totals]) -> None:
        """Write the file as it is plus ``added`` (folded into ``totals``); change nothing else
        unless the write succeeds."""
        generation = self._generation + 1
        doc = dict(self.header)
        doc.update({"format": LEDGER_FORMAT, "version": LEDGER_VERSION, "store": STORE_KIND,
                    "generation": generation})
        for name, value in self._settings.items():
            doc.setdefault(name, value)
        doc.setdefault("prior_weight", 10.0)
        doc.setdefault("max_history", 10_000)
        doc.setdefault("policy", _default_policy())
        doc["totals"] = self._mem.export_totals(totals)
        doc["outcomes"] = [o.to_dict() for o in self._order] + [o.to_dict() for o in added]
        data = json.dumps(doc, ensure_ascii=False, separators=(",", ":"),
                          allow_nan=False).encode()
        if len(data) > self.max_file_bytes:
            raise StoreError(f"the ledger file would grow to {len(data)} bytes, more than "
                             f"max_file_bytes={self.max_file_bytes}; nothing was written (raise "
                             "the bound, or use SQLite for a ledger this large)", self.path)
        atomic_write(self.path, data, what="ledger file", error=StoreError)
        self._generation = generation
        self._stamp = self._file_stamp()
        self.header = {k: v for k, v in doc.items() if k not in ("outcomes", "totals")}

    def totals(self, source: str, topic: str | None = None) -> Totals:
        """The aggregates of ``source`` as of this process's last read of the file."""
        with self._lock:
            return self._mem.totals(source, topic)

    def topics(self, source: str) -> list[str]:
        """The topics ``source`` has outcomes in."""
        with self._lock:
            return self._mem.topics(source)

    def outcomes(self, source: str | None = None, topic: str | None = None) -> list[Outcome]:
        """Every outcome in the file, oldest recorded first."""
        with self._lock:
            return [o for o in self._order if (source is None or o.source == source)
                    and (topic is None or o.topic == topic)]

    def sources(self) -> list[str]:
        """Every source with at least one outcome."""
        with self._lock:
            return self._mem.sources()

    def export(self) -> tuple[list[list[Any]], list[Outcome]]:
        """Totals rows and outcomes as of the last read, taken at one moment."""
        with self._lock:
            return self._mem.export_totals(), list(self._order)

    def changed_sources(self) -> set[str]:
        """Sources other writers added outcomes to since the last call."""
        with self._lock:
            if self._file_stamp() != self._stamp:
                with self._locked(exclusive=False):
                    self._pending |= self._merge()
            changed, self._pending = self._pending, set()
        return changed

    def sync(self) -> set[str]:
        """Catch up with the file now (it is read whenever it changed): what
        :meth:`changed_sources` returns."""
        return self.changed_sources()

    def count(self) -> int:
        """How many outcomes the file holds (as of the last read)."""
        with self._lock:
            return len(self._order)

    # -- sessions: a sidecar directory of atomic files -----------------------------------
    def _session_path(self, session_id: str) -> Path:
        quoted = quote(check_session(session_id), safe="")
        if len(quoted) <= MAX_QUOTED_ID:
            return self.sessions_dir / f"s_{quoted}.bin"
        digest = hashlib.sha256(session_id.encode("utf-8")).hexdigest()
        return self.sessions_dir / f"h_{digest}.bin"

    def save_session(self, session_id: str, data: bytes, *,
                     expected_version: int | None = None) -> int:
        """Keep ``data`` (a base's snapshot) under ``session_id``; return its new version.

        Parameters
        ----------
        session_id : str
            Any id of up to 512 characters; ids too long for a file name are stored under
            their SHA-256 (the id itself is kept in the file).
        data : bytes
            The snapshot.
        expected_version : int, optional
            ``None`` writes unconditionally; ``0`` requires that the session does not exist
            yet; ``n > 0`` that it is at version ``n``. Otherwise
            :class:`~corollary.foundations.errors.ConcurrentWriteError` is raised and nothing is written.
            The check and the write happen under the store's exclusive lock, so of two
            processes saving on the same version exactly one succeeds.

        Returns
        -------
        int
            The new version: 1 for the first save, then one more per save.
        """
        check_session(session_id, data)
        expected = check_expected_version(expected_version)
        path = self._session_path(session_id)
        with self._lock, self._locked(exclusive=True):
            current = self._session_version(session_id, path)
            if expected is not None and expected != current:
                state = f"is at version {current}" if current else "does not exist"
                raise ConcurrentWriteError(
                    f"session {session_id!r} {state}, not version {expected}: another writer "
                    "saved it after it was read; nothing was written (read it again, re-apply "
                    "the change, save again)", self.path)
            try:
                self.sessions_dir.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"cannot make the session directory {self.sessions_dir}: "
                                 f"{os_cause(exc)}", self.path) from exc
            version = current + 1
            header = json.dumps({"id": session_id, "version": version}, ensure_ascii=False)
            atomic_write(path, SESSION_MAGIC + header.encode() + b"\n" + bytes(data),
                         what=f"session {session_id!r}", error=StoreError)
        return version

    def read_session(self, session_id: str) -> tuple[bytes, int]:
        """``(snapshot, version)`` of ``session_id``; ``SessionNotFoundError`` if there is none."""
        path = self._session_path(session_id)
        found = self._read_session(session_id, path)
        if found is None:
            raise SessionNotFoundError(f"no session {session_id!r}", self.path)
        return found

    def load_session(self, session_id: str) -> bytes:
        """The snapshot saved under ``session_id``; ``SessionNotFoundError`` if there is none."""
        return self.read_session(session_id)[0]

    def _read_session(self, session_id: str, path: Path) -> tuple[bytes, int] | None:
        try:
            raw = read_regular(path, "session file", StoreError, limit=self.max_file_bytes,
                               kind_error=StoreCorruptError, setting=_SETTING)
        except FileNotFoundError:
            return None
        stored_id, version, data = _parse_session(raw, path)
        if stored_id is not None and stored_id != session_id:
            return None  # another id with the same SHA-256: never answer with its data
        return data, version

    def _session_version(self, session_id: str, path: Path) -> int:
        found = self._read_session(session_id, path)
        return 0 if found is None else found[1]

    def list_sessions(self) -> list[str]:
        """Ids of the saved sessions, sorted."""
        try:
            names = os.listdir(self.sessions_dir)
        except (FileNotFoundError, NotADirectoryError):
            return []
        except OSError as exc:
            raise StoreError(f"cannot list {self.sessions_dir}: {os_cause(exc)}",
                             self.path) from exc
        ids = []
        for name in names:
            if not name.endswith(".bin"):
                continue
            if name.startswith("s_"):
                ids.append(unquote(name[2:-4]))
            elif name.startswith("h_"):
                try:
                    raw = read_regular(self.sessions_dir / name, "session file", StoreError,
                                       limit=self.max_file_bytes, kind_error=StoreCorruptError,
                                       setting=_SETTING)
                except FileNotFoundError:  # deleted since the listing
                    continue
                stored_id = _parse_session(raw, self.sessions_dir / name)[0]
                if stored_id is not None:
                    ids.append(stored_id)
        return sorted(ids)

    def delete_session(self, session_id: str) -> bool:
        """Forget a session; whether there was one."""
        path = self._session_path(session_id)
        with self._lock, self._locked(exclusive=True):
            if path.name.startswith("h_") and self._read_session(session_id, path) is None:
                return False  # none, or another id's (same SHA-256): not ours to delete
            try:
                path.unlink()
            except FileNotFoundError:  # pragma: no cover - removed by hand under our lock
                return False
            except OSError as exc:
                raise StoreError(f"cannot delete session {session_id!r}: {os_cause(exc)}",
                                 self.path) from exc
        return True

    def close(self) -> None:
        """Nothing to release: every write is already on disk."""
        return None

    # session journals: not kept here. Every write rewrites the whole file, so a journal
    # would not make a change cost less than a whole-session save; use SQLite.
    def _no_journal(self, *args: Any, **kwargs: Any) -> Any:
        raise JournalUnsupportedError(
            "the JSON-file store keeps no session journals (each write rewrites the whole "
            "file): open the session on a SQLite or PostgreSQL ledger (docs/journal.md)",
            self.path)

    journal = journal_entries = journal_head = journal_changed = journal_seq_at = _no_journal
    write_checkpoint = read_checkpoint = prune_checkpoints = _no_journal
    journal_sessions = delete_journal = _no_journal

    def __repr__(self) -> str:
        return f"JSONFileStore({str(self.path)!r})"


def _default_policy() -> dict[str, Any]:
    from ..sources.policy import TrustPolicy

    return TrustPolicy().to_dict()


def _parse_session(raw: bytes, path: Path) -> tuple[str | None, int, bytes]:
    """``(id, version, snapshot)`` of a session file; ``(None, 1, raw)`` for one written
    before versions (an unversioned file counts as one save)."""
    if not raw.startswith(SESSION_MAGIC):
        return None, 1, raw
    end = raw.find(b"\n", len(SESSION_MAGIC))
    try:
        if end < 0:
            raise ValueError("no header line")
        header = json.loads(raw[len(SESSION_MAGIC):end].decode("utf-8"))
        stored_id, version = header["id"], header["version"]
        if not isinstance(stored_id, str) or isinstance(version, bool) or not isinstance(
                version, int) or version < 1:
            raise ValueError(f"bad header {header!r}")
    except (ValueError, UnicodeDecodeError, KeyError, TypeError) as exc:
        raise StoreCorruptError(f"corrupt session file ({exc.__class__.__name__}: {exc}); left "
                                "untouched", path) from exc
    return stored_id, version, raw[end + 1:]


def _read(path: Path, limit: int) -> dict[str, Any] | None:
    """The parsed file; ``None`` if it does not exist; typed errors for anything else."""
    try:
        raw = read_regular(path, "ledger file", StoreError, limit=limit,
                           kind_error=StoreCorruptError, setting=_SETTING)
    except FileNotFoundError:
        return None
    try:
        data = decode_bytes(raw, "ledger file", path)
    except SnapshotError as exc:
        raise StoreCorruptError(f"{exc.args[0]}; left untouched") from exc
    if not isinstance(data, dict) or data.get("format") != LEDGER_FORMAT:
        raise StoreCorruptError("not a corollary ledger file; left untouched", path)
    version = data.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise StoreCorruptError(f"ledger file without a valid version ({version!r})", path)
    if version > LEDGER_VERSION:
        raise StoreVersionError(
            f"ledger format version {version} is newer than this corollary reads "
            f"({LEDGER_VERSION}); upgrade corollary", path)
    try:
        validate_ledger_document(data, path)
    except SnapshotError as exc:
        raise StoreCorruptError(f"{exc.args[0]}; left untouched") from exc
    return data
