"""The promise methods of :class:`~corollary.BeliefBase`: attach, answer under, replay.

A part of the facade (its methods are the base's own): each checks what the base must read,
then delegates to the base's :class:`~corollary.promises.PromiseBook`, handing it the ledger,
the held beliefs and the time.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from ..changes.base_changes import Answer as AnswerChange
from ..changes.base_changes import FitCalibrator, Guarantee, RemoveGuarantee
from ..foundations.errors import InvalidInputError
from ..foundations.values import canon, check_key
from ..promises.book import Answer, Replay
from ..promises.book import calibration_pairs as ledger_pairs
from ..promises.options import GuaranteeOptions
from .base_operations import replay_answer
from .lookup import conflict_between
from .making import checked, make
from .operations import operation

if TYPE_CHECKING:  # pragma: no cover
    import numpy as np
    from numpy.typing import NDArray

    from ..promises.calibration import Platt
    from ..promises.guarantee import GroupedPromise, Promise
    from .base import BeliefBase


def calibration_pairs(kb: BeliefBase, source: str | None = None, topic: str | None = None
                      ) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """``(confidences, correct)`` arrays from the ledger's outcomes that carry a
    confidence; see :func:`corollary.promises.calibration_pairs`."""
    return ledger_pairs(kb.ledger, source, topic)


@operation(change=Guarantee, snapshot=True)
def guarantee(kb: BeliefBase, name: str = "default",
              examples: Iterable[object] | None = None, *,
              options: GuaranteeOptions | None = None,
              **kwargs: object) -> Promise | GroupedPromise | None:
    """Attach a promise; returns it (:meth:`remove_guarantee` detaches one).

    Calibrated on ``examples`` or on the base's own ``(confidence, correct)`` pairs, with
    the keyword arguments of :class:`~corollary.GuaranteeOptions` (``max_error=`` or
    ``max_risk=``, ``method``, ``delta``, ``procedure``, ``min_support``, ``weak``, ``source``,
    ``topic``, ``signal``, ``groups``, ``answer``, ``correct``, ``folds``) or one
    ``options=`` value. See :meth:`corollary.promises.PromiseBook.guarantee` and
    ``docs/guarantees.md``.
    """
    made: Promise | GroupedPromise | None = make(kb, check_guarantee(kb, Guarantee(
        name, examples, options=options, settings=kwargs)))
    return made


def check_guarantee(kb: BeliefBase, change: Guarantee) -> Guarantee:
    """A :class:`~corollary.changes.Guarantee`'s checks (``kb.guarantee``'s and ``apply``'s):
    ``options=`` or keyword settings, not both, the settings made one
    :class:`~corollary.GuaranteeOptions` (the name, the target and the examples are checked
    by :meth:`corollary.promises.PromiseBook.guarantee`, which its effect calls, as the
    promise is calibrated); the checked value, its settings in its options."""
    options, settings = change.options, dict(change.settings)
    if options is None:
        return checked(change, options=GuaranteeOptions.of(settings), settings={})
    if settings:
        raise InvalidInputError("pass options= or keyword options, not both")
    return change


def apply_guarantee(kb: BeliefBase, change: Guarantee) -> Promise | GroupedPromise | None:
    """The effect of a :class:`~corollary.changes.Guarantee` (``kb.guarantee``'s, its options
    checked): the promise calibrated and attached (its entry carries the state it left)."""
    return kb.parts.promises.guarantee(kb.ledger, change.name, change.examples, change.options)


def check_promise_change(kb: BeliefBase, change: RemoveGuarantee | FitCalibrator
                         ) -> RemoveGuarantee | FitCalibrator:
    """The checks of a :class:`~corollary.changes.RemoveGuarantee` and a
    :class:`~corollary.changes.FitCalibrator`: none before their effect, which calls the
    promise book's own method (:class:`corollary.promises.PromiseBook`, a public API that
    checks its arguments: a name, the examples as it reads them); their entries carry the
    state they left, so a replay never checks them again. The value."""
    return change


@operation(change=RemoveGuarantee, snapshot=True)
def remove_guarantee(kb: BeliefBase, name: str = "default") -> Promise | GroupedPromise | None:
    """Detach the promise ``name``; return it (``None`` if there was none)."""
    made: Promise | GroupedPromise | None = make(kb, RemoveGuarantee(name))
    return made


def apply_remove_guarantee(kb: BeliefBase, change: RemoveGuarantee
                           ) -> Promise | GroupedPromise | None:
    """The effect of a :class:`~corollary.changes.RemoveGuarantee` (``kb.remove_guarantee``'s,
    and its replay's)."""
    name = change.name
    return kb.parts.promises.remove(name)


@operation(change=FitCalibrator, snapshot=True)
def fit_calibrator(kb: BeliefBase, examples: Iterable[object] | None = None, *, source: str | None = None,
                   topic: str | None = None) -> Platt:
    """Fit a Platt calibrator (``kb.calibrator``) on ``examples`` or the base's own pairs.

    See :meth:`corollary.promises.PromiseBook.fit_calibrator`.
    """
    made: Platt = make(kb, FitCalibrator(examples, source=source, topic=topic))
    return made


def apply_fit_calibrator(kb: BeliefBase, change: FitCalibrator) -> Platt:
    """The effect of a :class:`~corollary.changes.FitCalibrator` (``kb.fit_calibrator``'s, and its
    replay's)."""
    examples, source, topic = change.examples, change.source, change.topic
    return kb.parts.promises.fit_calibrator(kb.ledger, examples, source=source, topic=topic)


@operation(change=AnswerChange, replay=replay_answer, records=("verdict",))
def answer(kb: BeliefBase, key: str, promise: str | None = "default", *,
           group: object = None) -> Answer:
    """Answer ``key`` alone (``ok``) or abstain, under a promise; see
    :meth:`corollary.promises.PromiseBook.answer`."""
    made: Answer = make(kb, check_answer(kb, AnswerChange(key, promise, group=group)))
    return made


def check_answer(kb: BeliefBase, change: AnswerChange) -> AnswerChange:
    """An :class:`~corollary.changes.Answer`'s checks (``kb.answer``'s and ``apply``'s): its
    key, and its group a value (a label: read as plain data for the verdict record, so
    ``b"x"`` or an object is refused here, typed, not half-way through the answer); the
    promise is found by its effect. The checked value."""
    if change.group is not None:
        canon(change.group)
    return checked(change, key=check_key(change.key))


def apply_answer(kb: BeliefBase, change: AnswerChange) -> Answer:
    """The effect of a :class:`~corollary.changes.Answer` (``kb.answer``'s, and its replay's)."""
    key, promise, group = change.key, change.promise, change.group
    kb.parts.promises.check_request(promise, group)  # fails before the key is read
    held = kb.parts.lookup.held(key)
    answered = kb.parts.promises.answer(key, held, kb.now(), conflict_between, promise,
                                        group=group, held_of=kb.parts.lookup.held, base=kb)
    if kb.parts.log is not None:  # the verdict kept is replayed as given, not decided again
        kept = kb.parts.promises.verdicts.get((answered.key, canon(answered.value)))
        kb.parts.log.resolved("verdict", [answered.key, answered.value, kept]
                             if kept is not None and kept is answered.record else None)
    return answered


def replay(kb: BeliefBase, record: Mapping[str, object], *, live: bool = False) -> Replay:
    """Re-derive a verdict record against the current promise; see
    :meth:`corollary.promises.PromiseBook.replay`."""
    return kb.parts.promises.replay(record, kb.parts.lookup.held, live=live, base=kb)

