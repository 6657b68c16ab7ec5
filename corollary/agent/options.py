"""How an agent runs and what its model sees, as one value (:class:`AgentOptions`).

``Agent(model, kb, max_steps=5, min_confidence=0.8)`` still takes them as keyword arguments;
``Agent(model, kb, options=AgentOptions(...))`` passes them together, for agents that share
them (issue 26, point 8: ``Agent.__init__`` had 13 parameters).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import attrs

from ..foundations._validate import (
    check_bool,
    check_int,
    check_number,
    check_unit,
    options_given,
)
from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..foundations.scope import Scope, to_scope
from .projector import Projector

__all__ = ["CONTEXT_BUDGET", "AgentOptions"]

#: Default token budget for the beliefs shown at the start of a run (see ``context_budget``).
CONTEXT_BUDGET = 2000


def _unit_or_none(value: Any) -> float | None:
    return None if value is None else check_unit(value, "min_confidence")


def _system(value: Any) -> str | None:
    if value is not None and not isinstance(value, str):
        raise InvalidTypeError(f"system must be a str, not {type(value).__name__}")
    return value


def _projector(value: Any) -> Projector | None:
    if value is not None and not callable(value):
        raise InvalidTypeError("projector must be a callable (kb) -> str")
    return value  # type: ignore[no-any-return]


def _budget(value: Any) -> int | None:
    return None if value is None else check_int(value, "context_budget", low=1)


def _scope(value: str | Iterable[str] | Scope | None) -> Scope | None:
    return to_scope(value)


def _small_model(value: Any) -> bool | None:
    return None if value is None else check_bool(value, "small_model")


def _force_answer(value: Any) -> bool | None:
    return None if value is None else check_bool(value, "force_answer")


#: What the agent does with an answer nothing supports (docs/agent.md, "Supported answers").
UNSUPPORTED_ANSWERS = ("refuse", "doubt")


def _unsupported(value: Any) -> str:
    if value not in UNSUPPORTED_ANSWERS:
        raise InvalidInputError(f"unsupported_answers is one of {UNSUPPORTED_ANSWERS}, not {value!r}")
    return value  # type: ignore[no-any-return]


@attrs.frozen(slots=True, kw_only=True)
class AgentOptions:
    """The options of an :class:`~corollary.Agent` (each as documented there).

    Attributes
    ----------
    self_consistency : int
        Samples per claim (1: one).
    learn_from_checks : bool
        For the base the agent makes.
    min_confidence : float, optional
        The floor below which beliefs are never shown (default: the base's policy's).
    max_steps : int
        Model turns before a run gives up.
    system : str, optional
        The system message (default: the agent's prompt).
    tolerance : float
        How far a claimed number may be from its checked formula.
    projector : callable, optional
        ``(kb) -> str``: renders the beliefs itself (no scope then).
    context_budget : int, optional
        Tokens of beliefs shown at the start of a run (``None``: every belief).
    scope : key prefixes, optional
        The keys the model may see and reason from.
    small_model : bool, optional
        Small-model mode (docs/models.md): a shorter system message. ``None``: the model's
        ``small_model`` attribute.
    force_answer : bool, optional
        ``True``: after a reply without a tool call, and on the last step, the request
        requires the ``answer`` tool, its inputs limited to the keys held (docs/agent.md, "A
        forced answer"). ``None`` (default): named steps, each request naming one tool once
        the model answered in words or says its server needs it, and ``answer`` on the last
        step (docs/agent.md, "Named steps"). ``False``: no request names a tool.
    unsupported_answers : str
        ``"refuse"`` (default) an answer citing nothing, or whose value no cited belief holds;
        ``"doubt"`` believes it at a certainty of 0.2 at most, and the run says why.

    Examples
    --------
    >>> AgentOptions(max_steps=5).max_steps
    5
    >>> AgentOptions(max_steps=0)
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.InvalidInputError: max_steps must be >= 1, got 0
    """

    self_consistency: int = attrs.field(
        default=1, converter=lambda v: check_int(v, "self_consistency", low=1, high=100))
    learn_from_checks: bool = attrs.field(
        default=True, converter=lambda v: check_bool(v, "learn_from_checks"))
    min_confidence: float | None = attrs.field(default=None, converter=_unit_or_none)
    max_steps: int = attrs.field(default=10, converter=lambda v: check_int(v, "max_steps", low=1))
    system: str | None = attrs.field(default=None, converter=_system)
    tolerance: float = attrs.field(
        default=1e-6, converter=lambda v: check_number(v, "tolerance", low=0.0))
    projector: Projector | None = attrs.field(default=None, converter=_projector)
    context_budget: int | None = attrs.field(default=CONTEXT_BUDGET, converter=_budget)
    scope: Scope | None = attrs.field(default=None, converter=_scope)
    small_model: bool | None = attrs.field(default=None, converter=_small_model)
    force_answer: bool | None = attrs.field(default=None, converter=_force_answer)
    unsupported_answers: str = attrs.field(default="refuse", converter=_unsupported)

    def __attrs_post_init__(self) -> None:
        if self.projector is not None and self.scope is not None:
            raise InvalidInputError("a projector renders the beliefs itself, so a scope could "
                                    "not hold for it: pass one or the other")

    @classmethod
    def given(cls, options: AgentOptions | None, keywords: Mapping[str, Any]) -> AgentOptions:
        """``options``, or the options named in ``keywords`` (the others by default)."""
        return options_given(cls, options, keywords, "Agent()")  # type: ignore[no-any-return]
