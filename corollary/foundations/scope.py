"""Scopes: the part of a base one agent, recall or server may see, as a set of key prefixes.

A key is in a scope when it equals one of the scope's prefixes or starts with one followed by
``:`` (``customer:42`` holds ``customer:42`` and ``customer:42:email``, not ``customer:420``).
Whatever reads through a scope (``kb.recall(..., scope=...)``, ``Agent(..., scope=...)``,
``corollary mcp --scope``) shows nothing outside it: a proof names an input outside the scope
only as :data:`OUTSIDE` (:meth:`Scope.redact`), and a claim may not rest on one
(docs/integrations.md, "Scope").

This module knows keys only (strings and plain proof data), so every layer can use it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from .errors import InvalidInputError, InvalidTypeError, OutsideScopeError

__all__ = ["OUTSIDE", "Scope", "to_scope"]

#: What a proof shows in place of the key of a belief outside the scope.
OUTSIDE = "(outside the scope)"


def _check_prefix(prefix: Any) -> str:
    if not isinstance(prefix, str):
        raise InvalidTypeError(f"a scope prefix must be a string, not {type(prefix).__name__}")
    if not prefix.strip():
        raise InvalidInputError("a scope prefix must hold some text (an empty one would be "
                                "every key: pass scope=None for no scope)")
    if prefix.endswith(":"):
        raise InvalidInputError(f"a scope prefix does not end with ':' ({prefix!r}: write "
                                f"{prefix.rstrip(':')!r}, which holds {prefix!r}... keys)")
    return str.__str__(prefix)


@attrs.frozen(slots=True)
class Scope:
    """The key prefixes a reader may see (sorted, each once).

    Examples
    --------
    >>> scope = Scope.of(("customer:42", "store"))
    >>> [scope.contains(k) for k in ("customer:42", "customer:42:email", "customer:420", "store:hours")]
    [True, True, False, True]
    """

    prefixes: tuple[str, ...]
    _heads: tuple[str, ...] = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "_heads", tuple(p + ":" for p in self.prefixes))

    @classmethod
    def of(cls, spec: str | Iterable[str] | Scope) -> Scope:
        """A scope from one prefix, several, or a scope (checked: typed errors)."""
        if isinstance(spec, Scope):
            return spec
        if isinstance(spec, str):
            spec = (spec,)
        elif isinstance(spec, (bytes, dict)) or not isinstance(spec, Iterable):
            raise InvalidTypeError("scope must be a key prefix or an iterable of them, not "
                                   f"{type(spec).__name__}")
        prefixes = tuple(sorted({_check_prefix(p) for p in spec}))
        if not prefixes:
            raise InvalidInputError("a scope needs at least one key prefix (an empty scope "
                                    "would show nothing: pass scope=None for no scope)")
        return cls(prefixes)

    def contains(self, key: str) -> bool:
        """Whether ``key`` is in the scope.

        >>> Scope.of("a:b").contains("a:b:c"), Scope.of("a:b").contains("a:bc")
        (True, False)
        """
        return key in self.prefixes or key.startswith(self._heads)

    def check(self, key: str, what: str = "key") -> None:
        """Raise :class:`~corollary.foundations.errors.OutsideScopeError` unless ``key`` is in
        the scope (a string key: what is not one is the caller's own error to raise).

        >>> Scope.of("customer:42").check("customer:7:email")
        Traceback (most recent call last):
        ...
        corollary.foundations.errors.OutsideScopeError: key 'customer:7:email' is outside the scope (customer:42)
        """
        if isinstance(key, str) and not self.contains(key):
            raise OutsideScopeError(f"{what} {key!r} is outside the scope ({self})")

    def __str__(self) -> str:
        return ", ".join(self.prefixes)

    def redact(self, tree: Any) -> Any:
        """A copy of a proof tree (``Proof.to_dict()``) in which every belief outside the scope
        is named only as :data:`OUTSIDE`: no key, no value, no reasons (its label and
        confidence stay, since the step above it computes with them), and so is every other
        key the tree names (what a belief lost to, what defeats a step, a cited document).

        >>> Scope.of("a").redact({"key": "a", "value": 1, "label": "IN", "confidence": 0.9,
        ...     "reasons": [{"kind": "rule", "inputs": [{"key": "b", "value": 2, "label": "IN",
        ...     "confidence": 0.8, "reasons": []}]}]})["reasons"][0]["inputs"]
        [{'key': '(outside the scope)', 'value': None, 'label': 'IN', 'confidence': 0.8, 'outside_scope': True}]
        """
        if isinstance(tree, list):
            return [self.redact(t) for t in tree]
        top: dict[str, Any] = {}
        # (the node, where its copy goes); walked with a stack: proofs may be thousands deep
        stack: list[tuple[dict[str, Any], dict[str, Any]]] = [(tree, top)]
        while stack:
            node, copy = stack.pop()
            if not self.contains(node["key"]):
                copy.update(key=OUTSIDE, value=None, label=node["label"],
                            confidence=node["confidence"], outside_scope=True)
                continue
            copy.update((k, v) for k, v in node.items() if k != "reasons")
            for field in ("lost_to",):
                if field in node and not self.contains(node[field]["key"]):
                    copy[field] = {"key": OUTSIDE, "value": None,
                                   "confidence": node[field]["confidence"]}
            nogood = node.get("nogood")
            if nogood is not None and not self._nogood_inside(nogood):
                copy["nogood"] = {"nogood": nogood.get("nogood"), "items": [OUTSIDE],
                                  "culprit": None}
            if "reasons" not in node:
                continue
            copy["reasons"] = []
            for reason in node["reasons"]:
                step = self._reason(reason)
                copy["reasons"].append(step)
                if "inputs" in reason:
                    step["inputs"] = [{} for _ in reason["inputs"]]
                    stack.extend(zip(reason["inputs"], step["inputs"], strict=True))
        return top

    def _nogood_inside(self, nogood: dict[str, Any]) -> bool:
        culprit = nogood.get("culprit")
        return (culprit is None or self.contains(culprit["key"])) and all(
            self.contains(str(item).split(" = ", 1)[0]) for item in nogood.get("items", ()))

    def _reason(self, reason: dict[str, Any]) -> dict[str, Any]:
        """A reason's own fields, with the keys it names outside the scope redacted."""
        step = {k: v for k, v in reason.items() if k != "inputs"}
        if "document" in step and not self.contains(step["document"]):
            step["document"] = OUTSIDE
            step.pop("quote", None)
        names = step.get("names")  # a claim's inputs: {name: key} or a list of keys
        if isinstance(names, dict):
            step["names"] = {n: self._named(k) for n, k in names.items()}
        elif isinstance(names, (list, tuple)):
            step["names"] = [self._named(k) for k in names]
        if "unless" in step:
            step["unless"] = [self._exception(e) for e in step["unless"]]
        return step

    def _named(self, key: Any) -> Any:
        return key if not isinstance(key, str) or self.contains(key) else OUTSIDE

    def _exception(self, e: dict[str, Any]) -> dict[str, Any]:
        e = dict(e)
        if not self.contains(e["key"]):
            e.update(key=OUTSIDE, value=None, item=OUTSIDE)
        by = e.get("by")
        if by is not None and not self.contains(by["key"]):
            e["by"] = {"key": OUTSIDE, "value": None, "confidence": by["confidence"]}
        return e


def to_scope(spec: str | Iterable[str] | Scope | None) -> Scope | None:
    """``None`` (no scope: every key) or the :class:`Scope` that ``spec`` names.

    >>> to_scope(None) is None, to_scope("store")
    (True, Scope(prefixes=('store',)))
    """
    return None if spec is None else Scope.of(spec)
