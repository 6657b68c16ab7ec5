"""The statements every SQL store shares, written once in terms of its dialect.

A SQL store (:class:`~corollary.storage.sqlite.SQLiteStore`,
:class:`~corollary.storage.postgres.PostgresStore`) mixes :class:`SQLQueries` in, sets
``dialect`` and ``location``, and supplies ``_select(sql, params) -> rows`` (one read, no lock)
and ``_change(sql, params) -> rows changed`` (one write, joining the thread's open journal
transaction if there is one), each retried as the store retries. What a read returns is
checked here against the types the schema promises, so a damaged row is a
:class:`~corollary.foundations.errors.StoreCorruptError` or
:class:`~corollary.foundations.errors.JournalCorruptError` on every database alike. Writes of
more than one statement (outcomes, versioned saves, the journal) stay in each store: they
differ by how its driver holds a transaction, not by spelling.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..foundations.errors import JournalCorruptError, SessionNotFoundError, StoreCorruptError
from ..sources.outcomes import names_forgotten
from .checks import check_seq, check_session, checked_entry_row, checked_sources
from .dialects import Dialect
from .journal_start import JournalStart


def _is_count(value: object, low: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and value >= low


def checked_version(value: object, where: object) -> int:
    """A stored session version: an int >= 1 (else :class:`StoreCorruptError`)."""
    if not _is_count(value, 1):
        raise StoreCorruptError(f"corrupt ledger: session version {value!r}", where)
    return value  # type: ignore[return-value]


def checked_blob(value: object) -> bytes | None:
    """Stored bytes as ``bytes`` (drivers may hand back a memoryview), or ``None`` if they are
    not bytes at all."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    return None


class SQLQueries:
    """The one-statement parts of the session, journal and outcome protocols, over
    ``_select`` and ``_change``."""

    dialect: Dialect
    location: object
    #: the outcome-following half's (:class:`~corollary.storage.cached.CachedSQLStore`):
    #: whether :meth:`journal_changed` reads the newest outcome id too, and where it goes
    wants_newest_outcome: Any
    take_newest_outcome: Any

    def _select(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:  # pragma: no cover
        raise NotImplementedError

    def _change(self, sql: str, params: Sequence[Any] = ()) -> int:  # pragma: no cover
        raise NotImplementedError

    def _t(self, name: str) -> str:
        return self.dialect.table(name)

    @property
    def _p(self) -> str:
        return self.dialect.placeholder

    # -- outcomes and settings -----------------------------------------------------------
    def sources(self) -> list[str]:
        """Every source with at least one outcome."""
        return checked_sources(self._select(
            f"SELECT DISTINCT source FROM {self._t('outcomes')} ORDER BY source"), self.location)

    def count(self) -> int:
        """How many outcomes the store holds."""
        return int(self._select(f"SELECT count(*) FROM {self._t('outcomes')}")[0][0])

    def get_meta(self) -> dict[str, str]:
        """Settings stored beside the outcomes (``prior_weight``, ``memory_half_life``)."""
        return dict(self._select(f"SELECT name, value FROM {self._t('meta')}"))

    # -- sessions ------------------------------------------------------------------------
    def read_session(self, session_id: str) -> tuple[bytes, int]:
        """``(data, version)`` of the session; ``SessionNotFoundError`` if there is none."""
        check_session(session_id)
        rows = self._select(f"SELECT data, version FROM {self._t('sessions')} "
                            f"WHERE session_id = {self._p}", (session_id,))
        if not rows:
            raise SessionNotFoundError(f"no session {session_id!r}", self.location)
        data, version = rows[0]
        blob = checked_blob(data)
        if blob is None:
            raise StoreCorruptError(f"corrupt ledger: session {session_id!r} holds "
                                    f"{type(data).__name__}, not bytes", self.location)
        return blob, checked_version(version, self.location)

    def load_session(self, session_id: str) -> bytes:
        """The snapshot saved under ``session_id``; ``SessionNotFoundError`` if there is none."""
        return self.read_session(session_id)[0]

    def list_sessions(self) -> list[str]:
        """Ids of the saved sessions, sorted."""
        return [r[0] for r in self._select(
            f"SELECT session_id FROM {self._t('sessions')} ORDER BY session_id")]

    def delete_session(self, session_id: str) -> bool:
        """Forget a session; whether there was one."""
        check_session(session_id)
        return bool(self._change(f"DELETE FROM {self._t('sessions')} "
                                 f"WHERE session_id = {self._p}", (session_id,)))

    # -- journals ------------------------------------------------------------------------
    def journal_entries(self, session_id: str, after: int = 0,
                        upto: int | None = None) -> list[tuple[int, bytes]]:
        """``(seq, entry)`` with ``after < seq <= upto`` (no bound for ``None``), ascending;
        no lock taken."""
        check_session(session_id)
        p = self._p
        sql = (f"SELECT seq, entry FROM {self._t('corollary_journal')} "
               f"WHERE session_id = {p} AND seq > {p}")
        params: list[Any] = [session_id, check_seq(after, "after")]
        if upto is not None:
            sql += f" AND seq <= {p}"
            params.append(check_seq(upto, "upto"))
        where = self.location
        return [checked_entry_row(seq, entry, where)
                for seq, entry in self._select(sql + " ORDER BY seq", params)]

    def journal_head(self, session_id: str) -> int:
        """The last entry's seq (0: none)."""
        check_session(session_id)
        return self._checked_head(self._select(
            f"SELECT seq FROM {self._t('corollary_journal_head')} WHERE session_id = {self._p}",
            (session_id,)))

    def _checked_head(self, rows: list[Any]) -> int:
        if not rows:
            return 0
        seq = rows[0][0]
        if not _is_count(seq, 0):
            raise JournalCorruptError(f"corrupt journal: head {seq!r}", self.location)
        return int(seq)

    def journal_changed(self, session_id: str, after: int) -> bool:
        """Whether there is an entry after ``after`` (one indexed lookup). When the store
        wants the newest outcome id now (``wants_newest_outcome()``: a PostgreSQL store inside
        ``one_look``, whose reads ask for other writers' outcomes), the same statement reads
        it and hands it over (``take_newest_outcome(newest)``): one round trip for both."""
        after = check_seq(after, "after")
        if not self.wants_newest_outcome():
            return self.journal_head(session_id) > after
        check_session(session_id)
        rows = self._select(
            f"SELECT (SELECT seq FROM {self._t('corollary_journal_head')} WHERE session_id = "
            f"{self._p}), (SELECT coalesce(max(id), 0) FROM {self._t('outcomes')})",
            (session_id,))
        head, newest = rows[0]
        self.take_newest_outcome(int(newest))
        return self._checked_head([] if head is None else [(head,)]) > after

    def read_checkpoint(self, session_id: str,
                        upto: int | None = None) -> tuple[int, bytes] | None:
        """The newest checkpoint with ``seq <= upto`` (``None``: the newest), or ``None``."""
        check_session(session_id)
        p = self._p
        sql = f"SELECT seq, data FROM {self._t('corollary_checkpoint')} WHERE session_id = {p}"
        params: list[Any] = [session_id]
        if upto is not None:
            sql += f" AND seq <= {p}"
            params.append(check_seq(upto, "upto"))
        rows = self._select(sql + " ORDER BY seq DESC LIMIT 1", params)
        if not rows:
            return None
        seq, data = rows[0]
        blob = checked_blob(data)
        if not _is_count(seq, 0) or blob is None:
            raise JournalCorruptError(f"corrupt journal: checkpoint {seq!r}", self.location)
        return int(seq), blob

    def journal_start(self, session_id: str) -> JournalStart:
        """What opening the session reads, in **one statement** (one snapshot of the
        database): its newest checkpoint, the entries from the checkpoint's own (its seq, when
        above 0) to the last, and the head. Inside ``one_look`` (``wants_newest_outcome()``)
        the same statement reads the newest outcome id too, as :meth:`journal_changed` does.
        Opening a session used to take three or four round trips for these
        (docs/many-users.md, "The cache")."""
        check_session(session_id)
        t, p = self._t, self._p
        newest = self.wants_newest_outcome()
        sql = (f"WITH cp AS (SELECT seq, data FROM {t('corollary_checkpoint')} "
               f"WHERE session_id = {p} ORDER BY seq DESC LIMIT 1) "
               f"SELECT 0, seq, data FROM cp UNION ALL "
               f"SELECT 1, seq, entry FROM {t('corollary_journal')} WHERE session_id = {p} "
               f"AND seq >= (SELECT seq FROM cp) UNION ALL "
               f"SELECT 2, seq, NULL FROM {t('corollary_journal_head')} "
               f"WHERE session_id = {p}")
        if newest:
            sql += f" UNION ALL SELECT 3, coalesce(max(id), 0), NULL FROM {t('outcomes')}"
        rows = self._select(sql + " ORDER BY 1, 2", (session_id,) * 3)
        checkpoint: tuple[int, bytes] | None = None
        entries: list[tuple[int, bytes]] = []
        head: list[Any] = []
        where = self.location
        for kind, seq, data in rows:
            if kind == 0:
                blob = checked_blob(data)
                if not _is_count(seq, 0) or blob is None:
                    raise JournalCorruptError(f"corrupt journal: checkpoint {seq!r}", where)
                checkpoint = (int(seq), blob)
            elif kind == 1:
                entries.append(checked_entry_row(seq, data, where))
            elif kind == 2:
                head = [(seq,)]
            else:
                self.take_newest_outcome(int(seq))
        return JournalStart(checkpoint, entries, self._checked_head(head))

    def write_checkpoint(self, session_id: str, seq: int, data: bytes) -> None:
        """Keep ``data``, the session's snapshot just after entry ``seq`` (a checkpoint already
        kept at ``seq`` stays)."""
        check_session(session_id, data)
        seq = check_seq(seq)
        self._change(self.dialect.upsert("corollary_checkpoint", ("session_id", "seq", "data"),
                                         ("session_id", "seq")), (session_id, seq, bytes(data)))

    def prune_checkpoints(self, session_id: str, keep: int) -> int:
        """Forget all but the first and the ``keep`` newest checkpoints; return how many went."""
        check_session(session_id)
        keep = check_seq(keep, "keep")
        table, p = self._t("corollary_checkpoint"), self._p
        return self._change(
            f"DELETE FROM {table} WHERE session_id = {p} AND seq > "
            f"(SELECT min(seq) FROM {table} WHERE session_id = {p}) AND seq NOT IN "
            f"(SELECT seq FROM {table} WHERE session_id = {p} ORDER BY seq DESC LIMIT {p})",
            (session_id, session_id, session_id, keep))

    def journal_sessions(self) -> list[str]:
        """Ids of the sessions with a journal or a checkpoint, sorted."""
        return [r[0] for r in self._select(
            f"SELECT session_id FROM {self._t('corollary_journal_head')} UNION "
            f"SELECT session_id FROM {self._t('corollary_checkpoint')} ORDER BY 1")]

    # -- forgetting (docs/journal.md, "Forgetting") ----------------------------------------
    def rewrite_journal(self, session_id: str, entries: Mapping[int, bytes],
                        checkpoints: Mapping[int, bytes]) -> None:
        """Replace the bytes of the given entries and checkpoints (which exist) in place, in
        the thread's open journal transaction: ``kb.forget`` rewrites the past."""
        check_session(session_id)
        p = self._p
        for seq, raw in entries.items():
            self._change(f"UPDATE {self._t('corollary_journal')} SET entry = {p} "
                         f"WHERE session_id = {p} AND seq = {p}",
                         (bytes(raw), session_id, check_seq(seq)))
        for seq, data in checkpoints.items():
            self._change(f"UPDATE {self._t('corollary_checkpoint')} SET data = {p} "
                         f"WHERE session_id = {p} AND seq = {p}",
                         (bytes(data), session_id, check_seq(seq)))

    def redact_outcomes(self, keys: Iterable[str], prefixes: Iterable[str],
                        source: str | None) -> int:
        """Blank the key, reason and evidence of the outcomes naming what ``kb.forget``
        erased (:func:`~corollary.trust.outcomes.names_forgotten`); their counts stay. How
        many."""
        keys, prefixes = frozenset(keys), tuple(prefixes)
        table, p = self._t("outcomes"), self._p
        rows = self._select(f"SELECT id, key, reason, evidence, source FROM {table} WHERE "
                            "key IS NOT NULL OR reason IS NOT NULL OR evidence IS NOT NULL")
        hit = [r[0] for r in rows if names_forgotten(r[1], r[2], r[3], r[4], keys, prefixes,
                                                     source)]
        for i in range(0, len(hit), 500):
            chunk = hit[i:i + 500]
            self._change(f"UPDATE {table} SET key = NULL, reason = NULL, evidence = NULL "
                         f"WHERE id IN ({', '.join([p] * len(chunk))})", chunk)
        return len(hit)
