"""Collection for the whole repository (the doctests under corollary/ too)."""

import importlib.util

# corollary/mcp/server.py imports the MCP SDK, the optional extra `mcp`: without it there is
# nothing of it to doctest (tests/test_mcp.py skips with a reason).
collect_ignore = [] if importlib.util.find_spec("mcp") else ["corollary/mcp/server.py"]
