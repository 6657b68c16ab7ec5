"""What a remembered fact says about other facts: ``depends_on``, ``if_changes`` and ``forget``
(docs/remember.md, "Dependencies, replacements, forgetting"; issue 37, item 2).

- ``depends_on``: a list of other facts, each ``{"subject", "attribute"}`` or ``{"key"}``: the
  fact is written with :meth:`~corollary.BeliefBase.depend`, resting on the values they hold
  when it is written;
- ``if_changes``: one other fact: the fact is written with
  :meth:`~corollary.BeliefBase.replace_when`, its key's value once that fact changes;
- ``forget``: ``true``: the text asks to forget the fact (its key, or its value when one is
  given), as :meth:`~corollary.BeliefBase.forget` forgets, after the call's change.

Each other fact's key resolves as a fact's own key does
(:mod:`corollary.facade.key_resolution`: never another subject's key, inside the scope), and
must hold a value when the fact is written (a key this call's other facts make counts). This
module reads the fields and resolves them; :mod:`corollary.facade.remembering` refuses or
writes the facts.

>>> read_links({"depends_on": [{"subject": "Ann", "attribute": "condition"}],
...             "forget": False})
Links(depends=(('Ann', 'condition'),), changes=None, forget=False)
>>> read_links({"if_changes": {"key": "ann:condition"}}).changes
'ann:condition'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ..foundations.errors import AmbiguousValueError, InvalidInputError, UnknownBeliefError
from ..foundations.scope import Scope
from ..foundations.values import check_key
from .key_resolution import KeyIndex, split_key, words

__all__ = ["MAX_DEPENDS", "Links", "Ref", "pending_keys", "read_links", "resolve_ref",
           "write_linked"]

#: The most facts one fact may rest on (the schema's ``maxItems``).
MAX_DEPENDS = 8

#: Another fact as a fact names it: ``(subject, attribute)``, or an existing key.
Ref = tuple[str, str] | str


@attrs.frozen(slots=True)
class Links:
    """The fields of one fact that name other facts, read (not resolved)."""

    depends: tuple[Ref, ...] = ()
    changes: Ref | None = None
    forget: bool = False


def _ref(raw: Any, where: str) -> Ref:
    if not isinstance(raw, Mapping):
        raise InvalidInputError(f"its {where} is not an object with subject and attribute, "
                                "or key")
    key = raw.get("key")
    if isinstance(key, str) and key.strip():
        return check_key(key.strip())
    subject, attribute = raw.get("subject"), raw.get("attribute")
    if not (isinstance(subject, str) and isinstance(attribute, str) and words(subject)
            and words(attribute)):
        raise InvalidInputError(f"its {where} names no subject and attribute, nor a key")
    return (subject, attribute)


def read_links(raw: Mapping[str, Any]) -> Links:
    """A fact's ``depends_on``, ``if_changes`` and ``forget``, or ``InvalidInputError`` naming
    what is malformed (a fact may not both rest on facts and wait for one to change)."""
    depends, changes, forget = raw.get("depends_on"), raw.get("if_changes"), raw.get("forget")
    if forget is None:
        forget = False
    if not isinstance(forget, bool):
        raise InvalidInputError("its forget is not true or false")
    refs: tuple[Ref, ...] = ()
    if depends is not None:
        if isinstance(depends, Mapping):  # one fact given bare: read as a list of one
            depends = [depends]
        if not isinstance(depends, list) or len(depends) > MAX_DEPENDS:
            raise InvalidInputError(f"its depends_on is not a list of at most {MAX_DEPENDS} "
                                    "facts")
        refs = tuple(dict.fromkeys(_ref(d, "depends_on item") for d in depends))
    change = None if changes is None else _ref(changes, "if_changes")
    if refs and change is not None:
        raise InvalidInputError("it has both depends_on and if_changes")
    if forget and (refs or change is not None):
        raise InvalidInputError("it asks to forget and names other facts")
    return Links(refs, change, forget)


def pending_keys(keys: Sequence[str]) -> dict[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """The keys one call's facts make, as :meth:`KeyIndex.resolve` takes them (``pending``)."""
    made: dict[tuple[str, ...], dict[str, tuple[str, ...]]] = {}
    for key in keys:
        parts = split_key(key)
        if parts is not None:
            made.setdefault(parts[0], {})[key] = parts[1]
    return made


def resolve_ref(ref: Ref, index: KeyIndex, embedder: Callable[[list[str]], Any] | None,
                made: Sequence[str], scope: Scope | None, known: Callable[[str], bool]
                ) -> str | None:
    """The key ``ref`` names: an existing key (``known``) or one this call's facts make
    (``made``), resolved as a fact's own key is; ``None`` when it names none of them or falls
    outside ``scope``."""
    if isinstance(ref, str):
        key: str | None = ref
    else:
        resolved = index.resolve(ref[0], ref[1], None, embedder, pending_keys(made), scope)
        key = resolved.key
    if key is None or not (scope is None or scope.contains(key)):
        return None
    return key if key in made or known(key) else None


def write_linked(kb: Any, source: str, docs: Sequence[Sequence[Any]],
                 facts: Sequence[Sequence[Any]], links: Sequence[Sequence[Any]]) -> None:
    """Write the facts of one remember that name other facts (``links``: ``[fact index,
    [keys it rests on], key whose change it waits for or None]``), in order, each citing its
    document. A root that holds no single value when the fact is written (an open conflict
    the call's own facts made) drops the link: the fact is claimed as said, without it."""
    for i, depends, changes in links:
        key, value, quote, doc, valid_from, cert, _merged = facts[i]
        citation = (docs[doc][0], quote)
        try:
            if depends:
                kb.depend(key, value, on=list(depends), source=source, citation=citation,
                          certainty=cert, valid_from=valid_from, learn=False)
            else:
                kb.replace_when(key, value, changes, source=source, citation=citation,
                                certainty=cert, valid_from=valid_from, learn=False)
        except (UnknownBeliefError, AmbiguousValueError):
            kb.claim(key, value, source, certainty=cert, citation=citation, learn=False,
                     valid_from=valid_from)
