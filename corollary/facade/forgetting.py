"""``kb.forget``: erasing a document, a key, a source or a scope (docs/model.md, "Forgetting").

Forgetting is not retracting. A retraction withdraws a value and keeps it, with its reasons, to
be shown ("retracted: ..."); forgetting *erases*: the forgotten beliefs, their premises and
justifications, their text and values leave the base, and what rested only on them goes with
them, while a belief with other support stays IN, with its proof (the other support). What is
read afterwards is what the base would read had the forgotten things never been said, with one
exception kept on purpose: the trust ledger's counts (see below).

What is forgotten (:func:`erase`):

- ``key`` (optionally one ``value`` of it): every value of the key, or that one value; a
  document (the ``doc:...`` belief ``kb.remember`` writes) is a key like any other, so
  forgetting it forgets its text and every claim that cited it;
- ``source``: everything the source said, its premises and the claims it made;
- ``scope``: every key in the scope (``customer:42`` holds ``customer:42`` and
  ``customer:42:...``; :mod:`corollary.foundations.scope`): a right-to-erasure request.

A belief that loses a reason to the forgetting is forgotten too when no reason is left to it
(it rested only on what was forgotten, and its value came from it); a justification whose
exception names a forgotten key keeps its other exceptions, which leaves its label as it was
(an exception on a belief that does not exist is not held). Nogoods naming a forgotten belief
and the recorded verdicts of answers about one go too; the recall indexes are built again.

The trust ledger keeps its counts: the outcomes recorded from what is forgotten stay as
outcomes of their sources (how often a source was right carries no content of what it said),
but their ``key`` and ``reason`` (which name the key and may quote its value) are blanked.

Forgetting records no outcome: it is not blame. A journaled session erases the bytes of the
past as well (:mod:`corollary.facade.erasing`).

>>> from corollary import BeliefBase, ManualClock
>>> kb = BeliefBase(clock=ManualClock(0))
>>> kb.assert_("ann:pin", "4321", source="human:ann")
>>> kb.assert_("ann:city", "Nantes", source="human:ann")
>>> kb.assert_("ann:city", "Nantes", source="tool:crm")
>>> kb.forget(source="human:ann")
Forgotten(beliefs=1, reasons=2, kept=1, entries=0, checkpoints=0, outcomes=1)
>>> "ann:pin" in kb, kb.value("ann:city")
(False, 'Nantes')
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import attrs

from ..changes.base_changes import Forget
from ..changes.subjects import NO_VALUE, forget_subjects
from ..evidence.redaction import MARK, quoted_span
from ..foundations._validate import plain_text
from ..foundations.errors import InvalidInputError, InvalidTypeError, UnknownBeliefError
from ..foundations.scope import Scope, to_scope
from ..foundations.values import canon, check_key, check_text
from ..retrieval.lexical import LexicalIndex
from ..retrieval.vectors import VectorIndex
from ..tms import Belief, Engine, Justification
from .making import checked, make
from .operations import operation

if TYPE_CHECKING:  # pragma: no cover
    from ..promises.book import PromiseBook
    from .base import BeliefBase
    from .recall import Recaller

__all__ = ["ForgetSpec", "Forgotten", "Plan", "check_forget", "erase", "forget_subjects",
           "plan", "redact_outcomes"]


@attrs.frozen(slots=True)
class Forgotten:
    """What one ``kb.forget`` erased, as counts (never what: the caller knows what it asked).

    Attributes
    ----------
    beliefs : int
        Beliefs erased (the ones named, and those that rested only on them).
    reasons : int
        Premises and justifications erased (of erased beliefs, and of beliefs that stay).
    kept : int
        Beliefs that lost a reason but stay, on their other support.
    entries : int
        Journal entries rewritten (a journaled session; 0 for a plain base).
    checkpoints : int
        Checkpoints (and whole-state entries) rewritten.
    outcomes : int
        Ledger outcomes whose key and reason were blanked (their counts stay).
    """

    beliefs: int = 0
    reasons: int = 0
    kept: int = 0
    entries: int = 0
    checkpoints: int = 0
    outcomes: int = 0


@attrs.frozen(slots=True)
class ForgetSpec:
    """What to forget, checked: a key (and maybe one value of it), a source, or a scope.

    ``has_value`` tells a value of ``None`` given from no value given. Plain data: the journal
    applies the same spec to each past checkpoint it rewrites (:mod:`corollary.facade.erasing`)
    and never stores it."""

    key: str | None = None
    value: Any = None
    has_value: bool = False
    source: str | None = None
    scope: Scope | None = None

    def targets(self, engine: Engine) -> list[Belief]:
        """The beliefs the spec names in ``engine`` by key (none for a source: what goes of a
        source's is what its reasons alone held up, :func:`plan`)."""
        if self.key is not None:
            if not self.has_value:
                return engine.values_of(self.key)
            b = engine.find(self.key, canon(self.value))
            return [] if b is None else [b]
        if self.scope is not None:
            return [b for key in [k for k in engine.keys if self.scope.contains(k)]
                    for b in engine.values_of(key)]
        return []


def check_spec(key: Any, value: Any, has_value: bool, source: Any, scope: Any) -> ForgetSpec:
    """The arguments of ``kb.forget`` checked: exactly one of ``key``, ``source``, ``scope``."""
    given = [n for n, v in (("key", key), ("source", source), ("scope", scope)) if v is not None]
    if len(given) != 1:
        raise InvalidInputError("forget takes exactly one of key (with value, optionally), "
                                f"source or scope; got {', '.join(given) or 'none'}")
    if has_value and key is None:
        raise InvalidInputError("forget(value=...) needs the key the value is of")
    if key is not None:
        return ForgetSpec(key=check_key(key), value=canon(value) if has_value else None,
                          has_value=has_value)
    if source is not None:
        if not isinstance(source, str):
            raise InvalidTypeError(f"source must be a string, not {type(source).__name__}")
        return ForgetSpec(source=check_text(plain_text(source), "a source"))
    return ForgetSpec(scope=to_scope(scope))


@attrs.define(slots=True)
class Erased:
    """What :func:`erase` did to one engine: counts, and the keys it touched (for the journal's
    rewrite, which must know which past entries name them; never stored)."""

    beliefs: int = 0
    reasons: int = 0
    #: the beliefs that lost a reason (those not erased stay, on their other support)
    losers: set[Belief] = attrs.field(factory=set)
    #: keys with no value left, and (key, value identity) of the values erased
    keys: set[str] = attrs.field(factory=set)
    values: set[tuple[str, Any]] = attrs.field(factory=set)
    gone: dict[Belief, None] = attrs.field(factory=dict)
    #: the sentences redacted from documents that stay (the words of erased facts)
    words: set[str] = attrs.field(factory=set)
    #: removed justifications citing a document: (what it held up, the document, the quote)
    cited: list[tuple[Belief, Belief, str]] = attrs.field(factory=list)

    @property
    def kept(self) -> int:
        """How many beliefs lost a reason and stay."""
        return sum(1 for b in self.losers if b not in self.gone)


@attrs.define(slots=True)
class Plan:
    """What :func:`erase` will take out, found without changing anything (so a store that must
    be told first can refuse before the engine changes): the beliefs erased, the
    justifications removed, the premises dropped, and the beliefs that lose a reason."""

    gone: dict[Belief, None] = attrs.field(factory=dict)
    justs: dict[Justification, None] = attrs.field(factory=dict)
    premises: list[tuple[Belief, str]] = attrs.field(factory=list)
    losers: set[Belief] = attrs.field(factory=set)

    @property
    def keys(self) -> set[str]:
        """The keys of the beliefs erased (for the ledger's outcomes)."""
        return {b.key for b in self.gone}


def plan(engine: Engine, spec: ForgetSpec) -> Plan:
    """What forgetting ``spec`` takes out of ``engine`` (the module docstring): the beliefs it
    names, and, transitively, each belief left with no reason once its reasons from what is
    forgotten are gone. Changes nothing."""
    found = Plan()
    dropped: dict[Belief, set[str]] = {}
    queue: list[Belief] = list(spec.targets(engine))

    def lost(b: Belief) -> None:  # b lost a reason: erased when none is left
        gone_sources = dropped.get(b, set())
        if all(p.source in gone_sources for p in b.premises) and all(
                j in found.justs for j in b.justs):
            queue.append(b)
        else:
            found.losers.add(b)

    if spec.source is not None:
        for b in engine.holders_of(spec.source):
            found.premises.append((b, spec.source))
            dropped.setdefault(b, set()).add(spec.source)
            lost(b)
        for j in list(engine.by_step_source.get(spec.source, ())):
            if not j.kind.by_rule:
                found.justs[j] = None
                lost(j.output)
    while queue:
        b = queue.pop()
        if b in found.gone:
            continue
        found.gone[b] = None
        for j in _users(b):
            if j not in found.justs:
                found.justs[j] = None
                if j.output not in found.gone:
                    lost(j.output)
        for j in b.justs:
            found.justs[j] = None
        found.premises.extend((b, p.source) for p in b.premises
                              if p.source not in dropped.get(b, ()))
    return found


def erase(engine: Engine, spec: ForgetSpec, promises: PromiseBook | None = None,
          words: Iterable[str] = (), planned: Plan | None = None) -> Erased:
    """Erase from ``engine`` what ``spec`` names and what rests only on it (``planned``, or
    :func:`plan` now), and ``words`` from any text a belief holds (a past state the journal
    rewrites); the caller settles labels afterwards (the beliefs touched are marked)."""
    found = plan(engine, spec) if planned is None else planned
    done = Erased(losers=found.losers, gone=found.gone)
    for b, source in found.premises:
        engine.drop_premise(b, source)
        done.reasons += 1
    for j in found.justs:
        _remove(engine, j, done)
    for b in found.gone:
        b.withdrawn = None
        engine.forget_if_unused(b)
        done.beliefs += 1
        done.values.add((b.key, b.vid))
        if not engine.values_of(b.key):
            done.keys.add(b.key)
    if spec.source is None:  # a fact forgotten takes its words (not a source's: see docs)
        _redact_citations(engine, done)
    if words:
        _redact_words(engine, done, set(words))
    _drop_exceptions(engine, done)
    _drop_replaced(engine, done)
    _drop_nogoods(engine, done)
    if promises is not None and promises.verdicts:
        for slot in [s for s in promises.verdicts if s in done.values]:
            del promises.verdicts[slot]
    return done


def _remove(engine: Engine, j: Justification, done: Erased) -> None:
    """Take ``j`` out, noting the document and quote it cited (its words may go too)."""
    engine.remove_justification(j)
    done.reasons += 1
    document, quote = j.info.get("document"), j.info.get("quote")
    if isinstance(document, str) and isinstance(quote, str):
        cited = next((x for x in j.inputs if x.key == document), None)
        if cited is not None:
            done.cited.append((j.output, cited, quote))


def _redact_citations(engine: Engine, done: Erased) -> None:
    """The sentences that said an erased fact, in a document that stays (it said other things
    too), become :data:`~corollary.evidence.redaction.MARK`."""
    quotes: dict[Belief, list[str]] = {}
    for output, document, quote in done.cited:
        if output in done.gone and document not in done.gone and isinstance(document.value, str):
            quotes.setdefault(document, []).append(quote)
    for document, said in quotes.items():
        text = document.value
        for quote in said:
            span = quoted_span(text, quote)
            if span is not None:
                done.words.add(text[span[0]:span[1]])
                text = text[:span[0]] + MARK + text[span[1]:]
        if text != document.value:
            _rehome(engine, document, text)


def _redact_words(engine: Engine, done: Erased, words: set[str]) -> None:
    """``words`` (sentences redacted from a document in the present) out of every text, the
    longest first: a run of sentences that holds a shorter word goes whole, whatever a set's
    order (a string's hash changes with the process)."""
    ordered = sorted(words, key=lambda w: (-len(w), w))
    for b in [b for b in engine.beliefs() if isinstance(b.value, str)
              and any(w in b.value for w in words)]:
        text = b.value
        for w in ordered:
            text = text.replace(w, MARK)
        done.words.update(w for w in words if w in b.value)
        _rehome(engine, b, text)


def _rehome(engine: Engine, old: Belief, text: str) -> None:
    """``old`` (a document) becomes the value ``text`` of its key, with its premises, its
    reasons and the reasons that read it; ``old`` goes."""
    new = engine.belief(old.key, text, canon(text))
    for p in old.premises:
        engine.set_premise(new, p)
        engine.drop_premise(old, p.source)
    for j in list(_users(old)):
        engine.remove_justification(j)
        engine.add_justification(Justification(
            j.kind, j.name, j.output, tuple(new if x is old else x for x in j.inputs), j.step,
            j.info, j.unless))
    for j in list(old.justs):
        engine.remove_justification(j)
        engine.add_justification(Justification(j.kind, j.name, new, j.inputs, j.step, j.info,
                                               j.unless))
    new.withdrawn, old.withdrawn = old.withdrawn, None
    engine.forget_if_unused(old)


def _users(b: Belief) -> list[Justification]:
    users = b.users
    return list(users) if users else []


def _drop_exceptions(engine: Engine, done: Erased) -> None:
    """An exception naming an erased value, or a key with no value left, is taken out of the
    justifications that list it: they read the same (nothing it names is held), and what was
    forgotten is not kept in them. Two reasons of one belief left the same (same kind, name,
    inputs and exceptions) are one reason, the one made first (docs/model.md, "Forgetting")."""
    touched = {b.key for b in done.gone}

    def erased(item: Any) -> bool:
        return item[0] in done.keys or (item[0], item[2]) in done.values

    listing = {j: None for key in [k for k in engine.unless_watch if k in touched]
               for js in engine.unless_watch[key].values() for j in js}
    # Rewritten in the order they were made, never by identity (a set's order): two reasons
    # of one belief that differ only in what is taken out become one, and which one is kept
    # decides its valid time, so it must not depend on where objects live in memory
    made: dict[Justification, int] = {}  # a rewritten reason -> when its original was made
    for j in sorted(listing, key=lambda j: j.seq):
        kept = tuple(i for i in j.unless if not erased(i))
        if len(kept) == len(j.unless):
            continue
        engine.remove_justification(j)
        twin = _twin(j, kept)
        if twin is not None and made.get(twin, twin.seq) > j.seq:
            engine.remove_justification(twin)  # the same reason made later: j's is kept
        fresh = Justification(j.kind, j.name, j.output, j.inputs, j.step, j.info, kept)
        if engine.add_justification(fresh) is fresh:
            made[fresh] = j.seq


def _twin(j: Justification, unless: tuple[Any, ...]) -> Justification | None:
    """The reason of ``j``'s belief that ``j`` with only the exceptions ``unless`` is the same
    reason as (docs/model.md, "Forgetting"), if there is one."""
    for other in j.output.justs:
        if (other.kind == j.kind and other.name == j.name and other.inputs == j.inputs
                and other.unless == unless):
            return other
    return None


def _drop_replaced(engine: Engine, done: Erased) -> None:
    """A declared replacement names the value it replaces (``info["replaces"]``,
    :mod:`corollary.facade.depending`): an erased value is not named there either."""
    for key in {key for key, _ in done.values}:
        for b in engine.values_of(key):
            for j in b.justs:
                if "replaces" in j.info and (key, canon(j.info["replaces"])) in done.values:
                    del j.info["replaces"]


def _drop_nogoods(engine: Engine, done: Erased) -> None:
    """A nogood naming a key with no value left, or an erased value, goes."""
    for name, ng in list(engine.nogoods.items()):
        if any(item[0] in done.keys or (item[0], item[2]) in done.values for item in ng.items):
            del engine.nogoods[name]
            for key in {item[0] for item in ng.items}:
                found = engine.nogoods_by_key.get(key, [])
                if ng in found:
                    found.remove(ng)
                if not found:
                    engine.nogoods_by_key.pop(key, None)
            for item in ng.items:
                for b in engine.item_beliefs(item):
                    engine.mark(b)


def reindex(recaller: Recaller) -> None:
    """Build the recall indexes again: they hold the words (and an embedder's vectors) of what
    was forgotten. Retrievers added with ``kb.add_retriever`` follow the change feed, which
    tells them of each belief removed (docs/recall.md)."""
    old = recaller.vectors
    recaller.index = LexicalIndex(recaller.engine)
    if old is not None:
        if old.subscription is not None:
            old.subscription.stop()
        fresh = VectorIndex(old.embedder, old.sync)
        fresh.attach(recaller.engine)
        recaller.vectors = fresh
        recaller.retrievers = [fresh if r is old else r for r in recaller.retrievers]


def _note(text: Any, what: str) -> str | None:
    """``reason`` or ``by``: None, or some text."""
    if text is None:
        return None
    if not isinstance(text, str):
        raise InvalidTypeError(f"{what} must be a string, not {type(text).__name__}")
    checked: str = check_text(plain_text(text), what)
    if not checked.strip():
        raise InvalidInputError(f"{what} holds no text")
    return checked


_NO_VALUE: Any = NO_VALUE

#: The operation of a journal entry ``kb.forget`` erased (:mod:`corollary.facade.erasing`).
REDACTED_OP = "redacted"


@operation(change=Forget, snapshot=True)
def forget(kb: BeliefBase, key: str | None = None, value: object = _NO_VALUE, *,
           source: str | None = None, scope: str | Iterable[str] | Scope | None = None, reason: str | None = None,
           by: str | None = None) -> Forgotten:
    """Erase a key (or one ``value`` of it; a ``doc:...`` document), everything a
    ``source`` said, or every key in a ``scope``; return what went, as counts.

    What rested only on what is forgotten is erased with it; what has other support stays
    IN, with its proof. Nothing forgotten is readable afterwards, here or (in a journaled
    session) in the journal's past, its checkpoints, or other processes once they sync
    (docs/model.md, "Forgetting"; docs/journal.md, "Forgetting"). ``reason`` and ``by``
    (who asked) are kept in the journal's one entry saying that something was forgotten:
    keep what was forgotten out of them. Records no outcome.

    Raises
    ------
    InvalidInputError
        Not exactly one of ``key``, ``source``, ``scope``; an empty scope.
    UnknownBeliefError
        A key (or value) the base does not hold. A source or scope with nothing in it
        forgets nothing (an erasure asked twice is done).

    Examples
    --------
    >>> from corollary import BeliefBase, ManualClock
    >>> kb = BeliefBase(clock=ManualClock(0))
    >>> kb.assert_("customer:42:email", "a@b.c", source="tool:crm")
    >>> kb.assert_("customer:7:email", "x@y.z", source="tool:crm")
    >>> kb.forget(scope="customer:42").beliefs
    1
    >>> sorted(kb.keys())
    ['customer:7:email']
    """
    made: Forgotten = make(kb, check_forget(kb, Forget(key, value, source=source, scope=scope,
                                                      reason=reason, by=by)))
    return made


def check_forget(kb: BeliefBase, change: Forget) -> Forget:
    """A :class:`~corollary.changes.Forget`'s checks (``kb.forget``'s and ``apply``'s): exactly
    one of a key, a source and a scope (:func:`check_spec`), a reason and a ``by`` that are
    text (that a key is held is its effect's); the checked value."""
    value = change.value
    has_value = value is not _NO_VALUE
    check_spec(change.key, value if has_value else None, has_value, change.source, change.scope)
    return checked(change, reason=_note(change.reason, "reason"),
                   by=_note(change.by, "by (who asked)"))


def apply_forget(kb: BeliefBase, change: Forget) -> Forgotten:
    """The effect of a :class:`~corollary.changes.Forget` (``kb.forget``'s, its arguments
    checked, and its replay's): the key held, then what it names erased."""
    key, value, source, scope = change.key, change.value, change.source, change.scope
    has_value = value is not _NO_VALUE
    spec = check_spec(key, value if has_value else None, has_value, source, scope)  # its spec
    if spec.key is not None and not spec.targets(kb.parts.engine):
        what = spec.key if not has_value else f"{spec.key} = {value!r}"
        raise UnknownBeliefError(f"{what} is not in this base: nothing to forget")
    found = plan(kb.parts.engine, spec)
    early = _forget_outcomes(kb, spec, found.keys)  # a store that fails: nothing changed
    done = erase(kb.parts.engine, spec, kb.parts.promises, planned=found)
    if kb.parts.recaller is not None:
        reindex(kb.parts.recaller)
    kb.parts.key_index = None  # remember's key index: built again when asked
    for _ in kb.parts.calls.entries(kb.parts.engine):  # the calls behind erased premises go
        pass
    kb.parts.after_change(kb)
    entries, checkpoints, late = _erase_stored(kb, spec, done)
    return Forgotten(done.beliefs, done.reasons, done.kept, entries, checkpoints,
                     early + late)


def _forget_outcomes(kb: BeliefBase, spec: ForgetSpec, keys: set[str]) -> int:
    """A plain base's ledger: the outcomes about what goes blanked, their bytes freed, before
    the base changes (a journaled session does it in the forget entry's transaction)."""
    journal = kb.journal
    if journal is not None and journal.erases():
        return 0  # blanked in the forget entry's transaction (_erase_stored)
    store = kb.parts.trust.ledger.store
    redacted = redact_outcomes(store, spec, keys)
    reclaim = getattr(store, "reclaim", None)
    if redacted and reclaim is not None:
        reclaim()
    return redacted


def _erase_stored(kb: BeliefBase, spec: ForgetSpec, done: Erased) -> tuple[int, int, int]:
    """What storage keeps besides the outcomes: nothing for a plain base; a session's
    journal rewrites its past (:meth:`Journal.erase_stored
    <corollary.facade.journaled.Journal.erase_stored>`)."""
    journal = kb.journal
    if journal is not None and journal.erases():
        return journal.erase_stored(spec, done)
    return 0, 0, 0


def redact_outcomes(store: Any, spec: ForgetSpec, keys: Iterable[str]) -> int:
    """Blank the key and reason of the outcomes about what was forgotten (``keys``, and the
    spec's own key, scope or source); their counts stay. A store that cannot (no
    ``redact_outcomes``) keeps them as they are. How many."""
    redact = getattr(store, "redact_outcomes", None)
    if redact is None:
        return 0
    named = set(keys)
    if spec.key is not None:
        named.add(spec.key)
    prefixes = list(spec.scope.prefixes) if spec.scope is not None else []
    return int(redact(sorted(named), prefixes, spec.source))
