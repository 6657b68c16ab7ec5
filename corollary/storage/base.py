"""What the stores share, by one name: the checks, the fork plumbing, the totals cache, the
protocols.

Each lives in a module of its own (:mod:`.checks`, :mod:`.processes`, :mod:`.cached`,
:mod:`.protocols`); this module names them together, as the stores and the layers above have
always imported them (``from corollary.storage.base import check_session, keeps_journals``).
"""

from __future__ import annotations

from .cached import CachedSQLStore
from .checks import (
    COLUMNS,
    check_entry,
    check_expected_version,
    check_half_life,
    check_seq,
    check_session,
    checked_entry_row,
    checked_fold_row,
    checked_sources,
    dedupe,
    keeps_journals,
    outcome_of,
    row_of,
    session_conflict,
    session_journaled,
)
from .processes import Owned, keep_forever, owned_by
from .protocols import (
    JOURNAL_METHODS,
    JournalStore,
    JournalWriter,
    LedgerStore,
    OutcomeStore,
    SessionStore,
)

__all__ = [
    "COLUMNS", "CachedSQLStore", "JOURNAL_METHODS", "JournalStore", "JournalWriter",
    "LedgerStore", "OutcomeStore", "Owned", "SessionStore", "check_entry",
    "check_expected_version", "check_half_life", "check_seq", "check_session",
    "checked_entry_row", "checked_fold_row", "checked_sources", "dedupe", "keep_forever",
    "keeps_journals", "outcome_of", "owned_by", "row_of", "session_conflict",
    "session_journaled",
]
