"""Whether a model is small, by the size its name states: the rule that picks small-model mode
when ``OpenAIChat(small_model=None)`` speaks to a local server (a ``dialect`` other than
``"openai"``; docs/models.md, "A small-model mode").

Model names on every server listed in docs/models.md usually state the parameter count
(``Qwen2.5-Coder-0.5B-Instruct``, ``SmolLM2-135M-Instruct``, ``llama3.2:1b``); a model of
under two billion parameters gets small-model mode. It was measured on Qwen2.5-Coder 0.5B and
1.5B, which both found far more facts with it (docs/models.md, "remember with
`small_model=True`"). A name that states no size (``gpt-4o-mini``, an alias) is not small.
"""

from __future__ import annotations

import re

__all__ = ["SMALL_PARAMETERS", "stated_parameters", "small_by_name"]

#: Under this many parameters a model is small (small-model mode by default).
SMALL_PARAMETERS = 2e9

# a count followed by B (billions) or M (millions), not by another letter or digit, and not
# the end of a version number ("2.5" in "qwen2.5-coder"): "0.5b", "135M", ":1b", "8x7b"
_SIZE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)([bm])(?![a-z\d])", re.IGNORECASE)


def stated_parameters(name: str) -> float | None:
    """The parameter count ``name`` states (the largest, when it states several), or ``None``.

    >>> stated_parameters("Qwen2.5-Coder-0.5B-Instruct"), stated_parameters("SmolLM2-135M")
    (500000000.0, 135000000.0)
    >>> stated_parameters("mixtral-8x7b"), stated_parameters("gpt-4o-mini")
    (7000000000.0, None)
    """
    counts = [float(number) * (1e9 if unit.lower() == "b" else 1e6)
              for number, unit in _SIZE.findall(name)]
    return max(counts) if counts else None


def small_by_name(name: str) -> bool:
    """Whether ``name`` states a size under :data:`SMALL_PARAMETERS`.

    >>> [small_by_name(n) for n in ("qwen2.5-coder-0.5b", "llama3.2:1b", "Qwen2.5-7B-Instruct",
    ...                             "gemma-2b", "gpt-4o-mini")]
    [True, True, False, False, False]
    """
    count = stated_parameters(name)
    return count is not None and count < SMALL_PARAMETERS
