"""The subject and attribute of a fact a small model read from one clause, put as a person
writing the fact down would name them (docs/models.md, "The keys small-model mode writes").

Qwen2.5-Coder-0.5B, asked for one clause's facts in small-model mode, often finds the right
value under a key nobody would look up: the clause's verb as the attribute ("moved to" =
Lisbon, "work at" = Feedzai), a relative's name as the speaker's own ("My wife's name is Helen":
``george:name`` = Helen), a pet's age as the speaker's. Two rules, the second applied only when the
clause shows what it assumes:

1. **A verb names its noun** (:data:`VERB_NOUNS`): an attribute that is a verb phrase a
   clause uses to say a fact ("live in", "work at", "drive") becomes the noun a person would
   write ("city", "employer", "car"); a noun with the clause's verb after it ("email
   changed", "plate is": :data:`TRAILING_VERBS`) loses the verb.
2. **A relative's fact is the relative's** (:data:`RELATIVES`): when the clause says "my
   <relative>" (or "our"), and the fact is about the speaker with an attribute that a person
   has of their own (:data:`OWN`: name, age, birthday), it is about the relative: the name is
   the relative ("my wife's name is Helen": ``wife`` = Helen), any other becomes the relative's
   (``cat age`` = 4). "His name", "her name" in a clause name the last relative the text
   spoke of before it ("We adopted a dog last weekend, his name is Biscuit": ``dog`` =
   Biscuit), not the speaker. A fact whose subject is its own value ("Max", son, "Max") is
   the speaker's.
3. **A broken attribute is mended** (a last pass): a word of the attribute that is neither a
   word of the clause nor of :data:`ATTRIBUTE_WORDS` but one edit away from exactly one of
   them is that word (``room umber`` -> ``room number``); an attribute that is only a
   preposition ("to", "at") is the noun the clause names with "my", "our" or "the" before it
   ("my number changed to 555-0199": ``to`` -> ``number``); a negation cut from its verb ("don
   not" = "eat pork") says the verb the value starts with (``does not eat``); a relative the
   text says is the speaker's ("my two cats, Miso and Tofu": ``miso_and:cat``) is the
   speaker's when the model made its subject of the clause's own words.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

__all__ = ["VERB_NOUNS", "TRAILING_VERBS", "RELATIVES", "OWN", "ATTRIBUTE_WORDS",
           "clause_key", "named_relatives", "speaker_name", "verb_value", "with_clause_keys"]

#: Verb phrases a clause says a fact with (lower-case, one or two words: the small-model
#: schema's attribute) and the noun a person writes the fact under.
VERB_NOUNS: dict[str, str] = {
    # where one lives, whatever the place is (a city, a state, a country): one key, so that a
    # move updates it
    **dict.fromkeys(("moved to", "move to", "moving to", "live in", "lives in", "living in",
                     "based in", "relocated to", "moved", "reside in", "resides in"),
                    "residence"),
    **dict.fromkeys(("from", "am from", "come from", "comes from", "grew up in"), "hometown"),
    **dict.fromkeys(("like", "likes", "like to", "likes to", "like the", "likes the", "love",
                     "loves", "love to", "loves to", "love the", "loves the", "enjoy",
                     "enjoys", "enjoy the", "enjoys the"), "likes"),
    **dict.fromkeys(("live at", "lives at", "living at", "reside at"), "address"),
    **dict.fromkeys(("work at", "works at", "working at", "work for", "works for",
                     "working for", "employed at", "employed by", "job at", "joined"),
                    "employer"),
    **dict.fromkeys(("work as", "works as", "working as", "employed as"), "job"),
    **dict.fromkeys(("drive", "drives", "drive a", "drives a", "driving"), "car"),
    **dict.fromkeys(("allergic to", "allergic"), "allergy"),
    **dict.fromkeys(("speak", "speaks", "speaking"), "language"),
    **dict.fromkeys(("flying to", "fly to", "flies to", "travelling to", "traveling to",
                     "going to", "heading to"), "destination"),
    **dict.fromkeys(("play the", "plays the"), "instrument"),
}

#: Verbs a two-word attribute ends with when a small model copied the clause's words after its
#: noun ("email changed" = tom.k@proton.me, "plate is" = KX-3391): left off.
TRAILING_VERBS = frozenset(("is", "are", "was", "were", "changed", "has", "have", "now"))

#: Nouns of the people and animals a speaker names as theirs ("my wife", "our son").
RELATIVES = frozenset((
    "wife husband partner spouse girlfriend boyfriend fiance fiancee son daughter child kid "
    "baby mother mom mum father dad brother sister grandmother grandfather grandma grandpa "
    "aunt uncle cousin niece nephew friend roommate boss manager colleague neighbour neighbor "
    "cat dog pet puppy kitten").split())

#: Attributes a person has of their own: in a clause about "my <relative>" they are the
#: relative's.
OWN = frozenset(("name", "age", "birthday"))

#: Nouns people write facts under (beside :data:`VERB_NOUNS`' nouns, :data:`RELATIVES` and
#: :data:`OWN`): a misspelt attribute word is mended against them and the clause's words.
ATTRIBUTE_WORDS = frozenset((
    "number phone mobile email address street city country town home office room floor "
    "building desk company employer job title role position team department project product "
    "manager owner birthday date time day week month year price plate car model colour color "
    "size language hobby instrument diet allergy food dish drink favourite favorite password "
    "network account username nickname pronoun school university degree height weight flight "
    "seat gate hotel code extension salary budget deadline meeting schedule").split())

#: Prepositions a small model leaves alone as the attribute ("changed to" cut to "to").
PREPOSITIONS = frozenset(("to", "at", "for", "in", "on", "of", "from", "by", "with"))

#: What a small model leaves of a negation ("don't" read as "don not", "dont", "don t").
NEGATIONS = frozenset(("don not", "dont", "don t", "do not", "doesn t", "does not", "didn t",
                       "never", "not"))

_MY = re.compile(r"\b(?:my|our)\s+(?:(?:\d+|two|three|four|five|six)\s+)?([a-z]+)",
                 re.IGNORECASE)
_NAMED = re.compile(r"\b(?:my|our|the)\s+([a-z]+)", re.IGNORECASE)
_NEGATED = re.compile(r"\b(?:don'?t|doesn'?t|didn'?t|do not|does not|never)\s+([a-z]+)",
                      re.IGNORECASE)
_THEIR_NAME = re.compile(r"\b(?:his|her|its|their)\s+name\b", re.IGNORECASE)
_FAVOURITE = re.compile(r"\bfavou?rite\s+([a-z]+)", re.IGNORECASE)
#: What names a thing in a clause ("a poodle named Charlie", "a town called Springville").
_NAMING = ("named", "called")
#: The words a clause may put before what it names: a determiner, then at most three words.
_NAMED_THING = re.compile(r"\b(?:a|an|my|our|the|his|her|their|one|two|three)\s+"
                          r"((?:[A-Za-z-]+\s+){0,2}[A-Za-z-]+)\s+(?:named|called)\s+$",
                          re.IGNORECASE)
#: Words of size or praise that do not name the kind of thing ("a little town called ...").
_EPITHETS = frozenset(("little small big tiny huge old new young great nice cute lovely "
                       "beautiful sweet").split())


def _words(text: str) -> str:
    return " ".join(re.findall(r"[a-z0-9]+", str(text).lower()))


def _one_edit(a: str, b: str) -> bool:
    """Whether ``a`` and ``b`` differ by exactly one insertion, deletion or substitution."""
    if a == b or abs(len(a) - len(b)) > 1:
        return False
    if len(a) > len(b):
        a, b = b, a
    i = next((k for k, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), len(a))
    return a[i + (len(a) == len(b)):] == b[i + 1:]


def _singular(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _mended(attribute: str, clause: str) -> str:
    """``attribute`` with each word that is one edit from exactly one known word put right."""
    said = set(_words(clause).split())
    known = said | ATTRIBUTE_WORDS | RELATIVES | OWN | {
        w for noun in VERB_NOUNS.values() for w in noun.split()}
    out = []
    for word in attribute.split():
        if len(word) >= 4 and word not in known and _singular(word) not in known:
            near = {k for k in known if len(k) >= 4 and _one_edit(word, k)
                    and _singular(k) != _singular(word)}
            if len(near) == 1:
                word = near.pop()
        out.append(word)
    return " ".join(out)


def _mend(subject: str, attribute: str, value: Any, clause: str,
          speaker: str, before: str, text: str) -> tuple[str, str]:
    """Rule 3 of the module's docstring: a misspelt word, a lone preposition, a cut negation,
    a relative of the speaker's under another subject."""
    words = _words(attribute)
    if words in PREPOSITIONS:
        cut = re.search(rf"\b{words}\b", clause, re.IGNORECASE)
        named = _NAMED.findall(clause[:cut.start()] if cut else clause)
        if named:
            return subject, named[-1].lower()
        # no noun named before it: the verb before it may say the fact ("I moved to Porto")
        said = re.findall(r"[a-z]+", clause[:cut.start()].lower()) if cut else []
        if said and f"{said[-1]} {words}" in VERB_NOUNS:
            return subject, f"{said[-1]} {words}"
        return subject, attribute
    if words in NEGATIONS:
        verb = _NEGATED.search(clause)
        first = _words(value).split()[:1]
        if verb is not None and first == [verb.group(1).lower()]:
            return subject, f"does not {first[0]}"
    mended = _mended(words, f"{text} {clause}")  # a word the text says is not misspelt
    if mended != words:
        attribute = mended
    about_speaker = _words(subject) in {_words(speaker), "i", "me", "speaker"}
    # "my two cats, Miso and Tofu" is cut into two clauses: the relative is said before
    mine = {_singular(m.group(1).lower()) for m in _MY.finditer(f"{before} {clause}")}
    # only a subject made of the clause's own words ("Miso and"): a name the model brought
    # from elsewhere may be whom the fact is about
    of_clause = set(_words(subject).split()) <= set(_words(clause).split())
    if (speaker and not about_speaker and of_clause
            and _singular(_words(attribute)) in RELATIVES
            and _singular(_words(attribute)) in mine):
        return speaker, attribute
    return subject, attribute


def _named_thing(value: Any, clause: str) -> str | None:
    """What ``clause`` says ``value`` is the name of ("I have a poodle named Charlie":
    ``poodle``), without words of size or praise, or ``None``."""
    first = _words(value).split()[:1]
    if not first:
        return None
    for match in re.finditer(rf"\b(?:{'|'.join(_NAMING)})\s+{re.escape(first[0])}\b", clause,
                             re.IGNORECASE):
        thing = _NAMED_THING.search(clause[:match.start()] + match.group(0).split()[0] + " ")
        if thing is not None:
            words = [w for w in _words(thing.group(1)).split() if w not in _EPITHETS]
            if words:
                return " ".join(words)
    return None


# "my daughter Ana", "our son Max": a relative and the name after it
_MY_RELATIVE_NAMED = re.compile(r"\b(?i:my|our)\s+([a-z]+)\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)?)\b")
# "Miso and Tofu", after "my two cats, "
_NAMES_ONLY = re.compile(r"^[A-Z][a-z]+(?:(?:\s*,\s*|\s+and\s+)[A-Z][a-z]+)*$")
_MY_RELATIVES_BEFORE = re.compile(r"\b(?i:my|our)\s+(?:[a-z]+\s+)?([a-z]+)\s*[,:]?\s*$")


def named_relatives(clause: str, before: str = "") -> list[tuple[str, str]]:
    """The (relative, name) pairs ``clause`` states by naming the speaker's relative (one of
    :data:`RELATIVES`) with a capitalised name: "my daughter Ana", "our son Max", or names
    alone after "my two cats," ending ``before``.

    >>> named_relatives("My daughter Ana starts school next week")
    [('daughter', 'Ana')]
    >>> named_relatives("Miso and Tofu", "I live at 18 Pine Avenue with my two cats, ")
    [('cat', 'Miso'), ('cat', 'Tofu')]
    >>> named_relatives("my dog is Rex"), named_relatives("Monday and Friday", "I work, ")
    ([], [])
    """
    found = [(_singular(m.group(1).lower()), m.group(2))
             for m in _MY_RELATIVE_NAMED.finditer(clause)
             if _singular(m.group(1).lower()) in RELATIVES]
    listed = _MY_RELATIVES_BEFORE.search(before)
    if not found and listed is not None and _NAMES_ONLY.match(clause.strip()):
        relative = _singular(listed.group(1).lower())
        if relative in RELATIVES:
            found = [(relative, name) for name in re.findall(r"[A-Z][a-z]+", clause)]
    return found


def verb_value(attribute: str, value: Any) -> tuple[str, Any]:
    """A value that is the clause itself ("I live in the United States", under ``now``) split
    into the verb phrase of :data:`VERB_NOUNS` it starts with, as the attribute, and the rest,
    as the value; any other (attribute, value) as it is.

    >>> verb_value("now", "I live in the United States")
    ('live in', 'the United States')
    >>> verb_value("city", "Lisbon")
    ('city', 'Lisbon')
    """
    if not isinstance(value, str):
        return attribute, value
    said = re.match(r"(?:i|we)(?:'m|'re| am| are)?\s+([a-z]+(?:\s+[a-z]+)?)\s+(\S.*)$",
                    value.strip(), re.IGNORECASE)
    if said is None:
        return attribute, value
    verb, rest = said.group(1).lower(), said.group(2)
    first, _, _ = verb.partition(" ")
    if verb in VERB_NOUNS:
        return verb, rest
    if first in VERB_NOUNS:  # "I work at ...": one word of the verb, the rest its object
        return first, rest if verb == first else f"{verb.partition(' ')[2]} {rest}"
    return attribute, value


def clause_key(subject: str, attribute: str, value: Any, clause: str,
               speaker: str, before: str = "", text: str = "") -> tuple[str, str]:
    """The (subject, attribute) a fact read from ``clause`` is written under; ``speaker`` is
    the name of who said it (``"george"`` for ``human:george``), ``before`` the text before
    the clause, ``text`` the text it is in (as far as known: a word of it is not misspelt).

    >>> clause_key("Maria", "moved to", "Lisbon", "I moved to Lisbon in January", "maria")
    ('Maria', 'residence')
    >>> clause_key("Sol", "name", "Toby", "and a chihuahua named Toby", "sol")
    ('Sol', 'chihuahua')
    >>> clause_key("Tess", "name", "Springville", "I'm from a little town called Springville",
    ...            "tess")
    ('Tess', 'town')
    >>> clause_key("Ola", "favorite", "The Witcher 3", "My favorite RPG is The Witcher 3", "ola")
    ('Ola', 'favorite rpg')
    >>> clause_key("Tom", "email changed", "t@x.org", "Also my email changed to t@x.org", "tom")
    ('Tom', 'email')
    >>> clause_key("George", "name", "Helen", "My wife's name is Helen", "george")
    ('George', 'wife')
    >>> clause_key("Henrik", "age", "4 years old", "My cat Pixel is 4 years old", "henrik")
    ('Henrik', 'cat age')
    >>> clause_key("Max", "son", "Max", "and our son Max just turned 7", "george")
    ('george', 'son')
    >>> clause_key("Ana", "age", "7", "my friend's daughter Ana is 7", "tom")
    ('Ana', 'age')
    >>> clause_key("Sam", "name", "Biscuit", "his name is Biscuit", "sam", "We adopted a dog,")
    ('Sam', 'dog')
    >>> clause_key("Ravi", "room umber", "412", "room 412", "ravi")
    ('Ravi', 'room number')
    >>> clause_key("Li", "don not", "eat pork either", "and I don't eat pork either", "li")
    ('Li', 'does not eat')
    >>> clause_key("Amara", "to", "555-0199", "my number changed to 555-0199", "amara")
    ('Amara', 'number')
    >>> clause_key("Miso and", "cat", "Tofu", "Miso and Tofu", "ines", "with my two cats, ")
    ('ines', 'cat')
    """
    subject, attribute = _mend(subject, attribute, value, clause, speaker, before,
                               text or before)
    thing = _named_thing(value, clause) if _words(attribute) in {"name", *_NAMING} else None
    if thing is not None:
        attribute = thing
    favourite = _FAVOURITE.search(clause)
    if _words(attribute) in {"favorite", "favourite"} and favourite is not None:
        attribute = f"{_words(attribute)} {favourite.group(1).lower()}"
    noun = VERB_NOUNS.get(_words(attribute))
    if noun is not None:
        attribute = noun
    head, _, last = _words(attribute).rpartition(" ")
    if head and last in TRAILING_VERBS:
        attribute = head
    about_speaker = _words(subject) in {_words(speaker), "i", "me", "speaker"}
    if not about_speaker and _words(subject) == _words(value) and speaker:
        return speaker, attribute
    relative = next((m.group(1).lower() for m in _MY.finditer(clause)
                     if m.group(1).lower() in RELATIVES), None)
    if about_speaker and relative is not None and _words(attribute) in OWN:
        attribute = relative if _words(attribute) == "name" else f"{relative} {attribute}"
    elif about_speaker and _words(attribute) == "name" and _THEIR_NAME.search(clause):
        spoken_of = [w for w in _words(before).split() if w in RELATIVES]
        if spoken_of:
            attribute = spoken_of[-1]
    return subject, attribute


def with_clause_keys(facts: list[Any], clause: str, speaker: str,
                     before: str = "") -> list[Any]:
    """``facts`` (the reply's dicts) read from ``clause``, each under :func:`clause_key`'s
    subject and attribute, read with the clause it is quoted with (another clause of the text
    when that one says its value), its value split from a verb phrase it starts with
    (:func:`verb_value`), and the relatives the clause names (:func:`named_relatives`) added
    as the speaker's when the model gave their names under no key; what is not a dict with
    string subject and attribute is left as it is (read_reply's checks refuse it).

    >>> with_clause_keys([{"subject": "Kai", "attribute": "drive a", "value": "Corolla"}],
    ...                  "I drive a blue Corolla", "kai")
    [{'subject': 'Kai', 'attribute': 'car', 'value': 'Corolla'}]
    """
    # a relative the clause names ("my daughter Ana") is a fact of its own, by the clause's
    # form, when the model gave that name under no key (Qwen2.5-Coder-0.5B, asked about "My
    # daughter Ana starts school next week", gave only when she starts)
    given = {_words(str(f.get("value"))) for f in facts if isinstance(f, dict)}
    facts = list(facts) + [
        {"subject": speaker, "attribute": relative, "value": name, "quote": clause}
        for relative, name in named_relatives(clause, before)
        if speaker and _words(name) not in given]
    out = []
    for fact in facts:
        if (isinstance(fact, dict) and isinstance(fact.get("subject"), str)
                and isinstance(fact.get("attribute"), str)):
            # a fact quoted with another clause of the text (with_part_quoted) is read with it
            said, ahead = clause, before
            quote = fact.get("quote")
            if isinstance(quote, str) and quote and quote != clause:
                said = quote
                ahead = before[:before.find(quote)] if quote in before else f"{before}{clause}"
            attribute, value = verb_value(fact["attribute"], fact.get("value"))
            subject, attribute = clause_key(fact["subject"], attribute, value, said, speaker,
                                            ahead, f"{before} {clause}")
            fact = {**fact, "subject": subject, "attribute": attribute, "value": value}
        out.append(fact)
    return out


def speaker_name(sources: Sequence[str]) -> str:
    """The name of the one speaker of ``sources`` (``human:george`` -> ``george``), ``""``
    when there is none or several.

    >>> speaker_name(["human:george"]), speaker_name(["human:a", "human:b"])
    ('george', '')
    """
    names = {s.rpartition(":")[2] for s in sources if s}
    return names.pop() if len(names) == 1 else ""
