"""Collection for the whole repository (the doctests under corollary/ too)."""

import importlib.util

# corollary/mcp/server.py, sdk.py, remember_tool.py and many.py import the MCP SDK (and pydantic, which it
# brings), the optional extra `mcp`: without it there is nothing of them to doctest (tests/mcp
# skips with a reason).
collect_ignore = ([] if importlib.util.find_spec("mcp")
                  else ["corollary/mcp/server.py", "corollary/mcp/sdk.py",
                        "corollary/mcp/remember_tool.py", "corollary/mcp/many.py"])

# corollary/integrations/*.py import their agent framework (the langgraph and frameworks extras)
_FRAMEWORKS = {"langgraph.py": "langgraph", "pydantic_ai.py": "pydantic_ai",
               "openai_agents.py": "agents"}
collect_ignore += [f"corollary/integrations/{name}" for name, module in _FRAMEWORKS.items()
                   if importlib.util.find_spec(module) is None]

# tests/data/*.py write fixture files (run by hand, docs in each): a test imports what it needs
# from them, and collecting them as doctest modules too would define their tools twice
collect_ignore_glob = ["tests/data/*.py"]

# the package imported whole before collection: a module collected first on its own (pytest's
# importlib mode, `pytest --doctest-modules corollary/facade/operations.py`) is then the one the
# package holds, not a second copy executed again beside it (whose classes, such as an
# operation's declaration, the package's own modules would not recognise)
import corollary  # noqa: E402, F401
