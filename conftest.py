"""Collection for the whole repository (the doctests under corollary/ too)."""

import importlib.util

# corollary/mcp/server.py and sdk.py import the MCP SDK, the optional extra `mcp`: without it
# there is nothing of them to doctest (tests/mcp skips with a reason).
collect_ignore = ([] if importlib.util.find_spec("mcp")
                  else ["corollary/mcp/server.py", "corollary/mcp/sdk.py"])
