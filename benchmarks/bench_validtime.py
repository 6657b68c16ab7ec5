"""Valid time on public time-scoped questions: TimeQA's human-annotated test set.

Run:  python benchmarks/bench_validtime.py --data PATH/human_annotated_test.json

The file is from the TimeQA repository (wenhuchen/Time-Sensitive-QA, ``dataset/``; NeurIPS 2021
datasets track, BSD-3-Clause): each record is one subject and relation (``/wiki/X#P937``, where
X worked) with questions that each name a time ("... from 2004 to 2005?") and the answer valid
then. Nothing of it is kept in this repository; pass its path.

Each record becomes one key. Each answered question whose time parses (``[Month] YYYY``
mentions: "from A to B", "between A and B", "A to B", or one date "in A") is a fact: its
answer, valid from the start of A until the end of B (the end of A for one date). Paraphrased
questions about one fact are one fact. The facts are asserted with ``valid_from`` /
``valid_until`` under ``PreferNewer``:

- in time order, in reverse order, and shuffled (arrival order must not matter);
- from one source, and from sources of different trust (a registry tool 0.95, a document
  0.9, a model 0.9, an assumption 0.6, by a hash of the fact: not tuned to the data);
- with a rumour: an assumption asserting another record's answer for each key, starting after
  its last fact (a weak newer claim must not silently replace a strong one).

Reported, beside a plain baseline in the same run (a base without valid time, one source,
that keeps the last value asserted, as corollary did before valid time):

- ``at(t)``: the share of questions whose ``kb.at(t).value(key)`` is the answer valid at
  ``t``, ``t`` inside the question's interval (half of its first unit in: mid-month or
  mid-year, or the middle of a shorter interval); the baseline's one value answers every ``t``;
- ``latest``: the share of keys whose ``kb.value(key)`` now is the answer of the fact that
  started last;
- ``stale recall``: the share of recalls (the question's text, k = 5, now and at ``t``) that
  return a value of the asked key not valid then (superseded, not begun or ended): must be 0.
"""

from __future__ import annotations

import argparse
import calendar
import hashlib
import itertools
import json
import random
import re
import time
from datetime import datetime, timezone
from typing import Any

from corollary import AmbiguousValueError, BeliefBase, ManualClock, PreferNewer

MONTHS = {name.lower(): i for i, name in enumerate(calendar.month_abbr) if name}
MONTHS.update({name.lower(): i for i, name in enumerate(calendar.month_name) if name})
_NAMES = "|".join(sorted(MONTHS, key=len, reverse=True))
DATE = re.compile(rf"(?:\b({_NAMES})\.?\s+)?\b(1[0-9]{{3}}|20[0-9]{{2}})\b", re.IGNORECASE)
_DATE = rf"(?:(?:{_NAMES})\.?\s+)?(?:1[0-9]{{3}}|20[0-9]{{2}})"
RANGE = re.compile(rf"\b({_DATE})\s*(?:to|and|until|till|-|–)\s*({_DATE})\b", re.IGNORECASE)
SOURCES = ["tool:registry", "document:wiki", "model:reader", "assumption:note"]
NOW = datetime(2030, 1, 1, tzinfo=timezone.utc).timestamp()  # after every fact
DAY = 86400.0


def seconds(year: int, month: int = 1) -> float:
    return datetime(year, month, 1, tzinfo=timezone.utc).timestamp()


def date_span(month: str | None, year: str) -> tuple[float, float]:
    """A date's first instant and the first instant after it (a month, else a year)."""
    y = int(year)
    if month:
        m = MONTHS[month.lower()]
        return seconds(y, m), seconds(y + (m == 12), m % 12 + 1)
    return seconds(y), seconds(y + 1)


def interval(question: str) -> tuple[float, float] | None:
    """The time a question asks about: ``[start, end)``, or ``None`` if it names none."""
    dates = list(DATE.finditer(question))
    if not dates:
        return None
    ranges = list(RANGE.finditer(question))
    if ranges:
        last = ranges[-1]
        first, second = DATE.search(last.group(1)), DATE.search(last.group(2))
        assert first is not None and second is not None
        start = date_span(first.group(1), first.group(2))[0]
        end = date_span(second.group(1), second.group(2))[1]
        return (start, end) if end > start else None
    if len(dates) == 1:
        return date_span(dates[0].group(1), dates[0].group(2))
    return None


def probe(start: float, end: float) -> float:
    """The instant a question is asked at: half of its first month or year in."""
    unit = 15 * DAY if end - start < 400 * DAY else 182 * DAY
    return start + min(unit, (end - start) / 2)


def load(path: str) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """Records as ``{"key", "facts": [(start, end, answer)], "questions": [(text, t, answer)]}``."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    counts = {"records": len(data), "questions": 0, "unanswered": 0, "no_time": 0}
    records = []
    for i, record in enumerate(data):
        facts: dict[tuple[float, float, str], None] = {}
        questions = []
        for text, answers in record["questions"]:
            counts["questions"] += 1
            answer = next((a["answer"] for a in answers if a.get("answer")), None)
            if answer is None:
                counts["unanswered"] += 1
                continue
            span = interval(text)
            if span is None:
                counts["no_time"] += 1
                continue
            facts[(span[0], span[1], answer)] = None
            questions.append((text, probe(*span), answer))
        if facts:
            records.append({"key": f"timeqa:{i}", "facts": sorted(facts), "questions": questions})
    return records, counts


def trusted(fact: tuple[float, float, str], mixed: bool) -> str:
    if not mixed:
        return SOURCES[0]
    digest = hashlib.blake2b(repr(fact).encode(), digest_size=2).digest()
    return SOURCES[int.from_bytes(digest, "big") % len(SOURCES)]


def arrival(facts: list[Any], order: str, rng: random.Random) -> list[Any]:
    if order == "time":
        return list(facts)
    if order == "reverse":
        return list(reversed(facts))
    shuffled = list(facts)
    rng.shuffle(shuffled)
    return shuffled


def run(records: list[dict[str, Any]], order: str, mixed: bool, rumour: bool,
        margin: float, seed: int, ends: bool) -> dict[str, float]:
    rng = random.Random(seed)
    kb = BeliefBase(clock=ManualClock(NOW), conflict_policy=PreferNewer(margin))
    plain = BeliefBase(clock=ManualClock(NOW))
    t0 = time.perf_counter()
    n_facts = 0
    for i, r in enumerate(records):
        for fact in arrival(r["facts"], order, rng):
            start, end, answer = fact
            kb.assert_(r["key"], answer, source=trusted(fact, mixed), valid_from=start,
                       valid_until=end if ends else None)
            plain.assert_(r["key"], answer, source="tool:registry")
            n_facts += 1
        if rumour:
            other = records[(i + 1) % len(records)]["facts"][0][2]
            last = max(e for _, e, _ in r["facts"])  # after every question's time
            kb.assert_(r["key"], f"{other} (rumour)", source="assumption:rumour",
                       valid_from=last + DAY)
    load_s = time.perf_counter() - t0
    asked = right = plain_right = contested = 0
    stale = recalls = 0
    latest = plain_latest = keys = rumoured = open_now = 0
    t1 = time.perf_counter()
    for r in records:
        key = r["key"]
        keys += 1
        newest = max(r["facts"])[2]
        try:
            now_value = kb.value(key)
        except AmbiguousValueError:
            now_value = None
            open_now += 1
        latest += now_value == newest
        rumoured += isinstance(now_value, str) and now_value.endswith("(rumour)")
        plain_latest += plain.value(key) == newest
        hits = kb.recall(r["questions"][0][0], limit=5)
        recalls += 1
        stale += any(h.key == key and h.value != now_value and not h.conflict for h in hits)
        for text, t, answer in r["questions"]:
            asked += 1
            view = kb.at(t)
            try:
                got = view.value(key)
            except AmbiguousValueError:
                got = None
                contested += 1
            right += got == answer
            plain_right += plain.value(key) == answer
            recalls += 1
            held = {got} if got is not None else set()
            stale += any(h.key == key and h.value not in held and not h.conflict
                         for h in view.recall(text, limit=5))
    read_s = time.perf_counter() - t1
    return {"facts": n_facts, "questions": asked, "at": right / asked,
            "plain_at": plain_right / asked, "latest": latest / keys,
            "plain_latest": plain_latest / keys, "contested": contested / asked,
            "rumour_held": rumoured / keys, "open_now": open_now / keys, "stale_recall": stale / recalls,
            "recalls": recalls, "load_s": load_s, "read_ms": read_s / asked * 1e3}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", required=True, help="TimeQA's human_annotated_test.json")
    parser.add_argument("--margin", type=float, default=0.2, help="PreferNewer's margin")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    records, counts = load(args.data)
    facts = sum(len(r["facts"]) for r in records)
    print(f"TimeQA human-annotated test: {counts['records']} records, {counts['questions']} "
          f"questions ({counts['unanswered']} unanswered, {counts['no_time']} naming no time "
          f"left out); {len(records)} keys, {facts} facts")
    print(f"PreferNewer(margin={args.margin}); baseline: no valid time, one source, the last "
          "value asserted")
    print("ends: facts asserted with their ends (every one ended before now, so nothing holds "
          "now and 'latest' does not apply) or with their starts only (each holds until the "
          "next starts)")
    print(f"{'ends':5} {'order':8} {'sources':7} {'rumour':6} | {'at(t)':>6} {'plain':>6} | "
          f"{'latest':>6} {'plain':>6} | {'at(t) open':>10} {'now open':>8} "
          f"{'rumour held':>11} | {'stale recall':>12} | {'load s':>6} {'ms/q':>5}")
    for ends, rumour, mixed, order in itertools.product(
            (True, False), (False, True), (False, True), ("time", "reverse", "shuffled")):
        m = run(records, order, mixed, rumour, args.margin, args.seed, ends)
        latest = "-" if ends else f"{m['latest']:.1%}"
        held = "-" if ends or not rumour else f"{m['rumour_held']:.1%}"
        print(f"{'yes' if ends else 'no':5} {order:8} {'mixed' if mixed else 'one':7} "
              f"{'yes' if rumour else 'no':6} | {m['at']:6.1%} {m['plain_at']:6.1%} | "
              f"{latest:>6} {m['plain_latest']:6.1%} | {m['contested']:10.1%} "
              f"{m['open_now']:8.1%} {held:>11} | {m['stale_recall']:12.1%} | "
              f"{m['load_s']:6.2f} {m['read_ms']:5.2f}")


if __name__ == "__main__":
    main()
