"""corollary where agent builders already keep memory and tools, in-process (no MCP child):

- :mod:`corollary.integrations.langgraph`: ``CorollaryStore``, a LangGraph ``BaseStore`` over a
  base (the ``langgraph`` extra);
- :mod:`corollary.integrations.operations`: the operations every native toolset offers (assert,
  claim, retract, recall, explain), over a base and an optional scope;
- :mod:`corollary.integrations.pydantic_ai`: those operations as a pydantic-ai toolset;
- :mod:`corollary.integrations.openai_agents`: the same as OpenAI Agents SDK function tools
  (both frameworks are the ``frameworks`` extra);
- :mod:`corollary.integrations.local_model`: ``AnswerAfterText``, which makes a small local model
  that answers in plain text state its answer through the ``answer`` tool.

Each module imports its framework when it is imported, and says which extra to install when the
framework is missing (:class:`~corollary.foundations.errors.MissingExtraError`). See
docs/integrations.md.
"""
