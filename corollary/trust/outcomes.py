"""Outcomes and their fold, from their home below the stores: :mod:`corollary.sources.outcomes`
(this path names the same objects)."""

from __future__ import annotations

from ..sources.outcomes import (
    EMPTY_TOTALS,
    LedgerDocument,
    Outcome,
    Totals,
    check_correct,
    check_source,
    fold_totals,
    names_forgotten,
    totals_rows,
    validate_ledger_document,
)

__all__ = ["EMPTY_TOTALS", "LedgerDocument", "Outcome", "Totals", "check_correct", "check_source",
           "fold_totals", "names_forgotten", "totals_rows", "validate_ledger_document"]
