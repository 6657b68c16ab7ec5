"""The keys a person would accept for each reference fact of the real-model benchmark's
snippets (issue 39): a fact counts as found "by key and value" only when a kept fact holds its
value under a key naming the right subject and an acceptable attribute.

Written by hand, as a person writing the facts down would name them, for the development set
(benchmarks/real_models/cases.py) and the held-out set (benchmarks/real_models/heldout.py,
which stays unchanged: these lists sit beside it), without looking at what any model kept on
the held-out set. Nouns a person would write as a heading ("city", "employer", "spouse"); not
the clause's verb ("moved to", "work at"), which reads right but is not a key anyone would
look up. A fact about someone the speaker names may sit under the speaker (``george:son age``)
or under that someone (``max:age``). Each entry is parallel to its set's ``SNIPPETS``: for
each snippet, for each fact, the acceptable (subject words, attribute names) pairs; the
speaker's name is ``"@"``.

Matching (:func:`key_matches`): a key's subject is the part before its last ``:``, its last
segment compared (``human:maria`` and ``maria`` both name Maria); words are compared lower-case,
without punctuation, a possessive ``'s`` or a plural ``s``.
"""

from __future__ import annotations

import re

Accepted = tuple[tuple[str, ...], tuple[str, ...]]

_EMPLOYER = ("employer", "company", "workplace", "organization", "organisation",
             "current employer", "new employer", "employer name", "company name")
_CITY = ("city", "home city", "residence", "location", "town", "home", "current city",
         "hometown")
_EMAIL = ("email", "email address", "e mail", "mail")
_PHONE = ("phone", "phone number", "telephone", "telephone number", "mobile", "mobile number",
          "cell", "cell phone", "contact number", "number")
_JOB = ("job", "occupation", "profession", "job title", "title", "role", "position", "career",
        "work", "trade")
_PET = ("pet", "pet name", "pets")
_SPEAKER = ("@",)

DEV: list[list[list[Accepted]]] = [
    [[(_SPEAKER, _CITY)], [(_SPEAKER, _EMPLOYER)]],
    [[(_SPEAKER, ("daughter", "daughter name", "child", "children", "kid", "kids"))],
     [(_SPEAKER, _EMAIL + ("new email",))]],
    [[(_SPEAKER, ("allergy", "allergies", "food allergy", "allergen"))],
     [(_SPEAKER, ("diet", "dietary restriction", "food restriction", "restriction",
                  "does not eat", "avoids", "avoided food"))]],
    [[(_SPEAKER, ("dog", "dog name", "dogs") + _PET)]],
    [[(_SPEAKER, ("office building", "building", "office", "office location", "workplace",
                  "building name"))],
     [(_SPEAKER, ("room", "room number", "office room", "office number", "office room number")),
      (("office",), ("room", "room number"))]],
    [[(_SPEAKER, ("diet", "dietary preference", "food preference", "dietary", "diet type"))],
     [(_SPEAKER, ("favourite dish", "favorite dish", "favourite food", "favorite food",
                  "favourite meal", "favorite meal", "dish"))]],
    [[(_SPEAKER, ("car", "vehicle", "car model", "car make"))],
     [(_SPEAKER, ("plate", "license plate", "licence plate", "number plate", "plate number",
                  "car plate", "registration", "license plate number")),
      (("car", "corolla"), ("plate", "license plate", "licence plate", "number plate",
                            "plate number", "registration"))]],
    [[(_SPEAKER, _PHONE)]],
    [[(_SPEAKER, _JOB)],
     [(_SPEAKER, ("instrument", "musical instrument", "hobby", "music"))]],
    [],
    [[(_SPEAKER, ("manager", "boss", "supervisor", "manager name"))],
     [(_SPEAKER, ("team", "department", "group", "team name"))]],
    [[(_SPEAKER, ("address", "home address", "home", "residence", "street address"))],
     [(_SPEAKER, ("cat", "cats", "cat name", "cat names") + _PET)],
     [(_SPEAKER, ("cat", "cats", "cat name", "cat names") + _PET)]],
]

HELDOUT: list[list[list[Accepted]]] = [
    [[(_SPEAKER, _EMPLOYER)],
     [(_SPEAKER, _JOB + ("new job", "new role", "new position"))]],
    [[(_SPEAKER, ("wife", "spouse", "partner", "wife name", "wife's name"))],
     [(_SPEAKER, ("son", "child", "children", "kid", "kids", "son name"))],
     [(_SPEAKER, ("son age", "child age", "kid age")), (("max",), ("age",))]],
    [[(_SPEAKER, ("destination", "travel destination", "trip", "trip destination",
                  "flight destination", "travel"))],
     [(_SPEAKER, ("flight", "flight number"))]],
    [[(_SPEAKER, ("invoice email", "invoice address", "invoice email address", "billing email",
                  "billing address", "billing email address", "invoicing email", "billing",
                  "invoices"))]],
    [[(_SPEAKER, ("intolerance", "food intolerance", "allergy", "dietary restriction",
                  "intolerant"))]],
    [],
    [[(_SPEAKER, ("birthday", "birth date", "date of birth", "birthdate", "dob"))],
     [(_SPEAKER, ("age",))]],
    [[(_SPEAKER, ("language", "languages", "spoken language", "spoken languages"))],
     [(_SPEAKER, ("language", "languages", "spoken language", "spoken languages"))],
     [(_SPEAKER, ("learning", "learning language", "language learning", "studying",
                  "studied language", "learning languages", "new language"))]],
    [[(_SPEAKER, ("wifi password", "password", "wi fi password", "network password")),
      (("wifi", "network", "attic"), ("password",))],
     [(_SPEAKER, ("wifi network", "network", "network name", "wifi name", "ssid", "wifi")),
      (("wifi",), ("network", "name", "network name", "ssid"))]],
    [[(_SPEAKER, ("phone", "smartphone", "mobile", "mobile phone", "cell phone", "device",
                  "phone model"))]],
    [[(_SPEAKER, ("cat", "cats", "cat name") + _PET)],
     [(_SPEAKER, ("cat age", "pet age")), (("pixel",), ("age",))]],
    [[(_SPEAKER, ("role", "job", "job title", "title", "position"))],
     [(_SPEAKER, ("project", "product", "projects"))],
     [(_SPEAKER, ("standup", "standup time", "stand up", "daily standup", "meeting",
                  "meeting time", "standup meeting"))]],
    [[(_SPEAKER, ("preferred name", "nickname", "call name"))],
     [(_SPEAKER, ("pronoun", "pronouns"))]],
]

_DOG = ("dog", "dogs", "dog name", "dog names") + _PET
_BREED = ("dog breed", "breed", "dog", "dog type", "pet breed")
_ORIGIN = ("from", "origin", "hometown", "home town", "home state", "birthplace",
           "place of origin", "home", "where from", "native state", "state", "grew up")
_STATE = ("state", "home state", "residence", "location", "home", "current state")
_LIKES = ("like", "likes", "love", "loves", "hobby", "hobbies", "interest", "interests",
          "enjoys", "activity", "favourite activity", "favorite activity", "favourite place",
          "favorite place", "pastime")


def _favourite(*things: str) -> tuple[str, ...]:
    return tuple(f"{f} {t}" for f in ("favourite", "favorite") for t in things)


#: benchmarks/real_models/public.py's snippets (Synthetic-Persona-Chat), written with their
#: facts, before any model was run on them.
PUBLIC: list[list[list[Accepted]]] = [
    [[(_SPEAKER, _DOG), (("german shepherd",), ("name",))], [(_SPEAKER, _BREED)]],
    [[(_SPEAKER, _favourite("book", "novel"))]],
    [[(_SPEAKER, _favourite("book", "novel"))]],
    [],
    [[(_SPEAKER, ("age",))], [(_SPEAKER, _JOB)],
     [(_SPEAKER, ("plan", "plans", "planning", "intention", "marital plan", "marriage plan"))]],
    [[(_SPEAKER, ("name", "real name", "first name")), (("jane",), ("name",))]],
    [[(_SPEAKER, _favourite("movie", "film"))]],
    [[(_SPEAKER, _favourite("movie", "film"))]],
    [[(_SPEAKER, _favourite("book", "novel"))]],
    [[(_SPEAKER, _favourite("watch") + ("watch",))]],
    [[(_SPEAKER, _favourite("piece", "music", "piece of music", "classical piece",
                            "composition", "song"))]],
    [[(_SPEAKER, _EMPLOYER)]],
    [[(_SPEAKER, _ORIGIN)]],
    [[(_SPEAKER, _favourite("game", "video game"))]],
    [[(_SPEAKER, _favourite("rpg", "game", "video game"))]],
    [[(_SPEAKER, ("age",))]],
    [[(_SPEAKER, ("country", "home country", "residence", "location", "home",
                  "country of residence", "current country"))]],
    [[(_SPEAKER, _DOG), (("german shepherd",), ("name",))], [(_SPEAKER, _BREED)]],
    [[(_SPEAKER, _DOG + ("golden retriever",)), (("golden retriever",), ("name",))],
     [(_SPEAKER, _DOG + ("poodle",)), (("poodle",), ("name",))],
     [(_SPEAKER, _DOG + ("chihuahua",)), (("chihuahua",), ("name",))]],
    [[(_SPEAKER, ("hometown", "home town", "town", "from", "origin", "birthplace",
                  "place of origin", "home"))]],
    [[(_SPEAKER, _LIKES)], [(_SPEAKER, _STATE)]],
    [[(_SPEAKER, _LIKES)], [(_SPEAKER, _STATE)]],
    [[(_SPEAKER, _ORIGIN)]],
    [[(_SPEAKER, _ORIGIN)]],
    [[(_SPEAKER, ("age",))], [(_SPEAKER, _LIKES + ("drink", "favourite drink",
                                                   "favorite drink"))],
     [(_SPEAKER, _LIKES)]],
]

#: The references by case set name (benchmarks/real_models/runner.py's ``CASE_SETS``).
KEYS = {"dev": DEV, "heldout": HELDOUT, "public": PUBLIC}


def words(text: str) -> str:
    """``text`` as the matching compares it.

    >>> words("Wife's  Name"), words("license_plates")
    ('wife name', 'license plate')
    """
    out = re.findall(r"[a-z0-9]+", text.lower().replace("'s", "").replace("\u2019s", ""))
    return " ".join(w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
                    for w in out if w != "s")  # "son_s_age": a key's "son's age"


def key_matches(key: str, speaker: str, accepted: list[Accepted]) -> bool:
    """Whether ``key`` names one of the ``accepted`` (subject, attribute) pairs of a fact told
    by ``speaker`` (``"human:maria"``).

    >>> key_matches("maria:city", "human:maria", [(("@",), ("city",))])
    True
    >>> key_matches("maria:moved_to", "human:maria", [(("@",), ("city",))])
    False
    >>> key_matches("max:age", "human:george", [(("@",), ("son age",)), (("max",), ("age",))])
    True
    """
    subject, sep, attribute = key.rpartition(":")
    if not sep:
        return False
    name = words(subject.rpartition(":")[2])
    me = words(speaker.rpartition(":")[2])
    return any(name in {me if s == "@" else words(s) for s in subjects}
               and words(attribute) in {words(a) for a in attributes}
               for subjects, attributes in accepted)
