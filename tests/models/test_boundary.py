"""The model layer stands alone, and the adapter example of docs/models.md works."""

from __future__ import annotations

import ast
import copy
import re
import sys
from pathlib import Path

import corollary.foundations.errors
import corollary.models
from corollary.foundations.errors import CorollaryError
from corollary.models import Reply, ToolCall, complete

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "corollary" / "models"


def imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                found.add(node.module or "")
            elif node.level == 1:
                found.add(f"corollary.models.{node.module}")
            else:
                found.add(f"corollary.{node.module}")
    return found


#: Below the model layer it reads only the errors and the request options (which the facade
#: shares with it, and which themselves import only the errors: checked below).
SHARED = {"corollary.foundations.errors", "corollary.foundations.model_request"}


def test_the_model_layer_imports_only_errors_attrs_and_the_standard_library():
    files = sorted(PACKAGE.glob("*.py"))
    assert len(files) == 7
    outside = {}
    options = ROOT / "corollary" / "foundations" / "model_request.py"
    for path in [*files, options]:
        for module in imports(path):
            if path == options and module == "corollary.models.errors":  # its "from .errors"
                module = "corollary.foundations.errors"
            top = module.split(".")[0]
            allowed = (module in SHARED or module.startswith("corollary.models.")
                       or top == "attrs" or (top in sys.stdlib_module_names and top != "corollary"))
            if not allowed:
                outside.setdefault(path.name, []).append(module)
    assert outside == {}


def test_every_public_name_is_exported_and_every_model_error_is_a_corollary_error():
    assert sorted(corollary.models.__all__) == sorted(
        name for name in dir(corollary.models) if not name.startswith("_")
        and name not in {"openai_chat", "protocol", "reply", "schema", "scripted", "sizes"})
    names = ["ModelError", "ScriptExhaustedError", "ModelHTTPError", "ModelTimeoutError",
             "ModelConnectionError", "ModelResponseError"]
    for name in names:
        error = getattr(corollary.foundations.errors, name)
        assert issubclass(error, CorollaryError) and issubclass(error, corollary.foundations.errors.ModelError)
    assert issubclass(corollary.foundations.errors.ModelError, RuntimeError)


class FakeMessage:
    def __init__(self, content, tool_calls=()):
        self.content = content
        self.tool_calls = list(tool_calls)


class FakeChat:
    """What a LangChain chat model looks like from outside: bind_tools and invoke."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.seen = []
        self.tools = None

    def bind_tools(self, tools):
        bound = copy.copy(self)  # shares the answers and what was seen
        bound.tools = tools
        return bound

    def invoke(self, messages):
        self.seen.append((self.tools, messages))
        return self.answers.pop(0)


def test_the_adapter_example_in_the_docs_runs():
    text = (ROOT / "docs" / "models.md").read_text()
    block = next(b for b in re.findall(r"```python\n(.*?)```", text, flags=re.S) if "class LangChainModel" in b)
    namespace: dict = {}
    exec(compile(block, "docs/models.md", "exec"), namespace)  # noqa: S102 - our own docs
    chat = FakeChat([
        FakeMessage("", [{"id": "x1", "name": "quote", "args": {"symbol": "ACME"}},
                         {"id": None, "name": "now", "args": None}]),
        FakeMessage([{"type": "text", "text": "ACME "}, {"type": "text", "text": "is 101.5."}]),
    ])
    model = namespace["LangChainModel"](chat)
    tools = [{"type": "function", "function": {"name": "quote", "parameters": {"type": "object"}}}]
    messages = [{"role": "user", "content": "Price of ACME?"}]
    assert complete(model, messages, tools) == Reply(None, (ToolCall("x1", "quote", {"symbol": "ACME"}),
                                                           ToolCall("call_1", "now")))
    assert complete(model, messages, []) == Reply("ACME is 101.5.")
    assert [seen_tools for seen_tools, _ in chat.seen] == [tools, None]
