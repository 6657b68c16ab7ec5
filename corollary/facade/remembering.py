"""``kb.remember``: conversations and documents become keyed, timed, cited beliefs
(docs/remember.md).

The model only extracts: one request (one per :data:`~corollary.facade.remember_request.REQUEST_TOKENS`
of text for a long input, never one per fact) offers it the tool ``facts``
(:mod:`corollary.facade.remember_request`). The base does the rest, deterministically:

1. each fact's quote is checked against the text it came from (the citation check of
   :mod:`corollary.evidence.citation`); a quote not there refuses the fact, and is one wrong
   outcome of the model's source (under ``learn_from_checks``), as a failed citation is;
2. each surviving fact's key is resolved against the base's keys
   (:mod:`corollary.facade.key_resolution`): never a key of another subject;
3. when no fact survives nothing is written (only the refusals' outcomes); otherwise, as one
   change, each text that a fact rests on becomes a document belief (``doc:<hash>``, its
   source the speaker, its validity from its time), and each fact a claim by the model citing
   it, valid from the time the text gives or the message's.

A journaled base keeps the change as one entry holding the model's facts, so that a replay or
another process never asks the model again (see :func:`remembered`).
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from contextlib import nullcontext
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import attrs

from ..changes.base_changes import Remember
from ..evidence.citation import normalise
from ..foundations._validate import check_int, plain_text
from ..foundations.clock import parse_instant, to_instant
from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..foundations.scope import Scope, to_scope
from ..foundations.values import canon, check_key
from ..tms import IN
from .assertions import check_certainty, check_valid_time
from .blame import Verdict, outcome_events
from .clause_keys import speaker_name, with_clause_keys
from .ending import check_ends_in_time, check_something_held, corrected
from .fact_support import read_entities, stated_time, value_in_quote
from .key_resolution import KeyIndex, fact_key, scoped_key, words
from .making import make
from .remember_links import Links, read_links, resolve_ref, write_linked
from .remember_request import (
    MAX_FACTS,
    REQUEST_TOKENS,
    SMALL_REQUEST_TOKENS,
    Piece,
    aask_model,
    ask_model,
    build_request,
    clause_groups,
    cut_at_limit,
    read_reply,
    reply_schema,
    split_pieces,
    with_part_quoted,
)

if TYPE_CHECKING:  # pragma: no cover
    from ..foundations.clock import Instant
    from ..models.protocol import AsyncModel, Model
    from .base import BeliefBase

__all__ = ["Refused", "Remembered", "RememberedList", "check_remember", "document_key"]

#: How many existing keys a request may show (within KEYS_TOKENS of lines).
SHOWN_KEYS = 20
#: The source of the facts when neither ``model_source=`` nor the model's name says one.
DEFAULT_MODEL_SOURCE = "model:remember"


@attrs.frozen(slots=True)
class Remembered:
    """One fact ``kb.remember`` believes now.

    Attributes
    ----------
    key : str
        The key it took (resolved: see ``merged_from``).
    value : object
    quote : str
        The words of the text that say it (checked).
    label : str
        ``"IN"`` or ``"OUT"`` once remembered (an older value arriving late is OUT now).
    confidence : float
    document : str
        The key of the document belief it rests on.
    superseded : tuple
        The values of ``key`` it superseded (held before, OUT now by time).
    merged_from : str or None
        The fact's own key (``subject:attribute``) when it was merged into an existing key.
    valid_from : float or None
        When it holds from (the fact's ``valid_from``, else the message's time).
    source : str
        The model's source: the claim's.
    """

    key: str
    value: Any
    quote: str
    label: str
    confidence: float
    document: str
    superseded: tuple[Any, ...] = ()
    merged_from: str | None = None
    valid_from: float | None = None
    source: str = DEFAULT_MODEL_SOURCE
    ended: float | None = None  # when the fact stopped holding (a fact with ended/valid_until)
    #: the keys it rests on (``depends_on``), the key whose change it waits for
    #: (``if_changes``), and whether it was forgotten (``forget``): docs/remember.md
    depends_on: tuple[str, ...] = ()
    if_changes: str | None = None
    forgotten: bool = False


@attrs.frozen(slots=True)
class Refused:
    """A fact the model named that was not remembered, and why.

    Attributes
    ----------
    fact : object
        The fact as the model gave it.
    reason : str
        ``"quote not found"``, ``"malformed: ..."`` or ``"outside the scope"``.
    counted : bool
        Whether it is a wrong outcome of the model's source (recorded once per base, however
        often the same fact of the same text is refused).
    key : str or None
        The key it named: the key it resolved to (outside the scope), else its own
        ``subject:attribute`` (``None`` when it has no readable subject and attribute).

    Examples
    --------
    >>> Refused({"subject": "Ann", "attribute": "pet", "value": "dog", "quote": "a dog"},
    ...         "quote not found", True, "ann:pet").named()
    {'reason': 'quote not found', 'key': 'ann:pet', 'value': 'dog', 'quote': 'a dog'}
    """

    fact: Any
    reason: str
    counted: bool
    key: str | None = None

    def named(self) -> dict[str, Any]:
        """The refusal as plain data naming the fact: ``reason``, ``key``, ``value`` and
        ``quote`` (each ``None`` where the fact gave none), what the surfaces answer."""
        fact = self.fact if isinstance(self.fact, dict) else {}
        value, quote = fact.get("value"), fact.get("quote")
        return {"reason": self.reason, "key": self.key,
                "value": value if isinstance(value, (str, int, float, bool)) else None,
                "quote": quote if isinstance(quote, str) else None}


class RememberedList(list):  # type: ignore[type-arg]
    """What ``kb.remember`` returns: the list of :class:`Remembered`, with ``refused`` (the
    facts not remembered, as :class:`Refused`), ``requests`` (how many model requests) and
    ``cut`` (how many replies the server cut at their token limit: their complete facts were
    read, the rest lost)."""

    def __init__(self, items: Iterable[Remembered] = (), refused: Sequence[Refused] = (),
                 requests: int = 0, cut: int = 0) -> None:
        super().__init__(items)
        self.refused: tuple[Refused, ...] = tuple(refused)
        self.requests = requests
        self.cut = cut


def document_key(source: str, at: float, text: str, scope: Scope | None = None) -> str:
    """The default key of a remembered text: ``doc:`` and a hash of its source, time and text;
    with a scope, inside it: its first prefix, then ``:doc:`` and the hash.

    >>> key = document_key("human:alice", 0.0, "I live in Paris.")
    >>> key.startswith("doc:"), len(key), key == document_key("human:alice", 0.0, "I live in Paris.")
    (True, 28, True)
    >>> key == document_key("human:alice", 1.0, "I live in Paris.")
    False
    >>> document_key("human:ann", 0.0, "Hi.", Scope.of("customer:42"))[:21]
    'customer:42:doc:738b5'
    """
    digest = hashlib.blake2b(f"{source}\x00{at!r}\x00{text}".encode(), digest_size=12)
    key = "doc:" + digest.hexdigest()
    return key if scope is None else f"{scope.prefixes[0]}:{key}"


#: The spelling of a document key :func:`document_key` makes (scoped or not).
DOCUMENT_KEY = re.compile(r"(?:.+:)?doc:[0-9a-f]{24}")


def _model_time(value: Any) -> float | None:
    """A ``valid_from`` a model wrote, read by the one parser of times
    (:func:`corollary.foundations.clock.parse_instant`: ISO 8601, or seconds); ``None`` when it
    cannot be read."""
    try:
        return parse_instant(value, "valid_from")
    except (InvalidInputError, InvalidTypeError):
        return None


@attrs.frozen(slots=True)
class _Doc:
    key: str
    text: str
    source: str
    at: float


@attrs.frozen(slots=True)
class _Fact:
    """A fact that passed its checks, with the key it resolved to."""

    key: str
    value: Any
    quote: str
    doc: int
    valid_from: float
    certainty: float | None
    merged_from: str | None
    known: bool = False  # already claimed from its document by the same source
    #: when the fact stops holding (its ``valid_until``, or the message's time with ``ended``);
    #: ``None``: a fact that holds on (docs/remember.md, "Ending a fact")
    until: float | None = None
    #: whether the text said when it started (``valid_from``): then it is claimed for its
    #: interval; otherwise it ends what the key holds
    started: bool = False
    #: what it says of other facts, as read (:mod:`corollary.facade.remember_links`), and
    #: resolved: the keys it rests on, the key whose change it waits for
    links: Links = Links()
    depends: tuple[str, ...] = ()
    changes: str | None = None


def _until(raw: dict[str, Any], said: float) -> float | None:
    """When a fact stops holding: its ``valid_until``, else the message's time ``said`` when
    it is ``ended``; ``None`` for a fact that holds on. ``InvalidInputError`` when malformed."""
    ended, until = raw.get("ended", False), raw.get("valid_until")
    if not isinstance(ended, bool):
        raise InvalidInputError("its ended is not true or false")
    if until is not None:
        when = _model_time(until)
        if when is None:
            raise InvalidInputError(f"its valid_until {until!r} is not an ISO 8601 time")
        return when
    return said if ended else None


def _fact_fields(raw: Any) -> tuple[str, str, Any, str, str | None, Any, float | None]:
    """A fact's fields, or ``InvalidInputError`` naming what is malformed."""
    if not isinstance(raw, dict):
        raise InvalidInputError(f"a fact is an object, not {type(raw).__name__}")
    for name in ("subject", "attribute", "quote"):
        if not isinstance(raw.get(name), str) or not words(raw[name]) and name != "quote":
            raise InvalidInputError(f"its {name} is not a non-empty string")
    if not raw["quote"].strip():
        raise InvalidInputError("its quote is empty")
    value = raw.get("value")
    if isinstance(value, str):
        value = plain_text(value)
        if not value.strip():
            raise InvalidInputError("its value is empty")
    elif isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInputError("its value is not finite")
    elif value is None and raw.get("forget") is True:
        pass  # "forget my partner": the key, whatever it holds
    elif not isinstance(value, (bool, int)):
        raise InvalidInputError("its value is not a string, number or boolean")
    canon(value)
    given = raw.get("key")
    given = given if isinstance(given, str) and given.strip() else None
    certainty = raw.get("certainty")
    if certainty is not None:
        if (isinstance(certainty, bool) or not isinstance(certainty, (int, float))
                or not 0.0 < certainty <= 1.0):
            raise InvalidInputError("its certainty is not a number in (0, 1]")
        certainty = float(certainty)
    valid_from = raw.get("valid_from")
    if valid_from is not None and _model_time(valid_from) is None:
        raise InvalidInputError(f"its valid_from {valid_from!r} is not an ISO 8601 time")
    return (raw["subject"], raw["attribute"], value, raw["quote"], given, valid_from,
            certainty)


def remember(kb: BeliefBase, text: str | None = None, *, source: str | None = None,
             model: Model, at: Instant | None = None, document: str | None = None,
             scope: str | Iterable[str] | Scope | None = None,
             messages: Sequence[Mapping[str, object]] | None = None,
             model_source: str | None = None, max_facts: int = MAX_FACTS,
             request_tokens: int = REQUEST_TOKENS,
             small_model: bool | None = None) -> RememberedList:
    """Remember what ``text`` (or the chat ``messages``) says, as cited beliefs.

    Parameters
    ----------
    text : str, optional
        The text, said by ``source`` at ``at``.
    source : str
        Who said it (``"human:alice"``, ``"document:handbook"``): the document's source.
    model : Model
        Any object with ``complete(messages, tools)`` (:mod:`corollary.models`).
    at : float or datetime, optional
        When it was said (default: the clock's now): the facts hold from then, unless the
        text says when they started.
    document : str, optional
        The key of the document belief (default ``doc:<hash of source, time and text>``).
    scope : str or list of str, optional
        Key prefixes: only keys in them are shown to the model, and a fact whose key falls
        outside is refused (not counted against the model).
    messages : list of dict, optional
        The chat form, instead of ``text``: ``{"speaker": source, "text": str, "at": t}``
        each (``at`` optional, ``document`` optional), each message its own document.
    model_source : str, optional
        The facts' source (default: the model's name as ``model:<name>``, else
        ``model:remember``).
    max_facts : int
        A reply naming more facts is refused whole (``InvalidInputError``), nothing changed.
    request_tokens : int
        The budget of text in one request; a longer input is sent in several.
    small_model : bool, optional
        Requests in small-model mode (docs/models.md); default: the model's ``small_model``.

    Returns
    -------
    RememberedList
        A list of :class:`Remembered`, with ``.refused``, ``.requests`` and ``.cut``.

    Raises
    ------
    InvalidInputError, InvalidTypeError
        Bad arguments, or a reply over ``max_facts``; nothing changed.
    ModelConnectionError
        The model could not be reached; nothing changed.
    ModelResponseError
        The reply's ``facts`` call is malformed; nothing changed.

    Examples
    --------
    >>> from corollary import BeliefBase, ManualClock
    >>> from corollary.models import Reply, ScriptedModel, ToolCall
    >>> fact = {"subject": "Alice", "attribute": "city", "value": "Paris",
    ...         "quote": "I live in Paris"}
    >>> model = ScriptedModel([Reply(None, [ToolCall("c1", "facts", {"facts": [fact]})])])
    >>> kb = BeliefBase(clock=ManualClock(0))
    >>> [(r.key, r.value, r.label) for r in kb.remember(
    ...     "I live in Paris.", source="human:alice", model=model)]
    [('alice:city', 'Paris', 'IN')]
    """
    plan = _remember_plan(kb, text, source, model, at, document, scope, messages,
                               model_source, max_facts, request_tokens, small_model)
    named: list[tuple[Any, tuple[int, ...]]] = []
    cut = 0
    for asked, group in enumerate(plan.groups, 1):
        request, tools = plan.request(group)
        reply = ask_model(model, request, tools, "facts", reply_schema(group, plan.max_facts))
        cut += cut_at_limit(reply)
        plan.read(reply, group, asked, named)
    return _remember_named(kb, plan, named, cut)


async def aremember(kb: BeliefBase, text: str | None = None, *, source: str | None = None,
                    model: Model | AsyncModel, at: Instant | None = None,
                    document: str | None = None, scope: str | Iterable[str] | Scope | None = None,
                    messages: Sequence[Mapping[str, object]] | None = None,
                    model_source: str | None = None, max_facts: int = MAX_FACTS,
                    request_tokens: int = REQUEST_TOKENS,
                    small_model: bool | None = None) -> RememberedList:
    """:meth:`remember`, awaiting the model: its ``acomplete`` when it has one, else its
    ``complete`` in a worker thread, so the event loop is never blocked while the model
    answers. Arguments, result and errors as :meth:`remember`; the checks and the change
    run in the caller's thread once the replies are in.

    Examples
    --------
    >>> import asyncio
    >>> from corollary import BeliefBase, ManualClock
    >>> from corollary.models import Reply, ScriptedModel, ToolCall
    >>> fact = {"subject": "Alice", "attribute": "city", "value": "Paris",
    ...         "quote": "I live in Paris"}
    >>> model = ScriptedModel([Reply(None, [ToolCall("c1", "facts", {"facts": [fact]})])])
    >>> kb = BeliefBase(clock=ManualClock(0))
    >>> [(r.key, r.label) for r in asyncio.run(kb.aremember(
    ...     "I live in Paris.", source="human:alice", model=model))]
    [('alice:city', 'IN')]
    """
    plan = _remember_plan(kb, text, source, model, at, document, scope, messages,
                               model_source, max_facts, request_tokens, small_model)
    named: list[tuple[Any, tuple[int, ...]]] = []
    cut = 0
    for asked, group in enumerate(plan.groups, 1):
        request, tools = plan.request(group)
        reply = await aask_model(model, request, tools, "facts",
                                 reply_schema(group, plan.max_facts))
        cut += cut_at_limit(reply)
        plan.read(reply, group, asked, named)
    return _remember_named(kb, plan, named, cut)


def _remember_plan(kb: BeliefBase, text: Any, source: Any, model: Any, at: Any, document: Any,
                   scope: Any, messages: Any, model_source: Any, max_facts: Any,
                   request_tokens: Any, small_model: Any) -> _Plan:
    """Everything a call checks and prepares before the model is asked (nothing changes)."""
    if kb.session_id is not None:
        kb.sync()  # other writers' keys and documents count
    scopes = to_scope(scope)
    docs = _remember_docs(kb, text, source, at, document, messages, scopes)
    max_facts = check_int(max_facts, "max_facts", low=0)
    request_tokens = check_int(request_tokens, "request_tokens", low=16)
    claimer = _remember_source(kb, model, model_source)
    speakers = [d.source.partition(":")[2] for d in docs]
    shown = _shown_keys(kb, _query(speakers, docs), scopes)
    pieces = [Piece(i, d.text, d.source, _shown_time(d.at) if messages is not None else "",
                    messages is not None) for i, d in enumerate(docs)]
    small = (getattr(model, "small_model", False) is True if small_model is None
             else bool(small_model))
    groups = (clause_groups(split_pieces(pieces, min(request_tokens, SMALL_REQUEST_TOKENS)))
              if small else split_pieces(pieces, request_tokens))
    return _Plan(docs, scopes, claimer, shown, groups, max_facts, small)


def _remember_named(kb: BeliefBase, plan: _Plan, named: list[tuple[Any, tuple[int, ...]]],
                    cut: int) -> RememberedList:
    kept, refused = _check_facts(kb, named, plan.docs, plan.scopes, plan.claimer)
    kept, forgets = linked_facts(kb, kept, plan.docs, refused, plan.scopes)
    made = _remember_kept(kb, kept, refused, plan.docs, plan.claimer, len(plan.groups),
                               cut)
    return forget_facts(kb, made, forgets, plan.docs)


def _remember_kept(kb: BeliefBase, kept: list[_Fact], refused: list[tuple[Refused, str]],
                   docs: list[_Doc], claimer: str, requests: int, cut: int = 0
                   ) -> RememberedList:
    """The new checked facts remembered (one change, :meth:`_remembered`, with the
    documents they cite), and the ends the facts state (:meth:`_ending_facts`); the facts
    already remembered from their document returned as they stand, nothing written for
    them; nothing new: only the outcomes of the refusals counted against the model (each
    refusal's once: :func:`_refusal_identity`)."""
    kept, ends = _ending_facts(kb, kept, docs, refused)
    counted = [[r.reason, ident] for r, ident in refused if r.counted]
    new = [f for f in kept if not f.known]
    made: list[Remembered] = []
    if not new and not ends:
        if counted and kb.learn_from_checks:  # the outcomes alone: no document, no entry
            kb.ledger.record_many(
                _refusal_events(kb, claimer, counted))
    else:
        used = sorted({f.doc for f in new} | {int(e[3]) for e in ends})
        renumber = {d: i for i, d in enumerate(used)}
        doc_rows = [[docs[d].key, docs[d].text, docs[d].source, docs[d].at] for d in used]
        fact_rows = [[f.key, f.value, f.quote, renumber[f.doc], f.valid_from, f.certainty,
                      f.merged_from] for f in new]
        extra: dict[str, Any] = (
            {"ends": [[*e[:3], renumber[e[3]], *e[4:]] for e in ends]} if ends else {})
        links = [[i, list(f.depends), f.changes] for i, f in enumerate(new)
                 if f.depends or f.changes is not None]
        if links:
            extra["links"] = links
        made = make(kb, check_remember(kb, Remember(doc_rows, claimer, fact_rows, counted,
                                                    **extra)))
    fresh = iter(made)
    _sync_beliefs(kb, [(f.key, f.value) for f in kept if f.known])
    results = [attrs.evolve(_result(kb, f.key, f.value, f.quote, docs[f.doc].key,
                                    f.valid_from, f.merged_from, claimer)
                            if f.known else next(fresh),
                            depends_on=f.depends, if_changes=f.changes) for f in kept]
    results.extend(fresh)  # the ends', after the facts'
    return RememberedList(results, [r for r, _ in refused], requests, cut)


def check_remember(kb: BeliefBase, change: Remember) -> Remember:
    """A :class:`~corollary.changes.Remember`'s checks (``kb.remember``'s, once the model
    answered, and ``apply``'s): its rows (:func:`check_rows`; its end rows against what the
    base holds are its effect's, before it writes anything); the value."""
    check_rows(kb, change.docs, change.source, change.facts, change.ends, change.links)
    return change


def apply_remember(kb: BeliefBase, change: Remember) -> list[Remembered]:
    """The effect of a :class:`~corollary.changes.Remember` (``kb.remember``'s change once the
    model answered, its rows checked, and its replay's): :func:`remembered` with its
    fields."""
    docs: Any = change.docs  # plain rows: an entry's, or remember's own
    facts: Any = change.facts
    refusals: Any = change.refusals
    ends: Any = change.ends
    links: Any = change.links
    return remembered(kb, docs, change.source, facts, refusals, ends, links)


def remembered(kb: BeliefBase, docs: list[list[Any]], source: str, facts: list[list[Any]],
               refusals: list[Any], ends: Sequence[list[Any]] = (),
               links: Sequence[list[Any]] = ()) -> list[Remembered]:
    """The change of one remember (the base's declared ``_remembered``): the documents
    asserted and the facts claimed, with the outcomes of the checks recorded first (all or
    nothing). Its arguments are plain data: a journaled base keeps them as its entry, and a
    replay runs this again with them (its rows checked: :func:`check_remember`)."""
    written = {row[0] for row in docs} | {row[0] for row in facts}
    for key, value, *_, started, _merged in ends:  # kb.end's state checks, before any write
        if started is None:
            check_ends_in_time(kb)
            if key not in written:  # else what it ends is written first: kb.end checks it
                check_something_held(kb, key, value)
    learn = kb.learn_from_checks
    items: list[Verdict] = []
    events: list[dict[str, Any]] = []
    if learn:
        rel = kb.parts.trust.reliability(source, kb.parts.sync.outcomes())[0]
        # an entry written before issue 35 kept each refusal as its reason alone
        items = [(source, False, f"remember: {why}", None, None) for why in refusals
                 if isinstance(why, str)]
        events = _refusal_events(kb, source, [r for r in refusals if not isinstance(r, str)])
        for key, _value, _quote, doc, _vf, cert, _m in facts:
            items.append((source, True, f"citation in {docs[doc][0]} for {key} found", key,
                          rel * (1.0 if cert is None else cert)))
    rules = kb.parts.rules.active
    if not rules:  # recorded before the change, as the base's operations do
        _record_checks(kb, items, events)
    with kb.parts.rules.transaction() if rules else nullcontext():
        for key, text, speaker, at in docs:
            kb.assert_(key, text, speaker, valid_from=at)  # said then, and true since
        linked = {link[0] for link in links}  # written once what they name is
        for i, (key, value, quote, doc, valid_from, cert, _merged) in enumerate(facts):
            if i not in linked:
                kb.claim(key, value, source, certainty=cert, citation=(docs[doc][0], quote),
                         learn=False, valid_from=valid_from)  # ordered in time
        write_linked(kb, source, docs, facts, links)
        for key, value, quote, _doc, _vf, _cert, merged in facts:
            if merged is not None:
                _note_merge(kb.parts.engine, key, value, source, quote, merged)
        for key, value, quote, doc, until, cert, started, merged in ends:
            if started is None:  # what the key holds ends then, on the speaker's word
                kb.end(key, value, source=docs[doc][2], at=until, reason=quote,
                       certainty=cert)
            else:  # a fact said to have held for an interval
                kb.claim(key, value, source, certainty=cert, citation=(docs[doc][0], quote),
                         learn=False, valid_from=started, valid_until=until)
                if merged is not None:
                    _note_merge(kb.parts.engine, key, value, source, quote, merged)
        if rules:  # after the rules fired: a rule failing undoes the outcomes too
            _record_checks(kb, items, events)
    _sync_beliefs(kb, [(f[0], f[1]) for f in facts])
    out = [_result(kb, key, value, quote, docs[doc][0], valid_from, merged, source)
           for key, value, quote, doc, valid_from, _cert, merged in facts]
    for key, value, quote, doc, until, _cert, started, merged in ends:
        b = None if value is None else kb.parts.engine.find(key, canon(value))
        kb.parts.lookup.sync([b] if b is not None else [])
        held = b is not None and b.label is IN
        out.append(Remembered(key, value, quote, "IN" if held else "OUT",
                              b.conf if held and b is not None else 0.0, docs[doc][0], (),
                              merged, started, source, until))
    return out


def check_rows(kb: BeliefBase, docs: Any, source: Any, facts: Any, ends: Any,
               links: Any) -> None:
    """Refuse, before anything changes, the rows of a remember (:func:`remembered`'s plain
    data: a ``Remember`` value applied, an entry replayed) that one of its inner changes
    would refuse half-way through, after the documents and the facts before it were
    written: a row of the wrong shape, a key that is none, a fact naming no document of the
    call, a value that is no belief's, a time or certainty that is none, a reasoning step
    for a source, a link to no fact (``InvalidInputError``/``InvalidTypeError``)."""
    def rows(given: Any, width: int, what: str) -> list[Sequence[Any]]:
        if isinstance(given, (str, bytes, Mapping)) or not isinstance(given, Sequence):
            raise InvalidTypeError(f"a remember's {what}s are a list of rows, not {given!r}")
        for row in given:
            if isinstance(row, (str, bytes)) or not isinstance(row, Sequence) or (
                    len(row) != width):
                raise InvalidInputError(f"a remember's {what} is a row of {width}: {row!r}")
        return list(given)

    def said_by(who: Any, doing: str) -> None:
        if not isinstance(who, str) or not who:
            raise InvalidTypeError(f"a remember's source is a non-empty string, not {who!r}")
        kb.parts.trust.check_source(plain_text(who), doing)

    def document(doc: Any) -> None:
        if type(doc) is not int or not 0 <= doc < len(docs):
            raise InvalidInputError(f"a remembered fact names document {doc!r} of {len(docs)}")

    said_by(source, "claims come from sources")
    for key, text, speaker, at in rows(docs, 4, "document"):
        check_key(key)
        canon(text)
        said_by(speaker, "documents come from sources")
        check_valid_time(at, None)
    for key, value, _quote, doc, valid_from, cert, _merged in rows(facts, 7, "fact"):
        check_key(key)
        canon(value)
        document(doc)
        check_valid_time(valid_from, None)
        check_certainty(cert)
    for key, value, _quote, doc, until, cert, started, _merged in rows(ends, 8, "end"):
        check_key(key)
        canon(value)
        document(doc)
        check_valid_time(started, until)
        check_certainty(cert)
    for i, depends, changes in rows(links, 3, "link"):
        if type(i) is not int or not 0 <= i < len(facts):
            raise InvalidInputError(f"a remember's link names fact {i!r} of {len(facts)}")
        for key in [*(depends or ()), *(() if changes is None else (changes,))]:
            check_key(key)


def _refusal_events(kb: BeliefBase, source: str, refusals: Sequence[Any]) -> list[dict[str, Any]]:
    """The ledger events of refusals given as ``[reason, identity]``: each event's id
    derives from the base and the refusal's identity, so the same refusal is stored once."""
    now = kb.now()
    return [event for reason, ident in refusals for event in outcome_events(
        f"{kb.parts.uid}:remember:{ident}", 0,
        [(source, False, f"remember: {reason}", None, None)], now, None)]


def _record_checks(kb: BeliefBase, items: list[Verdict], events: list[dict[str, Any]]) -> None:
    """Record one remember's outcomes as one ledger batch: ``items`` numbered by the
    operation (as :meth:`_record` numbers them), ``events`` made already. A journal's
    replay records nothing (the entry's outcomes were committed with it)."""
    if not (items or events):
        return
    journal = kb.journal
    if journal is None or not journal.replaying:
        kb.ledger.record_many([
            *outcome_events(kb.parts.uid, kb.parts.ops, items, kb.now(), None), *events])
    kb.parts.ops += 1


def _ending_facts(kb: BeliefBase, kept: list[_Fact], docs: list[_Doc],
                  refused: list[tuple[Refused, str]]
                  ) -> tuple[list[_Fact], list[list[Any]]]:
    """The facts that hold on, and the rows of those that stop holding: ``[key, value or
    None, quote, doc, until, certainty, valid_from or None, merged_from]``. A fact whose
    text said when it started is claimed for its interval; one that did not ends what the
    key holds then (``kb.end`` on the speaker's word, the quote as its reason; the value
    named when it is one the key has now; a key this call's other facts make is ended
    whatever it holds then). An end the base cannot take is refused, not
    counted against the model: a policy deciding by something else than time, a key never
    seen, a value that does not hold then (docs/remember.md, "Ending a fact")."""
    held, ends = [], []
    claimed = {f.key for f in kept if f.until is None}  # keys this call's facts make
    for f in kept:
        if f.until is None:
            held.append(f)
            continue
        raw = {"key": f.key, "value": f.value, "quote": f.quote}
        if f.started:
            if not f.until > f.valid_from:
                refusal = Refused(raw, "malformed: its valid_until is not after its "
                                       "valid_from", True, f.key)
                refused.append((refusal, _refusal_identity(refusal, docs, [f.doc])))
                continue
            ends.append([f.key, f.value, f.quote, f.doc, f.until, f.certainty,
                         f.valid_from, f.merged_from])
            continue
        why = None
        value = f.value if kb.parts.engine.find(f.key, canon(f.value)) is not None else None
        policy = kb.conflict_policy
        if policy is not None and getattr(policy, "mode", None) != "time":
            why = "ending a fact needs conflict_policy=PreferNewer() or no policy"
        elif not kb.parts.engine.values_of(f.key) and f.key not in claimed:
            why = f"nothing to end: {f.key} holds no value"
        elif value is not None and kb.at(f.until).label(f.key, value) != "IN":
            why = f"nothing to end: {f.key} = {value!r} does not hold then"
        elif corrected(kb.parts.engine, f.key, docs[f.doc].source, f.until) is not None:
            why = f"nothing to end: {docs[f.doc].source} said it from that very time"
        if why is not None:
            refusal = Refused(raw, why, False, f.key)
            refused.append((refusal, _refusal_identity(refusal, docs, [f.doc])))
            continue
        ends.append([f.key, value, f.quote, f.doc, f.until, f.certainty, None, f.merged_from])
    return held, ends


def _remember_docs(kb: BeliefBase, text: Any, source: Any, at: Any, document: Any,
                   messages: Any, scopes: Scope | None) -> list[_Doc]:
    if (text is None) == (messages is None):
        raise InvalidInputError("remember takes a text or messages=, not both or neither")
    if messages is None:
        if not isinstance(text, str):
            raise InvalidTypeError(f"text must be a str, not {type(text).__name__}")
        if source is None:
            raise InvalidInputError("remember(text) needs source=: who said it")
        items: list[Mapping[str, Any]] = [{"speaker": source, "text": text, "at": at,
                                           "document": document}]
    else:
        if source is not None or document is not None:
            raise InvalidInputError("with messages=, each message names its speaker and "
                                    "document: pass no source= or document=")
        if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
            raise InvalidTypeError("messages must be a list of dicts")
        if not messages:
            raise InvalidInputError("messages must not be empty")
        items = list(messages)
    now = kb.now()
    docs: list[_Doc] = []
    for i, m in enumerate(items):
        where = "" if messages is None else f"message {i}: "
        if not isinstance(m, Mapping):
            raise InvalidTypeError(f"{where}a message is a dict, not {type(m).__name__}")
        extra = set(m) - {"speaker", "text", "at", "document"}
        if extra:
            raise InvalidInputError(f"{where}unknown fields {sorted(map(str, extra))}")
        body, speaker = m.get("text"), m.get("speaker")
        if not isinstance(body, str):
            raise InvalidTypeError(f"{where}text must be a str")
        body = plain_text(body)
        if not body.strip():
            raise InvalidInputError(f"{where}the text is empty")
        if not isinstance(speaker, str):
            raise InvalidTypeError(f"{where}the speaker must be a source 'kind:name'")
        speaker = plain_text(speaker)
        kb.parts.trust.check_source(speaker, "a text's speaker is a source")
        stated = to_instant(m.get("at"), f"{where}at")  # None: not given
        when = now if stated is None else stated
        if when > now:  # its document would hold only from then: nothing to rest on now
            raise InvalidInputError(f"{where}at {when!r} is after the clock's now ({now!r})")
        key = m.get("document")
        key = document_key(speaker, when, body, scopes) if key is None else check_key(key)
        if scopes is not None:  # a scoped caller's document is its own to forget
            scopes.check(key, f"{where}document")
        docs.append(_Doc(key, body, speaker, when))
    if len({d.key for d in docs}) != len(docs):
        raise InvalidInputError("two messages have one document key")
    for d in docs:
        held = [b for b in kb.parts.engine.values_of(d.key) if b.value != d.text]
        if held:
            raise InvalidInputError(f"document {d.key!r} already holds another text")
    return docs


def _remember_source(kb: BeliefBase, model: Any, model_source: Any) -> str:
    if model_source is None:
        name = getattr(model, "name", None)
        if not isinstance(name, str):
            name = getattr(model, "model", None)
        if isinstance(name, str) and name.strip():
            model_source = name if ":" in name else f"model:{name}"
        else:
            model_source = DEFAULT_MODEL_SOURCE
    source = plain_text(model_source)
    kb.parts.trust.check_source(source, "facts are claims by the model's source")
    return source  # type: ignore[no-any-return]


def _shown_keys(kb: BeliefBase, text: str, scopes: Scope | None) -> list[str]:
    """The existing keys the request shows (the keys recall finds for the text, documents
    left out, within the key budget)."""
    if not kb.parts.engine.keys:
        return []
    from .remember_request import KEYS_TOKENS
    lines: list[str] = []
    used = 0
    hits = kb.recall(text, limit=SHOWN_KEYS + 8)
    for r in hits:
        if DOCUMENT_KEY.fullmatch(r.key) or not (scopes is None or scopes.contains(r.key)):
            continue
        line = f"{r.key} = {r.value!r}"[:200]
        used += len(line) // 4 + 1
        if used > KEYS_TOKENS or len(lines) >= SHOWN_KEYS:
            break
        lines.append(line)
    return lines


def _key_index(kb: BeliefBase) -> KeyIndex:
    parts = kb.parts
    index = parts.key_index
    if index is None or index.engine is not parts.engine:
        index = parts.key_index = KeyIndex(parts.engine)
    return index


def _check_facts(kb: BeliefBase, named: list[tuple[Any, tuple[int, ...]]], docs: list[_Doc],
                 scopes: Scope | None, claimer: str
                 ) -> tuple[list[_Fact], list[tuple[Refused, str]]]:
    """Each fact's checks (the quote, the shape, the scope) and its resolved key, each
    distinct claim once (same key, value and document: the first of a reply's repeats), a
    claim this source already made from the document marked ``known``; each refusal with
    its identity (:func:`_refusal_identity`), each once. Nothing changes here."""
    kept: list[_Fact] = []
    refused: dict[str, Refused] = {}
    seen: set[tuple[str, Any, int, bool]] = set()
    index = _key_index(kb)
    made: dict[tuple[str, ...], dict[str, tuple[str, ...]]] = {}  # this call's new keys
    texts = [normalise(d.text) for d in docs]  # each text normalised once, not per fact
    for raw, candidates in named:
        raw = read_entities(raw, "\n".join(docs[d].text for d in candidates))
        try:
            subject, attribute, value, quote, given, valid_from, certainty = _fact_fields(raw)
            links = read_links(raw)
        except InvalidInputError as exc:
            _refuse(refused, Refused(raw, f"malformed: {exc}", True, _own_key(raw)),
                    docs, candidates)
            continue
        needle = normalise(quote)  # check_quote's exact match, on the texts normalised once
        found = [d for d in candidates if needle and needle in texts[d]]
        if not found:
            _refuse(refused, Refused(raw, "quote not found", True,
                                     scoped_key(subject, attribute, scopes)),
                    docs, candidates)
            continue
        if not links.forget and not value_in_quote(value, quote, attribute):
            _refuse(refused, Refused(raw, "value not in its quote", True,
                                     scoped_key(subject, attribute, scopes)),
                    docs, candidates)
            continue
        doc = max(found, key=lambda d: (docs[d].at, d))  # the latest message saying it
        resolved = index.resolve(subject, attribute, given, kb.parts.embedder, made, scopes)
        if not (scopes is None or scopes.contains(resolved.key)):
            _refuse(refused, Refused(raw, "outside the scope", False, resolved.key),
                    docs, candidates)
            continue
        claim = (resolved.key, canon(value), doc, links.forget)
        if claim in seen:  # a repeat in the reply: one claim, counted once
            continue
        seen.add(claim)
        if resolved.how == "new":
            made.setdefault(words(subject), {})[resolved.key] = words(attribute)
        when = stated_time(valid_from, docs[doc].text, docs[doc].at)
        try:
            until = _until(raw, docs[doc].at)
        except InvalidInputError as exc:
            _refuse(refused, Refused(raw, f"malformed: {exc}", True, resolved.key),
                    docs, candidates)
            continue
        kept.append(_Fact(resolved.key, value, quote, doc, when, certainty,
                          resolved.merged_from,
                          _claimed(kb, resolved.key, value, claimer, docs[doc].key),
                          until=until, started=valid_from is not None, links=links))
    return kept, [(r, ident) for ident, r in refused.items()]


def _claimed(kb: BeliefBase, key: str, value: Any, source: str, document: str) -> bool:
    """Whether ``source`` already claims ``key = value`` citing ``document`` (the text was
    remembered before): claiming it again would count one check twice."""
    b = kb.parts.engine.find(key, canon(value))
    return b is not None and any(j.name == source and j.info.get("document") == document
                                 for j in b.justs)


#: How many distinct words of the input the recall of existing keys reads: a request's cost
#: stays bounded whatever the input's length (the speakers' names first).
QUERY_WORDS = 64


@attrs.frozen(slots=True)
class _Plan:
    """What one call prepared before asking the model: its documents, scope, the facts' source,
    the keys shown and the requests' groups of text."""

    docs: list[_Doc]
    scopes: Scope | None
    claimer: str
    shown: list[str]
    groups: list[list[Piece]]
    max_facts: int
    small: bool  # small-model mode (docs/models.md)

    def request(self, group: list[Piece]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        return build_request(group, self.shown,
                             None if self.scopes is None else self.scopes.prefixes,
                             self.max_facts, small=self.small)

    def read(self, reply: Any, group: list[Piece], asked: int,
             named: list[tuple[Any, tuple[int, ...]]]) -> None:
        """Add the facts ``reply`` names to ``named``, each with the documents it may cite;
        more than ``max_facts`` over the requests of one call refuses it whole."""
        facts = with_part_quoted(read_reply(reply, self.max_facts), group)
        asked_about = next((p for p in group if p.part), None)
        if self.small and asked_about is not None:  # keys a person would write (docs/models.md)
            before = asked_about.text.partition(asked_about.part)[0]
            facts = with_clause_keys(facts, asked_about.part,
                                     speaker_name([p.speaker for p in group]), before)
        named.extend((f, tuple(sorted({p.doc for p in group}))) for f in facts)
        if len(named) > self.max_facts:
            raise InvalidInputError(f"the model named {len(named)} facts in {asked} of "
                                    f"{len(self.groups)} requests, over max_facts="
                                    f"{self.max_facts}: nothing was remembered")


def _query(speakers: list[str], docs: list[_Doc]) -> str:
    """The recall query for the keys to show: the speakers' names, then the text's distinct
    words, at most :data:`QUERY_WORDS`."""
    seen: dict[str, None] = {}
    for text in [*speakers, *(d.text for d in docs)]:
        for word in words(text):
            if len(word) > 1:
                seen.setdefault(word)
            if len(seen) >= QUERY_WORDS:
                return " ".join(seen)
    return " ".join(seen)


def _result(kb: Any, key: str, value: Any, quote: str, document: str, valid_from: float,
            merged: str | None, source: str) -> Remembered:
    """What a fact is now, as :class:`Remembered` (its belief brought up to now first:
    :func:`_sync_beliefs`)."""
    b = kb.parts.engine.find(key, canon(value))
    held = b is not None and b.label is IN
    return Remembered(key, value, quote, "IN" if held else "OUT", b.conf if held else 0.0,
                      document, _superseded(kb, key, value), merged, valid_from, source)


def _sync_beliefs(kb: Any, facts: Sequence[tuple[str, Any]]) -> None:
    """Bring the beliefs of ``facts`` (key, value) up to now, at once."""
    found = [kb.parts.engine.find(key, canon(value)) for key, value in facts]
    kb.parts.lookup.sync([b for b in found if b is not None])


def _refusal_identity(refusal: Refused, docs: list[_Doc], candidates: Sequence[int]) -> str:
    """A refusal's identity: its reason, the fact as given and the documents it could cite.
    The same text remembered again, refused the same fact, gives the same identity."""
    text = json.dumps([refusal.reason, refusal.fact, [docs[d].key for d in candidates]],
                      sort_keys=True, default=repr, ensure_ascii=False)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _refuse(refused: dict[str, Refused], refusal: Refused, docs: list[_Doc],
            candidates: Sequence[int]) -> None:
    """Note ``refusal`` once (a reply's repeats of one refused fact are one refusal)."""
    refused.setdefault(_refusal_identity(refusal, docs, candidates), refusal)


def _own_key(raw: Any) -> str | None:
    """A malformed fact's own key, when its subject and attribute can be read."""
    if not isinstance(raw, dict):
        return None
    subject, attribute = raw.get("subject"), raw.get("attribute")
    if isinstance(subject, str) and isinstance(attribute, str) and words(subject) \
            and words(attribute):
        return fact_key(subject, attribute)
    return None


def _note_merge(engine: Any, key: str, value: Any, source: str, quote: str,
                merged: str) -> None:
    """Say in the claim's proof which key the fact named itself (``merged_from``)."""
    b = engine.find(key, canon(value))
    if b is None:
        return
    for j in reversed(list(b.justs)):
        if j.name == source and j.info.get("quote") == quote:
            j.info["merged_from"] = merged
            return


def _superseded(kb: Any, key: str, value: Any) -> tuple[Any, ...]:
    """The values of ``key`` that ``value`` superseded (by the timeline of the time API)."""
    timeline = getattr(kb, "timeline", None)
    if timeline is None:
        return ()
    return tuple(t.value for t in timeline(key)
                 if t.status == "superseded" and t.superseded_by == value)


def _shown_time(at: float) -> str:
    return datetime.fromtimestamp(at, tz=timezone.utc).isoformat(timespec="seconds")


def linked_facts(kb: Any, kept: list[_Fact], docs: list[_Doc],
                 refused: list[tuple[Refused, str]], scopes: Scope | None
                 ) -> tuple[list[_Fact], list[_Fact]]:
    """The facts to write, their ``depends_on``/``if_changes`` resolved to keys and each
    placed after the facts of this call it names, and the facts asking to be forgotten
    (docs/remember.md, "Dependencies, replacements, forgetting"). A fact naming another that
    holds no value (nor is made by this call), or only facts that wait on each other, is
    refused, not counted against the model; one naming its own key is malformed (counted)."""
    engine = kb.parts.engine
    made = [f.key for f in kept if not f.links.forget and f.until is None]

    def known(key: str) -> bool:
        return bool(engine.values_of(key)) and len(kb.parts.lookup.held(key)) == 1

    def refuse(f: _Fact, why: str, counted: bool) -> None:
        raw = {"key": f.key, "value": f.value, "quote": f.quote}
        refusal = Refused(raw, why, counted, f.key)
        refused.append((refusal, _refusal_identity(refusal, docs, [f.doc])))

    plain: list[_Fact] = []
    waiting: list[_Fact] = []
    forgets: list[_Fact] = []
    index = _key_index(kb)
    for f in kept:
        if f.links.forget:
            if f.value is not None and value_in_quote(f.value, f.quote, ""):
                # the request says the value itself: claimed from its words, then forgotten
                # with them, so its own message keeps no trace of it either
                plain.append(attrs.evolve(f, links=Links()))
                made.append(f.key)
            held = bool(engine.values_of(f.key)) or f.key in made
            if f.value is not None:
                held = engine.find(f.key, canon(f.value)) is not None or any(
                    g.key == f.key and canon(g.value) == canon(f.value) for g in plain)
            if held:
                forgets.append(f)
            else:
                refuse(f, f"nothing to forget: {f.key} holds no such value", False)
            continue
        refs = f.links.depends or (() if f.links.changes is None else (f.links.changes,))
        if not refs:
            plain.append(f)
            continue
        keys = [resolve_ref(r, index, kb.parts.embedder, made, scopes, known) for r in refs]
        if f.key in keys:
            refuse(f, f"malformed: it names its own key {f.key}", True)
        elif None in keys:
            refuse(f, "it names a fact that holds no value", False)
        elif f.links.depends:
            waiting.append(attrs.evolve(f, depends=tuple(k for k in keys if k is not None)))
        else:
            waiting.append(attrs.evolve(f, changes=keys[0]))
    ordered = plain
    while waiting:  # each after the facts of this call it names
        pending = {f.key for f in waiting}
        ready = [f for f in waiting if pending.isdisjoint(f.depends or (f.changes,))]
        if not ready:
            for f in waiting:
                refuse(f, "the facts it names depend on each other", False)
            break
        ordered += ready
        waiting = [f for f in waiting if f not in ready]
    return ordered, forgets


def forget_facts(kb: Any, made: RememberedList, forgets: list[_Fact],
                 docs: list[_Doc]) -> RememberedList:
    """Forget what the text asked to forget, after the call's change, each as ``kb.forget``
    forgets (its words with it), on the speaker's word; each a :class:`Remembered` marked
    ``forgotten``."""
    if not forgets:
        return made
    gone = {(f.key, None if f.value is None else canon(f.value)) for f in forgets}
    out = [r for r in made if (r.key, None) not in gone and (r.key, canon(r.value)) not in gone]
    for f in forgets:
        speaker = docs[f.doc].source
        if f.value is None:
            kb.forget(f.key, reason=f"asked by {speaker}", by=speaker)
        else:
            kb.forget(f.key, f.value, reason=f"asked by {speaker}", by=speaker)
        out.append(Remembered(f.key, f.value, f.quote, "OUT", 0.0, docs[f.doc].key,
                              merged_from=f.merged_from, source=speaker, forgotten=True))
    return RememberedList(out, made.refused, made.requests, made.cut)
