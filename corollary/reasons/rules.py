"""Rules: plain functions whose parameters are bound to the keys they read.

A rule fires when every input key holds a value, and again whenever an input's held value
changes; each firing adds a justification ``rule × min(inputs)`` for the value it returns
(``None`` means the rule has nothing to conclude). The rule engine lives beside the TMS and
talks to it only through :class:`corollary.BeliefBase` hooks.
"""

from __future__ import annotations

import functools
import inspect
import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..foundations._validate import check_unit
from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..foundations.values import check_key
from ..tms.kinds import KINDS, RULE, StepKind
from ..tms.records import make_items
from .registry import DEFINED

# the process-wide table that a second rule of a name silently replaced the first in: what a
# load by name finds is in corollary.reasons.registry now (DEFINED, which refuses a name two
# rules share)


class Rule:
    """A function wrapped as a rule; call it as the plain function it is.

    Parameters
    ----------
    fn : callable
        The function; each parameter reads one key.
    output : str
        The key it concludes (default: the function's name).
    inputs : mapping of parameter name to key, optional
        Keys for parameters whose names are not the keys themselves.
    confidence : float
        The step confidence, in [0, 1] (1.0: the rule itself is not in doubt).
    name : str, optional
        The name snapshots use (default: the function's qualified name).
    unless : list of keys and (key, value) pairs, optional
        Exceptions: each firing's conclusion holds only while none of them is held ("x
        unless y"); it comes back by itself when the exception goes.
    kind : StepKind, optional
        The kind of reason each firing adds (default :data:`~corollary.tms.RULE`): a kind
        registered with :func:`corollary.tms.register` whose ``by_rule`` is true, for a rule
        whose step, proof line or blame differ (docs/extending.md).
    """

    #: what corollary.reasons.registry reads to tell a rule from a tool
    registry_kind = "rule"

    def __init__(self, fn: Callable[..., Any], output: str | None = None,
                 inputs: Mapping[str, str] | None = None, confidence: float = 1.0,
                 name: str | None = None, unless: Sequence[str | tuple[str, Any]] = (),
                 kind: StepKind = RULE) -> None:
        if not callable(fn):
            raise InvalidTypeError("a rule wraps a function")
        if inputs is not None and not isinstance(inputs, Mapping):
            raise InvalidTypeError("a rule's inputs map parameter names to keys (a dict)")
        if name is not None and (not isinstance(name, str) or not name):
            raise InvalidInputError(f"a rule's name must be a non-empty string, got {name!r}")
        try:
            signature = inspect.signature(fn)
        except (TypeError, ValueError) as exc:
            raise InvalidTypeError(f"cannot read the parameters of {fn!r}: {exc}") from exc
        self.fn = fn
        functools.update_wrapper(self, fn)
        params = list(signature.parameters.values())
        for p in params:
            if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
                raise InvalidInputError(f"rule {fn.__name__}: *args/**kwargs cannot name keys")
        bound = dict(inputs or {})
        unknown = set(bound) - {p.name for p in params}
        if unknown:
            raise InvalidInputError(f"rule {fn.__name__}: no parameter named {sorted(unknown)}")
        self.params: tuple[str, ...] = tuple(p.name for p in params)
        self.inputs: tuple[str, ...] = tuple(check_key(bound.get(p, p)) for p in self.params)
        self.output = check_key(output if output is not None else fn.__name__)
        self.confidence = check_unit(confidence, "rule confidence")
        self.unless = make_items(list(unless) if isinstance(unless, tuple) else unless,
                                 "a rule's unless")
        if not isinstance(kind, StepKind) or not kind.by_rule or KINDS.get(kind.name) is not kind:
            raise InvalidInputError(f"a rule's kind is a registered StepKind of rules (by_rule), "
                                    f"not {kind!r}")
        self.kind = kind
        self.name = name or f"{fn.__module__}.{fn.__qualname__}"
        DEFINED.note(self)  # found by name when a snapshot or journal is loaded

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.fn(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<rule {self.name}: {', '.join(self.inputs)} -> {self.output}>"

    def combinations(self, held: Mapping[str, list[Any]]) -> list[tuple[Any, ...]]:
        """Every combination of held input beliefs (several only while a conflict is open)."""
        return list(itertools.product(*(held[k] for k in self.inputs)))


def rule(fn: Callable[..., Any] | None = None, *, output: str | None = None,
         inputs: Mapping[str, str] | None = None, confidence: float = 1.0,
         name: str | None = None, unless: Sequence[str | tuple[str, Any]] = (),
         kind: StepKind = RULE) -> Any:
    """Make a function a rule (usable bare, ``@rule``, or with options, ``@rule(output=...)``).

    Examples
    --------
    >>> @rule(output="growth", inputs={"q2": "revenue:Q2", "q3": "revenue:Q3"})
    ... def growth(q2, q3):
    ...     return (q3 - q2) / q2
    >>> growth.inputs, growth(100, 110)
    (('revenue:Q2', 'revenue:Q3'), 0.1)
    """
    def wrap(f: Callable[..., Any]) -> Rule:
        return Rule(f, output=output, inputs=inputs, confidence=confidence, name=name,
                    unless=unless, kind=kind)

    return wrap(fn) if fn is not None else wrap
