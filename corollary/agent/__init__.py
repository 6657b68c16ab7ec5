"""The agent runtime: a model loop in which every step is a belief.

- :class:`Agent`: ``agent.run(task)`` / ``await agent.arun(task)`` -> :class:`Run`;
  ``agent.reverify(...)`` -> list of :class:`Refreshed`.
- :data:`DEFAULT_SYSTEM`: the system message the model gets unless ``system=`` says otherwise.
- :mod:`corollary.agent.prompts`: every text a model reads (the MCP server's instructions too).

It uses only the base's public API (``kb.call``/``acall``, ``kb.claim``, ``kb.recall``, ``kb.beliefs``,
``kb.calls``, ``kb.expired``, ``kb.faded``, ``kb.what_to_check``, ``kb.answer``) and the model
layer (:mod:`corollary.models`). See ``docs/agent.md``.
"""

from .loop import DEFAULT_SYSTEM, Agent
from .options import AgentOptions
from .records import Refreshed, Run, Step

__all__ = ["DEFAULT_SYSTEM", "Agent", "AgentOptions", "Refreshed", "Run", "Step"]
