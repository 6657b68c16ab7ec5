"""The held-out set of the real-model benchmark (issue 39, "Done when": "on your own held-out
snippets and tasks"). Written before the fixes of branch ``models`` and committed alone, before
any library change; never changed after (a reference found wrong is reported, not edited).
benchmarks/real_models/cases.py, looked at while earlier fixes were made, is the development
set. Not written to suit any model: snippets as people write them, the facts a person would
write down, look-ups over a base of other beliefs than the development set's, and two tasks
that need the one tool (one names it, one does not)."""

from __future__ import annotations

from typing import Any

from corollary import tool

#: (speaker, text, facts a person would write down as (attribute words, value)).
SNIPPETS: list[tuple[str, str, list[tuple[str, Any]]]] = [
    ("human:lena", "Quick update: I got the job at Spotify! Starting as a data engineer in March.",
     [("employer", "Spotify"), ("job", "data engineer")]),
    ("human:george", "My wife's name is Helen and our son Max just turned 7.",
     [("wife", "Helen"), ("son", "Max"), ("son's age", 7)]),
    ("human:priya", "I'm flying to Denver on the 14th, my flight is UA 2231.",
     [("destination", "Denver"), ("flight", "UA 2231")]),
    ("human:marco", "Please send invoices to billing@marcoventures.it instead of my personal "
     "address.", [("invoice email", "billing@marcoventures.it")]),
    ("human:yuki", "I'm lactose intolerant so no milk in my coffee, thanks.",
     [("intolerance", "lactose")]),
    ("human:dev", "What's the weather going to be like tomorrow?", []),
    ("human:fatima", "My birthday is on May 3rd and I'm turning 30.",
     [("birthday", "May 3rd"), ("age", 30)]),
    ("human:olga", "I speak Russian and Portuguese, and I'm learning Japanese.",
     [("language", "Russian"), ("language", "Portuguese"), ("learning", "Japanese")]),
    ("human:chris", "Our wifi password is sunflower77, the network is called Attic.",
     [("wifi password", "sunflower77"), ("wifi network", "Attic")]),
    ("human:amara", "I switched from Android to an iPhone 15 last month.",
     [("phone", "iPhone 15")]),
    ("human:henrik", "My cat Pixel is 4 years old and hates the vacuum.",
     [("cat", "Pixel"), ("cat's age", 4)]),
    ("human:sofia", "I'm the product lead for Orion, and my standup is at 9:30 every day.",
     [("role", "product lead"), ("project", "Orion"), ("standup", "9:30")]),
    ("human:ben", "I prefer to be called Benny, and I use he/him pronouns.",
     [("preferred name", "Benny"), ("pronouns", "he/him")]),
]

#: The base the tasks run on: key -> value (asserted by tool:records).
BELIEFS: dict[str, Any] = {
    "book:dune:author": "Frank Herbert", "book:emma:author": "Jane Austen",
    "book:dune:year": 1965, "book:emma:year": 1815,
    "room:a101:capacity": 12, "room:b204:capacity": 30,
    "room:a101:floor": 1, "room:b204:floor": 2,
    "server:web1:ip": "10.0.3.17", "server:db1:ip": "10.0.3.40",
    "server:web1:os": "Debian 12", "server:db1:os": "Ubuntu 22.04",
    "flight:lh400:gate": "B22", "flight:af1234:gate": "K7",
    "flight:lh400:departs": "14:35", "flight:af1234:departs": "09:10",
    "student:maya:grade": "A-", "student:leo:grade": "B+",
    "student:maya:advisor": "Dr. Okafor", "student:leo:advisor": "Dr. Lindqvist",
    "supplier:acme:country": "Germany", "supplier:zenith:country": "Brazil",
    "supplier:acme:contact": "Petra Vogel", "supplier:zenith:contact": "Rafael Costa",
}

#: UTC offsets in hours the one tool (tz_offset) knows.
OFFSETS = {"TOKYO": 9.0, "DELHI": 5.5, "BERLIN": 1.0, "NEW YORK": -5.0}


@tool(name="tz_offset", key="tz:{city}")
def tz_offset(city: str) -> float:
    """The UTC offset of a city in hours, e.g. tz_offset("Berlin") is 1.0."""
    return OFFSETS[city.strip().upper()]


#: The tools the agent is given for these tasks.
TOOLS = [tz_offset]

#: The source of every belief of the base.
SOURCE = "tool:records"

#: (task, reference answer): six look-ups, two tasks whose answer is the tool's result.
TASKS: list[tuple[str, Any]] = [
    ("Who wrote Dune?", "Frank Herbert"),
    ("What is the IP address of the db1 server?", "10.0.3.40"),
    ("How many people fit in room B204?", 30),
    ("Which gate does flight LH400 leave from?", "B22"),
    ("What grade did Leo get?", "B+"),
    ("In which country is the supplier Zenith?", "Brazil"),
    ("What is the UTC offset of Delhi in hours? Use the tz_offset tool.", 5.5),
    ("How many hours ahead of UTC is Tokyo?", 9.0),
]
