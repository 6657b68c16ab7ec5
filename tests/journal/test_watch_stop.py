"""``Watch.stop()`` returns only once no callback of it can run (issue 26, point 4). Before,
notification iterated a copy of the watchers and ``stop`` took no lock: a callback already
started kept running after ``stop`` returned, and one more could start after it."""

from __future__ import annotations

import threading
import time

from corollary import BeliefBase, ManualClock, TrustLedger, WatchEvent


def test_stop_waits_for_a_running_callback_and_none_runs_after() -> None:
    kb = BeliefBase.open_session(TrustLedger(), "s", clock=ManualClock(0))
    entered, release = threading.Event(), threading.Event()
    heard: list[str] = []
    finished: list[str] = []

    def slow(event: WatchEvent) -> None:
        heard.append(event.key)
        entered.set()
        release.wait(10)
        finished.append(event.key)

    watch = kb.watch(slow)
    writer = threading.Thread(target=kb.assert_many,
                              args=([("a", 1, "tool:t"), ("b", 2, "tool:t")],))
    writer.start()
    assert entered.wait(10)  # the first callback is running, in the writer's thread
    returned: list[int] = []
    stopper = threading.Thread(target=lambda: (watch.stop(), returned.append(len(finished))))
    stopper.start()
    time.sleep(0.2)  # room for a stop that does not wait to return (what this test refuses)
    assert returned == []  # still waiting for the running callback
    release.set()
    stopper.join(10)
    writer.join(10)
    assert returned == [1]  # it returned after that callback finished...
    assert heard == finished == ["a"]  # ...and the entry's second event was never delivered
    kb.assert_("c", 3, source="tool:t")
    assert heard == ["a"] and not watch.active


def test_a_callback_may_stop_its_own_watch() -> None:
    kb = BeliefBase.open_session(TrustLedger(), "s", clock=ManualClock(0))
    heard: list[str] = []

    def once(event: WatchEvent) -> None:
        heard.append(event.key)
        handle.stop()

    handle = kb.watch(once)
    kb.assert_many([("a", 1, "tool:t"), ("b", 2, "tool:t")])
    assert heard == ["a"]


def test_watch_lives_in_its_own_module_and_the_old_import_still_works() -> None:
    from corollary.facade import journaled, watching

    assert journaled.Watch is watching.Watch is __import__("corollary").Watch
