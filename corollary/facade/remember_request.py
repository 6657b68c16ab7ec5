"""What ``kb.remember`` sends a model and how it reads the answer (docs/remember.md).

The model is offered one tool, ``facts``, whose argument ``facts`` is a list of objects with
``subject``, ``attribute``, ``value``, ``quote`` (the exact words of the text that say it) and
optionally ``key`` (an existing key it was shown), ``valid_from`` (when the text says the fact
starts), ``certainty``, ``ended`` / ``valid_until`` (the fact no longer holds: from the
message's time, or from ``valid_until``), ``depends_on`` / ``if_changes`` (the facts it rests
on; the fact whose change makes it the key's value) and ``forget`` (docs/remember.md). The texts the model reads are the constants here: the instructions
(:data:`INSTRUCTIONS`), the tool's description (:data:`FACTS_TOOL`) and the layout of the user
message (:data:`REQUEST`). In small-model mode (docs/models.md) each clause of the text is a
request of its own (:func:`clause_groups`, :data:`PART`), its reply a schema
(:func:`reply_schema`) and each fact's quote that clause (:func:`with_part_quoted`).

This module sits in the facade, below the model layer: it reads a model's reply by its
attributes (``text``, ``tool_calls``, each with ``name``, ``arguments``, ``arguments_error``), the
:class:`corollary.models.Reply` shape, without importing it.

Examples
--------
>>> docs = [Piece(0, "I moved to Lyon.")]
>>> messages, tools = build_request(docs, ["alice:city = 'Paris'"], None)
>>> tools[0]["function"]["name"], messages[0]["role"]
('facts', 'system')
>>> read_reply(_Text('{"facts": []}'), 10)
[]
"""

from __future__ import annotations

import contextlib
import copy
import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

import attrs

from ..foundations.errors import (
    InvalidInputError,
    ModelConnectionError,
    ModelResponseError,
)
from ..foundations.model_request import accepts_options, tool_named
from .fact_support import value_in_quote
from .recall import count_tokens

__all__ = ["FACTS_TOOL", "INSTRUCTIONS", "MAX_FACTS", "REQUEST_TOKENS", "SMALL_INSTRUCTIONS",
           "SMALL_REQUEST_TOKENS", "Piece", "aask_model", "ask_model", "build_request",
           "clause_groups", "clauses", "complete_facts", "cut_at_limit", "facts_tool",
           "read_reply", "reply_schema", "split_pieces", "with_part_quoted"]

#: The most facts one reply may name (``remember(max_facts=...)``); a reply naming more is
#: refused whole.
MAX_FACTS = 1000
#: The token budget of the text in one request (``remember(request_tokens=...)``): a longer
#: input is sent as several requests, each within it (never one request per fact).
REQUEST_TOKENS = 6000
#: The token budget of the existing keys shown in a request.
KEYS_TOKENS = 600

#: The system message of a remember request.
INSTRUCTIONS = (
    "You extract facts worth remembering from the text you are given, and report them by "
    "calling the tool `facts` once.\n"
    "- Each fact is a subject (who or what it is about: a person's or thing's name), an "
    "attribute (what about it: 'city', 'employer', 'favourite food') and a value.\n"
    "- quote is the exact words of the text that say the fact, copied character for "
    "character: a fact whose quote is not in the text is refused and counts against you.\n"
    "- When one of the existing keys listed means the same subject and attribute, give it as "
    "key, so the fact updates that belief instead of making a new one. Never reuse a key of "
    "another subject.\n"
    "- valid_from is when the text says the fact became true (ISO 8601, e.g. 2024-03-01), "
    "only when the text says so; otherwise leave it out and the message's time is used.\n"
    "- certainty (0 to 1) is how sure you are the text states the fact; leave it out when "
    "the text states it plainly.\n"
    "- When the text says a fact no longer holds, report it with ended: true, its value the "
    "one that stopped holding; valid_until is when the text says it stopped (ISO 8601), "
    "else leave it out and the message's time is used. Example: 'I left Acme in March 2026' "
    "is {\"subject\": \"Ann\", \"attribute\": \"employer\", \"value\": \"Acme\", "
    "\"quote\": \"I left Acme in March 2026\", \"ended\": true, \"valid_until\": "
    "\"2026-03-01\"}.\n"
    "- depends_on: the facts this one rests on (it holds only while they stay as they are), "
    "each {\"subject\", \"attribute\"} or {\"key\"} of a listed key. 'I take Ventolin for my "
    "asthma': {\"subject\": \"Ann\", \"attribute\": \"medication\", \"value\": \"Ventolin\", "
    "\"quote\": \"I take Ventolin for my asthma\", \"depends_on\": [{\"subject\": \"Ann\", "
    "\"attribute\": \"health condition\"}]}.\n"
    "- if_changes: the fact whose change makes this value the key's (until then the key keeps "
    "its value). 'If my condition changes, I will switch to cycling': {\"subject\": \"Ann\", "
    "\"attribute\": \"exercise routine\", \"value\": \"cycling\", \"quote\": \"I will switch "
    "to cycling\", \"if_changes\": {\"subject\": \"Ann\", \"attribute\": \"health "
    "condition\"}}.\n"
    "- forget: true when the text asks to forget the fact (value when named; quote: the words "
    "that ask). 'Please forget that James is my partner': {\"subject\": \"Ann\", \"attribute\": "
    "\"partner\", \"value\": \"James\", \"quote\": \"Please forget that James is my "
    "partner\", \"forget\": true}.\n"
    "- Report only what the text states, not what you guess. If nothing is worth remembering, "
    "call facts with an empty list."
)

#: The system message in small-model mode (docs/models.md, "A small-model mode"): one clause
#: of the text at a time (:data:`PART`), shorter, and without examples, which a small model
#: copies as facts (Qwen2.5-Coder-0.5B kept 'welder' as a favourite food, and wrote 'the
#: part' and 'a name' as facts when the instructions listed "a name, place, number").
SMALL_INSTRUCTIONS = (
    "You write down facts people tell you about themselves and others, as JSON. For the part "
    "of the text you are shown, give each fact it states: its subject (whose fact it is: the "
    "speaker's name when it is about them), its attribute (one or two words: what about the "
    "subject) and its value (words copied from the part). Give none if the part states no "
    "fact."
)
#: How a small-model request names the clause it asks about, after the text.
PART = '\n\nThe part: "{part}"'

#: The most facts the schema of one request allows (``maxItems``), and in small-model mode
#: (of one clause).
REQUEST_FACTS = 64
SMALL_REQUEST_FACTS = 2
#: The token budget of the text shown with each clause in small-model mode: a request per
#: clause shows the stretch of text it is in, not a whole long input.
SMALL_REQUEST_TOKENS = 400
#: The shape of a small model's subject and attribute in its reply schema: a name of one or
#: two words, and one or two lower-case words (without it Qwen2.5-Coder-0.5B wrote the clause
#: as the attribute, "work at Feedzai now" = "yes": docs/models.md, "A small-model mode").
SUBJECT_PATTERN = "^[A-Za-zÀ-ÿ][a-zà-ÿ]*( [A-Za-zÀ-ÿ][a-zà-ÿ]*)?$"
ATTRIBUTE_PATTERN = "^[a-z]+( [a-z]+)?$"
#: The longest string the schema allows for each field (``maxLength``).
FIELD_LENGTHS = {"subject": 80, "attribute": 80, "value": 200, "quote": 400, "key": 200,
                 "valid_from": 40}
#: The most clauses a small-model request offers as quotes (an ``enum``).
MAX_CLAUSES = 64

#: How the text's heading names who says a single text (the chat form names each message's
#: speaker). No sentence of its own: Qwen2.5-Coder-0.5B kept the listed 'me' and 'my' of an
#: earlier line as attributes, then its 'speaker' (docs/models.md, "Measured with real
#: models").
SPEAKER = " said by {name} ({speaker})"

#: The user message: the existing keys (or none) and the text, message by message.
REQUEST = "{keys}{scope}Text{speaker}:\n{text}"
#: The existing keys shown.
KEYS = "Existing keys (key = value):\n{keys}\n\n"
#: What :data:`REQUEST` lists when no key is shown.
NO_KEYS = "(none)"
#: The line that names the scope, when there is one.
SCOPE = "Only facts about keys starting with {prefixes} are kept.\n\n"
#: How one message of the chat form is shown.
MESSAGE = "[{index}] {speaker}{at}: {text}"

#: Another fact, as ``depends_on`` and ``if_changes`` name it: its subject and attribute, or
#: an existing key shown (docs/remember.md, "Dependencies, replacements, forgetting").
FACT_REF: dict[str, Any] = {
    "type": "object",
    "properties": {"subject": {"type": "string", "maxLength": 80},
                   "attribute": {"type": "string", "maxLength": 80},
                   "key": {"type": "string", "maxLength": 200}},
}

#: The one tool of a remember request, as an OpenAI function schema.
FACTS_TOOL: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "facts",
        "description": "Report the facts the text states, each with the exact words that say it.",
        "parameters": {
            "type": "object",
            "properties": {
                "facts": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        # quote first: a server that constrains its output to the schema
                        # (llama.cpp's grammars) writes the fields in this order, so the
                        # model picks the words before the value it must take from them
                        # (docs/models.md, "Measured with real models")
                        "properties": {
                            "quote": {"type": "string",
                                      "description": "the exact words of the text that say it"},
                            "subject": {"type": "string",
                                        "description": "who or what the fact is about"},
                            "attribute": {"type": "string",
                                          "description": "what about the subject"},
                            "value": {"type": ["string", "number", "boolean"],
                                      "description": "the attribute's value"},
                            "key": {"type": "string",
                                    "description": "an existing key shown, to update it"},
                            "valid_from": {"type": "string",
                                           "description": "ISO 8601 time the fact starts, "
                                                          "when the text says"},
                            "certainty": {"type": "number", "minimum": 0, "maximum": 1},
                            "ended": {"type": "boolean",
                                      "description": "true when the text says the fact no "
                                                     "longer holds"},
                            "valid_until": {"type": "string",
                                            "description": "ISO 8601 time the fact stops "
                                                           "holding, when the text says"},
                            "depends_on": {"type": "array", "maxItems": 8, "items": FACT_REF,
                                           "description": "the facts this one rests on"},
                            "if_changes": {**FACT_REF,
                                           "description": "the fact whose change makes "
                                                          "this value the key's"},
                            "forget": {"type": "boolean",
                                       "description": "true when the text asks to forget "
                                                      "this fact"},
                        },
                        "required": ["quote", "subject", "attribute", "value"],
                    },
                },
            },
            "required": ["facts"],
        },
    },
}


@attrs.frozen(slots=True)
class Piece:
    """A stretch of one input document sent in a request.

    Attributes
    ----------
    doc : int
        The document's index in the call (the chat form: the message's).
    text : str
        The stretch of its text.
    speaker : str
        How the message is labelled (its source), ``""`` for a single text.
    at : str
        Its time, as shown (``""`` when none).
    numbered : bool
        Whether it is shown as a numbered message of the chat form (else a single text, its
        speaker named above it).
    part : str
        In small-model mode, the clause of ``text`` the request asks about (``""``: none).
    """

    doc: int
    text: str
    speaker: str = ""
    at: str = ""
    numbered: bool = True
    part: str = ""


def _cut(text: str, budget: int) -> list[str]:
    """``text`` in stretches of at most ``budget`` tokens, cut at paragraph, then sentence,
    then word boundaries (a stretch never splits a word unless the word alone is over)."""
    if count_tokens(text) <= budget:
        return [text]
    out: list[str] = []
    limit = budget * 4
    for unit in re.split(r"(?<=[.!?\n])\s+", text):
        while len(unit) > limit:  # one sentence over the budget: cut at a space, else hard
            cut = unit.rfind(" ", 0, limit)
            cut = limit if cut <= 0 else cut
            out.append(unit[:cut])
            unit = unit[cut:].lstrip()
        if out and len(out[-1]) + 1 + len(unit) <= limit:
            out[-1] = out[-1] + " " + unit
        elif unit:
            out.append(unit)
    return out


def split_pieces(pieces: Sequence[Piece], budget: int) -> list[list[Piece]]:
    """The requests to send: ``pieces`` grouped in order, each group's text within ``budget``
    tokens (a piece over it cut first).

    >>> [len(g) for g in split_pieces([Piece(0, "a" * 40), Piece(1, "b" * 40)], 10)]
    [1, 1]
    >>> [len(g) for g in split_pieces([Piece(0, "a"), Piece(1, "b")], 20)]
    [2]
    """
    groups: list[list[Piece]] = []
    used = budget + 1
    for piece in pieces:
        for stretch in _cut(piece.text, budget):
            cost = count_tokens(stretch) + 8  # the message's label
            if used + cost > budget:
                groups.append([])
                used = 0
            groups[-1].append(attrs.evolve(piece, text=stretch))
            used += cost
    return groups


def build_request(pieces: Sequence[Piece], keys: Sequence[str], scope: Sequence[str] | None,
                  max_facts: int = MAX_FACTS, *, small: bool = False
                  ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The messages and tools of one request: the instructions, then the keys shown and the
    text (a single text as it is, its heading naming its speaker; the chat form one
    numbered line per message), the clause asked about when a piece names one
    (:data:`PART`, small-model mode), and the ``facts`` tool made for it (:func:`facts_tool`).

    >>> messages, tools = build_request([Piece(0, "Hi. I live in Paris.", "human:al",
    ...                                        numbered=False, part="I live in Paris")],
    ...                                 [], None, small=True)
    >>> print(messages[1]["content"])
    Text said by al (human:al):
    Hi. I live in Paris.
    <BLANKLINE>
    The part: "I live in Paris"
    """
    speaker = ""
    if len(pieces) == 1 and not pieces[0].numbered:
        text = pieces[0].text
        if pieces[0].speaker:
            name = pieces[0].speaker.partition(":")[2] or pieces[0].speaker
            speaker = SPEAKER.format(speaker=pieces[0].speaker, name=name)
    else:
        text = "\n".join(MESSAGE.format(index=p.doc + 1, speaker=p.speaker,
                                        at=f" ({p.at})" if p.at else "", text=p.text)
                         for p in pieces)
    scoped = SCOPE.format(prefixes=", ".join(map(repr, scope))) if scope else ""
    # a small model copied the empty list's heading as a subject: it is left out
    shown = "" if small and not keys else KEYS.format(keys="\n".join(keys) or NO_KEYS)
    user = REQUEST.format(keys=shown, scope=scoped, speaker=speaker, text=text)
    part = next((p.part for p in pieces if p.part), "")
    if part:
        user += PART.format(part=part)
    system = SMALL_INSTRUCTIONS if small else INSTRUCTIONS
    quotes = ([part] if part else [c for p in pieces for c in clauses(p.text)]) if small else None
    return ([{"role": "system", "content": system}, {"role": "user", "content": user}],
            [facts_tool(max_facts, small=small, quotes=quotes)])


def clause_groups(groups: Sequence[Sequence[Piece]]) -> list[list[Piece]]:
    """Small-model mode's requests: one per clause (:func:`clauses`) of each piece of each
    group, the group's text shown whole and the clause named (``part``). A small model
    reports one or two facts a request (docs/models.md, "A small-model mode").

    >>> [[p.part for p in g] for g in clause_groups([[Piece(0, "Hi. I live in Paris.")]])]
    [['Hi'], ['I live in Paris']]
    """
    out: list[list[Piece]] = []
    for group in groups:
        for index, piece in enumerate(group):
            for clause in clauses(piece.text):
                out.append([attrs.evolve(p, part=clause) if i == index else p
                            for i, p in enumerate(group)])
    return out


def reply_schema(pieces: Sequence[Piece], max_facts: int = MAX_FACTS) -> dict[str, Any] | None:
    """The structured-output schema of a small-model request about one clause (a piece with
    a ``part``), ``None`` for any other request: at most :data:`SMALL_REQUEST_FACTS` facts,
    each a ``subject`` (:data:`SUBJECT_PATTERN`), an ``attribute`` (:data:`ATTRIBUTE_PATTERN`)
    and a ``value``; no quote, which is the clause itself (:func:`with_part_quoted`).

    >>> schema = reply_schema([Piece(0, "I live in Paris.", part="I live in Paris")])
    >>> item = schema["properties"]["facts"]["items"]
    >>> list(item["properties"]), schema["properties"]["facts"]["maxItems"]
    (['subject', 'attribute', 'value'], 2)
    >>> reply_schema([Piece(0, "I live in Paris.")]) is None
    True
    """
    if not any(p.part for p in pieces):
        return None
    string = {"type": "string"}
    item = {"type": "object",
            "properties": {"subject": {**string, "pattern": SUBJECT_PATTERN},
                           "attribute": {**string, "pattern": ATTRIBUTE_PATTERN},
                           "value": {**string, "maxLength": FIELD_LENGTHS["value"]}},
            "required": ["subject", "attribute", "value"]}
    return {"type": "object",
            "properties": {"facts": {"type": "array", "items": item,
                                     "maxItems": max(1, min(max_facts, SMALL_REQUEST_FACTS))}},
            "required": ["facts"]}


def with_part_quoted(facts: list[Any], pieces: Sequence[Piece]) -> list[Any]:
    """``facts`` of a request about one clause, each without a quote given a clause as its
    quote (the schema asks for none): the clause asked about when it says the fact's value
    (normalised, :func:`corollary.facade.fact_support.value_in_quote`), else the first other
    clause of the same text that does (a small model asked about one clause often also gives
    a fact another clause says: Qwen2.5-Coder-0.5B, asked about "and I work at Feedzai now",
    gave Feedzai and Lisbon; docs/models.md, "A small-model mode"), else the clause asked
    about (the value is then not in its quote, and the fact is refused as unsupported).

    >>> piece = Piece(0, "I live in Paris, and I work at Acme.", part="and I work at Acme")
    >>> with_part_quoted([{"value": "Acme"}, {"value": "Paris"}, {"value": "Rome"}], [piece])
    [{'value': 'Acme', 'quote': 'and I work at Acme'}, {'value': 'Paris', 'quote': 'I live in Paris'}, {'value': 'Rome', 'quote': 'and I work at Acme'}]
    """
    asked = next((p for p in pieces if p.part), None)
    if asked is None:
        return facts
    others: list[str] | None = None
    out = []
    for fact in facts:
        if isinstance(fact, dict) and "quote" not in fact:
            quote = asked.part
            value = fact.get("value")
            if isinstance(value, (str, int, float)) and not value_in_quote(value, quote):
                others = clauses(asked.text) if others is None else others
                quote = next((c for c in others if value_in_quote(value, c)), quote)
            fact = {**fact, "quote": quote}
        out.append(fact)
    return out


def facts_tool(max_facts: int = MAX_FACTS, *, small: bool = False,
               quotes: Sequence[str] | None = None) -> dict[str, Any]:
    """The ``facts`` tool made for one request: :data:`FACTS_TOOL` with its list and strings
    bounded (``maxItems``, ``maxLength``: a server that constrains its output to the schema
    cannot then run on to its token limit); in small-model mode only the required fields, at
    most :data:`SMALL_REQUEST_FACTS` facts, and each quote one of ``quotes`` (an ``enum``:
    the text's clauses, :func:`clauses`).

    >>> tool = facts_tool(10)
    >>> tool["function"]["parameters"]["properties"]["facts"]["maxItems"]
    10
    >>> small = facts_tool(small=True, quotes=["I live in Paris"])["function"]["parameters"]
    >>> item = small["properties"]["facts"]["items"]
    >>> sorted(item["properties"]), item["properties"]["quote"]["enum"]
    (['attribute', 'quote', 'subject', 'value'], ['I live in Paris'])
    """
    tool = copy.deepcopy(FACTS_TOOL)
    facts = tool["function"]["parameters"]["properties"]["facts"]
    item = facts["items"]
    facts["maxItems"] = max(1, min(max_facts, SMALL_REQUEST_FACTS if small else REQUEST_FACTS))
    if small:
        item["properties"] = {name: schema for name, schema in item["properties"].items()
                              if name in item["required"]}
    for name, schema in item["properties"].items():
        if name in FIELD_LENGTHS and "string" in (schema.get("type") or ()):
            schema["maxLength"] = FIELD_LENGTHS[name]
    if small and quotes:
        item["properties"]["quote"]["enum"] = list(dict.fromkeys(quotes))[:MAX_CLAUSES]
    return tool


# a clause ends after . ! ? ; : , (not the full stop of an initial, "F. Scott", or of a
# title, "Dr. Ruiz": a name cut in two leaves its value in no clause), or before a word that
# starts one
_CLAUSE = re.compile(r"(?<=[!?;:,\n])\s+|(?<![\s.][A-Z]\.)(?<!^[A-Z]\.)(?<!\b(?:Mr|Ms|Dr|St|Jr|Sr)\.)"
                     r"(?<!\bMrs\.)(?<=\.)\s+|\s+(?=\b(?:but|because|and then|so|and (?:I|my|we|"
                     r"our|he|his|she|her|they|their|it|its)\b)\b)")


def clauses(text: str) -> list[str]:
    """``text``'s clauses, as exact stretches of it (cut after ``. ! ? ; : ,``, not after the
    full stop of an initial or a title, and before "but", "because", "and then", "so", and
    "and" before a pronoun that starts a clause, "and I", "and my"...; end punctuation kept
    off): what a small model is asked about, one request each.

    >>> clauses("I moved to Pine Ave last month, but I still work at Acme. Call me Bo!")
    ['I moved to Pine Ave last month', 'but I still work at Acme', 'Call me Bo']
    >>> clauses("I moved to Lisbon and I work at Feedzai, with Ann and Bo.")
    ['I moved to Lisbon', 'and I work at Feedzai', 'with Ann and Bo']
    >>> clauses('My favorite is "Gatsby" by F. Scott Fitzgerald. Dr. Ruiz is my GP.')
    ['My favorite is "Gatsby" by F. Scott Fitzgerald', 'Dr. Ruiz is my GP']
    """
    found = []
    for part in _CLAUSE.split(text):
        part = part.strip().rstrip(".!?;:,").strip()
        if len(part) > 1:
            found.append(part)
    return found


def _network(exc: BaseException) -> bool:
    """Whether ``exc`` is a failure to reach the model (a socket, DNS, a timeout, or an HTTP
    client's connect / timeout / network error, by its class names)."""
    if isinstance(exc, ModelConnectionError):
        return True
    if isinstance(exc, OSError):  # ConnectionError, TimeoutError, socket errors, URLError
        return True
    names = " ".join(c.__name__ for c in type(exc).__mro__)
    return any(word in names for word in ("Connect", "Timeout", "Network"))


@contextlib.contextmanager
def _reaching_the_model() -> Iterator[None]:
    """A failure to reach the model (:func:`_network`) raised as :class:`ModelConnectionError`;
    any other error as it is. Shared by :func:`ask_model` and :func:`aask_model`."""
    try:
        yield
    except ModelConnectionError:
        raise
    except Exception as exc:
        if _network(exc):
            raise ModelConnectionError(f"the model could not be reached "
                                       f"({type(exc).__name__}: {exc})") from exc
        raise


def _requiring(method: Any, tools: list[dict[str, Any]], tool: str | None,
               schema: dict[str, Any] | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """The tools and keyword arguments of a request to ``method``: with ``schema``, for a
    method that takes options, no tools and the schema as the reply's (structured output,
    named ``tool``); else with ``tool``, ``options`` with a ``tool_choice`` naming it; a
    method without options gets the tools alone."""
    if not accepts_options(method):
        return tools, {}
    if schema is not None:
        return [], {"options": {"schema": schema, "schema_name": tool or "reply"}}
    if tool is None:
        return tools, {}
    return tools, {"options": {"tool_choice": tool_named(tool)}}


def ask_model(model: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
              tool: str | None = None, schema: dict[str, Any] | None = None) -> Any:
    """One reply of ``model``, its network failures as :class:`ModelConnectionError`; with
    ``tool``, the request requires that tool (``tool_choice`` naming it, sent to a model
    whose ``complete`` takes ``options=``: docs/models.md, "Per-request options"); with
    ``schema``, such a model is sent no tools and the schema as its reply's (structured
    output: small-model mode's requests, :func:`reply_schema`), and a model without options
    the tools as before.

    >>> class Down:
    ...     def complete(self, messages, tools):
    ...         raise ConnectionRefusedError("no server")
    >>> ask_model(Down(), [{"role": "user", "content": "hi"}], [])
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.ModelConnectionError: the model could not be reached (ConnectionRefusedError: no server)
    """
    complete = getattr(model, "complete", None)
    if not callable(complete):
        from ..foundations.errors import InvalidTypeError
        raise InvalidTypeError(f"{model!r} is not a model: it has no complete(messages, tools)")
    sent, options = _requiring(complete, tools, tool, schema)
    with _reaching_the_model():
        return complete(messages, sent, **options)


async def aask_model(model: Any, messages: list[dict[str, Any]], tools: list[dict[str, Any]],
                     tool: str | None = None, schema: dict[str, Any] | None = None) -> Any:
    """:func:`ask_model` awaited: the model's ``acomplete`` when it has one, else its
    ``complete`` in a worker thread (:func:`asyncio.to_thread`); the same errors, and the same
    required ``tool`` or reply ``schema``.

    >>> import asyncio
    >>> class Echo:
    ...     async def acomplete(self, messages, tools):
    ...         return messages[-1]["content"]
    >>> asyncio.run(aask_model(Echo(), [{"role": "user", "content": "hi"}], []))
    'hi'
    """
    import asyncio

    acomplete = getattr(model, "acomplete", None)
    if not callable(acomplete):
        complete = getattr(model, "complete", None)
        if not callable(complete):
            from ..foundations.errors import InvalidTypeError
            raise InvalidTypeError(f"{model!r} is not a model: it has neither "
                                   "acomplete(messages, tools) nor complete(messages, tools)")
        return await asyncio.to_thread(ask_model, model, messages, tools, tool, schema)
    sent, options = _requiring(acomplete, tools, tool, schema)
    with _reaching_the_model():
        return await acomplete(messages, sent, **options)


class _Text:
    """A reply that is only text (a doctest helper, and what a str reply reads as)."""

    __slots__ = ("finish_reason", "text", "tool_calls")

    def __init__(self, text: str) -> None:
        self.text = text
        self.tool_calls = ()
        self.finish_reason = None


def _json_object(text: str) -> Any:
    """The JSON object a text reply holds (bare, or in a ```json fence), or ``None``."""
    fenced = re.search(r"```(?:json)?\s*(.*?)```", text, re.S)
    body = (fenced.group(1) if fenced else text).strip()
    start = body.find("{")
    if start < 0:
        return None
    try:
        return json.loads(body[start:body.rfind("}") + 1])
    except ValueError:
        return None


def cut_at_limit(reply: Any) -> bool:
    """Whether the server cut ``reply`` at its token limit (``finish_reason == "length"``).

    >>> cut_at_limit(_Text("{"))
    False
    """
    return getattr(reply, "finish_reason", None) == "length"


def complete_facts(text: str) -> list[Any]:
    """The facts a cut reply's JSON wrote out in full: each object of its ``facts`` list
    before the cut (the one the cut fell in is left out).

    >>> complete_facts('{"facts": [{"subject": "Bo", "value": 1}, {"subject": "Al", "val')
    [{'subject': 'Bo', 'value': 1}]
    """
    start = re.search(r'"facts"\s*:\s*\[', text)
    if start is None:
        return []
    decoder = json.JSONDecoder()
    found: list[Any] = []
    at = start.end()
    while True:
        while at < len(text) and text[at] in " \t\r\n,":
            at += 1
        if at >= len(text) or text[at] == "]":
            return found
        try:
            item, at = decoder.raw_decode(text, at)
        except ValueError:
            return found
        found.append(item)


def read_reply(reply: Any, max_facts: int) -> list[Any]:
    """The facts a reply names, each as the model gave it (a dict, or whatever else it put in
    the list: a malformed fact is refused one by one, later).

    A reply calling ``facts`` gives its ``facts`` (every call to it, in order); a text reply
    may hold the same object as JSON (servers without tool calling); an empty reply, or an
    empty list, names none. A reply cut at the token limit (:func:`cut_at_limit`) gives the
    facts it wrote out in full (:func:`complete_facts`). A call whose arguments did not parse,
    or whose ``facts`` is not a list, and a text that holds no ``facts`` object (the model
    wrote the call as prose, or answered something else) are a :class:`ModelResponseError`,
    never "no facts"; more than ``max_facts`` facts an :class:`InvalidInputError`. Nothing
    here changes a base.

    >>> from types import SimpleNamespace as Call
    >>> reply = Call(text=None, tool_calls=[Call(name="facts", arguments={"facts": [1, 2]},
    ...                                          arguments_error=None)])
    >>> read_reply(reply, 10)
    [1, 2]
    >>> read_reply(reply, 1)
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.InvalidInputError: the model named 2 facts, over max_facts=1: nothing was remembered
    >>> read_reply(_Text('facts(["I moved."])'), 10)
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.ModelResponseError: the model answered in text with no facts object (did the request require the facts tool?): 'facts(["I moved."])'
    """
    if isinstance(reply, str):
        reply = _Text(reply)
    calls = getattr(reply, "tool_calls", None)
    text = getattr(reply, "text", None)
    if calls is None and text is None:
        raise ModelResponseError(f"the model's reply is not a reply: {type(reply).__name__}")
    cut = cut_at_limit(reply)
    found: list[Any] = []
    named = [c for c in calls or () if getattr(c, "name", None) == "facts"]
    if named:
        for call in named:
            error = getattr(call, "arguments_error", None)
            if error and cut:
                found.extend(complete_facts(getattr(call, "raw_arguments", None) or ""))
                continue
            if error:
                raise ModelResponseError(f"the model's facts call did not parse: {error}")
            args = getattr(call, "arguments", None)
            facts = args.get("facts") if isinstance(args, dict) else None
            if not isinstance(facts, list):
                raise ModelResponseError("the model's facts call has no list 'facts'")
            found.extend(facts)
            if len(found) > max_facts:
                break
    elif isinstance(text, str) and text.strip():
        obj = _json_object(text)
        if isinstance(obj, dict) and "facts" in obj:
            if not isinstance(obj["facts"], list):
                raise ModelResponseError("the model's reply has 'facts' that is not a list")
            found = obj["facts"]
        elif cut:
            found = complete_facts(text)
        else:
            shown = text if len(text) <= 200 else text[:200] + "..."
            raise ModelResponseError("the model answered in text with no facts object (did "
                                     f"the request require the facts tool?): {shown!r}")
    if len(found) > max_facts:
        raise InvalidInputError(f"the model named {len(found)} facts, over max_facts="
                                f"{max_facts}: nothing was remembered")
    return found
