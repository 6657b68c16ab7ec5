"""A key of several values read at a world time as a key, checked against the oracle's labels
(tests/support/oracle.py)."""

from __future__ import annotations

from typing import Any

import pytest

from corollary import AmbiguousValueError, BeliefBase
from corollary.foundations.values import is_end


def check_key_at(kb: BeliefBase, view: Any, expected: dict[Any, Any], key: str,
                 t: float) -> None:
    """``view.value(key)``, ``label(key)`` and ``confidence(key)`` of a key of several values
    against the oracle: the one value held (not an end), none, or an open conflict."""
    held = [(kb.engine.find(k, vid).value, conf) for (k, vid), (label, conf) in expected.items()
            if k == key and label == "IN"]
    values = [v for v, _ in held if not is_end(v)]
    if len(held) > 1 and len(values) > 0:
        with pytest.raises(AmbiguousValueError):
            view.value(key)
        return
    if not values:
        assert view.value(key, "none") == "none", f"at {t}: {key}"
        assert view.label(key) == "OUT" and view.confidence(key) == 0.0, f"at {t}: {key}"
        return
    assert view.value(key) == values[0], f"at {t}: {key}"
    assert view.label(key) == "IN", f"at {t}: {key}"
    assert view.confidence(key) == pytest.approx(held[0][1], abs=1e-9), f"at {t}: {key}"
