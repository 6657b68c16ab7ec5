"""The trust policy: priors by source kind, and the thresholds that read confidences."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..foundations._fields import Fields
from ..foundations._validate import check_unit, exact_str
from ..foundations.errors import (
    CorollaryError,
    InvalidInputError,
    InvalidTypeError,
    UnknownSourceError,
)
from ..foundations.values import STEP_KINDS

DEFAULT_PRIORS: dict[str, float] = {
    "human": 0.99,
    "tool": 0.95,
    "document": 0.9,
    "model": 0.9,
    "assumption": 0.6,
}
DEFAULT_TOOL_TRUST: dict[str, float] = {"high": 0.99, "medium": 0.9, "low": 0.7}



def _unit(name: str, value: Any) -> float:
    return check_unit(value, name)


def _mapping(name: str, value: Any) -> dict[Any, Any]:
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise InvalidTypeError(f"{name} must be a mapping, not {type(value).__name__}")
    return dict(value)


def _priors(value: Mapping[str, float] | None) -> dict[str, float]:
    merged = dict(DEFAULT_PRIORS)
    for kind, prior in _mapping("priors", value).items():
        if not isinstance(kind, str) or not kind or ":" in kind:
            raise InvalidInputError(f"a source kind must be a non-empty name without ':', got {kind!r}")
        if kind in STEP_KINDS:
            raise InvalidInputError(f"{kind!r} names reasoning steps, which have no prior")
        merged[kind] = _unit(f"prior of {kind!r}", prior)
    return merged


def _tool_trust(value: Mapping[str, float] | None) -> dict[str, float]:
    merged = dict(DEFAULT_TOOL_TRUST)
    for level, prior in _mapping("tool_trust", value).items():
        merged[str(level)] = _unit(f"tool trust {level!r}", prior)
    return merged


def _source_priors(value: Mapping[str, float] | None) -> dict[str, float]:
    return _mapping("source_priors", value)


def split_source(source: object) -> tuple[str, str]:
    """Split ``"kind:name"`` into its two parts, validating it.

    >>> split_source("tool:quote")
    ('tool', 'quote')
    """
    if not isinstance(source, str):
        raise InvalidTypeError(f"a source must be a string 'kind:name', not {type(source).__name__}")
    source = exact_str(source)
    kind, sep, name = source.partition(":")
    if not sep or not kind or not name:
        raise InvalidInputError(f"a source must look like 'kind:name', got {source!r}")
    return kind, name


@attrs.frozen(slots=True)
class TrustPolicy:
    """Where trust starts, and how confidences are read.

    Parameters
    ----------
    priors : mapping of source kind to prior, optional
        Overrides and additions to the default priors (``human`` 0.99, ``tool`` 0.95,
        ``document`` 0.9, ``model`` 0.9, ``assumption`` 0.6). A new kind here becomes a
        known kind.
    tool_trust : mapping of trust level to prior, optional
        Priors of tools declared with ``@tool(trust=...)`` (high 0.99, medium 0.9, low 0.7).
    source_priors : mapping of source to prior, optional
        Priors for individual sources (``"tool:scraper": 0.8``), ahead of their kind's.
    corroboration : bool
        Combine agreeing independent origins by noisy-OR (True) or keep only the best premise.
    min_confidence : float
        Below this a premise counts as faded, and the projector hides beliefs.

    Examples
    --------
    >>> TrustPolicy().prior("human:alice")
    0.99
    >>> TrustPolicy(priors={"sensor": 0.8}).prior("sensor:thermo")
    0.8
    >>> TrustPolicy().prior("tool:quote", declared="low")
    0.7
    """

    priors: dict[str, float] = attrs.field(factory=dict, converter=_priors)
    tool_trust: dict[str, float] = attrs.field(factory=dict, converter=_tool_trust)
    source_priors: dict[str, float] = attrs.field(factory=dict, converter=_source_priors)
    corroboration: bool = attrs.field(default=True)
    min_confidence: float = attrs.field(default=0.0)

    @source_priors.validator
    def _check_source_priors(self, _attribute: Any, value: dict[str, float]) -> None:
        for source, prior in value.items():
            split_source(source)
            _unit(f"prior of {source!r}", prior)

    @corroboration.validator
    def _check_corroboration(self, _attribute: Any, value: bool) -> None:
        if not isinstance(value, bool):
            raise InvalidTypeError(f"corroboration must be True or False, not {value!r}")

    @min_confidence.validator
    def _check_min_confidence(self, _attribute: Any, value: float) -> None:
        _unit("min_confidence", value)

    def kind_of(self, source: str) -> str:
        """The kind of ``source``, raising :class:`UnknownSourceError` for unknown kinds."""
        kind, _ = split_source(source)
        if kind not in self.priors and kind not in STEP_KINDS:
            known = ", ".join(sorted(self.priors))
            raise UnknownSourceError(f"unknown source kind {kind!r} in {source!r} (known: {known})")
        return kind

    def prior(self, source: str, declared: str | float | None = None) -> float:
        """The prior trust of ``source``; ``declared`` is a tool's declared trust, if any."""
        kind = self.kind_of(source)
        if kind in STEP_KINDS:
            raise InvalidInputError(f"{source!r} is a reasoning step, not a source with a prior")
        if source in self.source_priors:
            return float(self.source_priors[source])
        if declared is not None:
            if isinstance(declared, str):
                if declared not in self.tool_trust:
                    raise InvalidInputError(
                        f"unknown tool trust {declared!r} (known: {', '.join(sorted(self.tool_trust))})"
                    )
                return self.tool_trust[declared]
            return _unit("declared trust", declared)
        return self.priors[kind]

    def to_dict(self) -> dict[str, Any]:
        """Plain data, for snapshots."""
        return {
            "priors": dict(self.priors),
            "tool_trust": dict(self.tool_trust),
            "source_priors": dict(self.source_priors),
            "corroboration": self.corroboration,
            "min_confidence": self.min_confidence,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TrustPolicy:
        """The inverse of :meth:`to_dict`."""
        return cls(**dict(data))


def policy_fields(f: Fields, value: Any, field: str) -> TrustPolicy:
    """A :class:`TrustPolicy` as :meth:`TrustPolicy.to_dict` writes it: every field, and the
    default kinds and trust levels among the priors (the policy merges them in on load)."""
    data = f.mapping(value, field, ("priors", "tool_trust", "source_priors", "corroboration",
                                    "min_confidence"))
    for name, defaults in (("priors", DEFAULT_PRIORS), ("tool_trust", DEFAULT_TOOL_TRUST)):
        table = f.table(data[name], f"{field}.{name}")
        missing = [k for k in defaults if k not in table]
        if missing:
            f.fail(f"{field}.{name}", f"lacks the default entries {missing}")
        for k, v in table.items():
            f.text(k, f"{field}.{name} key")
            f.unit(v, f"{field}.{name}.{k}")
    for k, v in f.table(data["source_priors"], f"{field}.source_priors").items():
        f.source(k, f"{field}.source_priors key")
        f.unit(v, f"{field}.source_priors.{k}")
    f.boolean(data["corroboration"], f"{field}.corroboration")
    f.unit(data["min_confidence"], f"{field}.min_confidence")
    try:
        return TrustPolicy.from_dict(data)
    except (CorollaryError, TypeError, ValueError) as exc:
        f.fail(field, f"is not a valid policy: {exc}")

