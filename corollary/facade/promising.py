"""The promise methods of :class:`~corollary.BeliefBase`: attach, answer under, replay.

A part of the facade (its methods are the base's own): each checks what the base must read,
then delegates to the base's :class:`~corollary.promises.PromiseBook`, handing it the ledger,
the held beliefs and the time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..foundations.errors import InvalidInputError
from ..foundations.values import canon, check_key
from ..promises.book import Answer, PromiseBook, Replay, calibration_pairs
from ..promises.options import GuaranteeOptions
from .base_operations import keep_name, replay_answer, the_key
from .lookup import conflict_between
from .operations import OperationLog, operation

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from numpy.typing import NDArray

    from ..promises.calibration import Platt
    from ..promises.guarantee import GroupedPromise, Promise
    from ..trust.ledger import TrustLedger
    from .lookup import Lookup


class PromiseMethods:
    """``kb.guarantee``, ``kb.answer`` and their kin (see ``docs/guarantees.md``)."""

    _promises: PromiseBook
    _lookup: Lookup
    _oplog: OperationLog | None

    if TYPE_CHECKING:  # provided by BeliefBase
        @property
        def ledger(self) -> TrustLedger: ...

        def now(self) -> float: ...

    @property
    def promises(self) -> dict[str, Promise | GroupedPromise]:
        """The attached promises, by name (see :meth:`guarantee`)."""
        return self._promises.promises

    @property
    def verdicts(self) -> dict[tuple[str, Any], dict[str, Any]]:
        """The verdict record of the last answer given for each belief, by ``(key, value
        identity)`` (:func:`corollary.foundations.values.canon` of the value)."""
        return dict(self._promises.verdicts)

    @property
    def calibrator(self) -> Platt | None:
        """The calibrator fitted by :meth:`fit_calibrator` (``None`` until then)."""
        return self._promises.calibrator

    def calibration_pairs(self, source: str | None = None, topic: str | None = None
                          ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """``(confidences, correct)`` arrays from the ledger's outcomes that carry a
        confidence; see :func:`corollary.promises.calibration_pairs`."""
        return calibration_pairs(self.ledger, source, topic)

    @operation(keep=keep_name, snapshot=True)
    def guarantee(self, name: str = "default", examples: Any = None, *,
                  options: GuaranteeOptions | None = None,
                  **kwargs: Any) -> Promise | GroupedPromise | None:
        """Attach a promise; returns it (:meth:`remove_guarantee` detaches one).

        Calibrated on ``examples`` or on the base's own ``(confidence, correct)`` pairs, with
        the keyword arguments of :class:`~corollary.GuaranteeOptions` (``max_error=`` or
        ``max_risk=``, ``method``, ``delta``, ``procedure``, ``min_support``, ``weak``, ``source``,
        ``topic``, ``signal``, ``groups``, ``answer``, ``correct``, ``folds``) or one
        ``options=`` value. See :meth:`corollary.promises.PromiseBook.guarantee` and
        ``docs/guarantees.md``.
        """
        if options is None:
            options = GuaranteeOptions.of(kwargs)
        elif kwargs:
            raise InvalidInputError("pass options= or keyword options, not both")
        return self._promises.guarantee(self.ledger, name, examples, options)

    @operation(keep=keep_name, snapshot=True)
    def remove_guarantee(self, name: str = "default") -> Promise | GroupedPromise | None:
        """Detach the promise ``name``; return it (``None`` if there was none)."""
        return self._promises.remove(name)

    @operation(keep=keep_name, snapshot=True)
    def fit_calibrator(self, examples: Any = None, *, source: str | None = None,
                       topic: str | None = None) -> Platt:
        """Fit a Platt calibrator (``kb.calibrator``) on ``examples`` or the base's own pairs.

        See :meth:`corollary.promises.PromiseBook.fit_calibrator`.
        """
        return self._promises.fit_calibrator(self.ledger, examples, source=source, topic=topic)

    @operation(subjects=the_key, replay=replay_answer, records=("verdict",))
    def answer(self, key: str, promise: str | None = "default", *, group: Any = None) -> Answer:
        """Answer ``key`` alone (``ok``) or abstain, under a promise; see
        :meth:`corollary.promises.PromiseBook.answer`."""
        key = check_key(key)
        self._promises.check_request(promise, group)  # fails before the key is read
        held = self._lookup.held(key)
        answered = self._promises.answer(key, held, self.now(), conflict_between, promise,
                                         group=group, held_of=self._lookup.held, base=self)
        if self._oplog is not None:  # the verdict kept is replayed as given, not decided again
            kept = self._promises.verdicts.get((answered.key, canon(answered.value)))
            self._oplog.resolved("verdict", [answered.key, answered.value, kept]
                                 if kept is not None and kept is answered.record else None)
        return answered

    def replay(self, record: Any, *, live: bool = False) -> Replay:
        """Re-derive a verdict record against the current promise; see
        :meth:`corollary.promises.PromiseBook.replay`."""
        return self._promises.replay(record, self._lookup.held, live=live, base=self)

