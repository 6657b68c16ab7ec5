"""Held-out cases for the real-model benchmark (issue 39 item 6), written for it: chat snippets
with the facts a person would write down, and look-up and one-tool tasks over a base of about
30 beliefs with their reference answers. None of them appears in corollary's prompts."""

from __future__ import annotations

from typing import Any

#: (speaker, text, facts a person would write down as (attribute words, value)).
SNIPPETS: list[tuple[str, str, list[tuple[str, Any]]]] = [
    ("human:maria", "Hi, I'm Maria. I moved to Lisbon in January and I work at Feedzai now.",
     [("city", "Lisbon"), ("employer", "Feedzai")]),
    ("human:tom", "My daughter Ana starts school next week. Also my email changed to "
     "tom.k@proton.me, use that one from now on.", [("daughter", "Ana"),
                                                    ("email", "tom.k@proton.me")]),
    ("human:li", "I'm allergic to peanuts, and I don't eat pork either.",
     [("allergy", "peanuts"), ("does not eat", "pork")]),
    ("human:sam", "We adopted a dog last weekend, his name is Biscuit!", [("dog", "Biscuit")]),
    ("human:ravi", "Our office is on the 4th floor of the Alder building, room 412.",
     [("office building", "Alder"), ("room", "412")]),
    ("human:jo", "I'm vegetarian, mostly. My favourite dish is mushroom risotto.",
     [("diet", "vegetarian"), ("favourite dish", "mushroom risotto")]),
    ("human:kai", "I drive a blue Corolla. The plate is KX-3391.",
     [("car", "Corolla"), ("plate", "KX-3391")]),
    ("human:nina", "My phone number is 555-0142, call after 6pm please.",
     [("phone", "555-0142")]),
    ("human:omar", "I've been a welder for twelve years and I play the oud on weekends.",
     [("job", "welder"), ("instrument", "oud")]),
    ("human:beth", "Can you remind me what time it is in Tokyo?", []),
    ("human:pablo", "My manager is Dana Whitfield and my team is Payments.",
     [("manager", "Dana Whitfield"), ("team", "Payments")]),
    ("human:ines", "I live at 18 Pine Avenue with my two cats, Miso and Tofu.",
     [("address", "18 Pine Avenue"), ("cats", "Miso"), ("cats", "Tofu")]),
]

#: The base the tasks run on: key -> value (asserted by tool:hr, tool:crm, document:catalog).
BELIEFS: dict[str, Any] = {
    "employee:ada:extension": 4417, "employee:bo:extension": 4102,
    "employee:chen:extension": 4388, "employee:dara:extension": 4251,
    "employee:ada:team": "Platform", "employee:bo:team": "Billing",
    "employee:chen:team": "Search", "employee:dara:team": "Platform",
    "product:widget:price": 19.5, "product:gadget:price": 42.0,
    "product:gizmo:price": 7.25, "product:doohickey:price": 99.0,
    "product:widget:stock": 120, "product:gadget:stock": 0,
    "project:atlas:owner": "Chen", "project:borealis:owner": "Ada",
    "project:cygnus:owner": "Dara", "project:atlas:deadline": "2025-03-31",
    "project:borealis:deadline": "2025-06-30", "project:cygnus:deadline": "2025-01-15",
    "customer:7:email": "bo@example.com", "customer:7:plan": "starter",
    "customer:42:email": "li@example.org", "customer:42:plan": "enterprise",
    "customer:99:email": "sam@example.net", "customer:99:plan": "team",
    "office:berlin:floor": 3, "office:lisbon:floor": 5,
}

#: Exchange rates the one tool (fx_rate) knows.
RATES = {"EUR": 1.08, "GBP": 1.27, "JPY": 0.0067}

#: (task, reference answer): simple look-ups and one-tool tasks (the answer is a tool's result).
TASKS: list[tuple[str, Any]] = [
    ("What is Chen's phone extension?", 4388),
    ("Who owns project Borealis?", "Ada"),
    ("What is the price of a gizmo?", 7.25),
    ("Which plan is customer 42 on?", "enterprise"),
    ("What is customer 99's email address?", "sam@example.net"),
    ("When is project Cygnus due?", "2025-01-15"),
    ("What is the exchange rate of GBP in US dollars? Use the fx_rate tool.", 1.27),
    ("Which team is Bo in?", "Billing"),
]
