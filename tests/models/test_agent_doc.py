"""docs/agent.md's first block runs as written against an OpenAI-compatible server (a real
scripted HTTP server on 127.0.0.1 in place of ``http://localhost:8000/v1``): the model calls
the tool twice, claims the growth with its formula, and answers (issue 20: the block's tool
returned ``None`` and the run failed)."""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

from model_server import Answer, Server, completion

DOC = Path(__file__).resolve().parents[2] / "docs" / "agent.md"
URL = "http://localhost:8000/v1"


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "type": "function",
            "function": {"name": name, "arguments": json.dumps(arguments)}}


def test_the_first_block_runs_an_agent(server: Server) -> None:
    block = re.findall(r"```python\n(.*?)```", DOC.read_text(), flags=re.S)[0]
    assert block.count(URL) == 1
    server.then(
        Answer(body=completion(None, [call("c1", "revenue", quarter="Q2"),
                                      call("c2", "revenue", quarter="Q3")], "tool_calls")),
        Answer(body=completion(None, [call("c3", "claim", key="growth", value=0.1,
                                           inputs={"q2": "revenue:Q2", "q3": "revenue:Q3"},
                                           formula="(q3 - q2) / q2")], "tool_calls")),
        Answer(body=completion("Revenue grew 10%.", [call("c4", "answer", value="yes",
                                                          inputs=["growth"])], "tool_calls")),
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block.replace(URL, server.url), str(DOC), "exec"), {})  # noqa: S102
    lines = out.getvalue().splitlines()
    status, answer, confidence = lines[0].split(" ")
    assert (status, answer) == ("ok", "yes")
    assert 0.5 < float(confidence) <= 1
    assert lines[1].startswith("answer = 'yes' [IN")
    assert "growth = 0.1 [IN" in out.getvalue() and "(q3 - q2) / q2" in out.getvalue()
    # the tool's results reached the model as its tool messages
    sent = [json.loads(m["content"]) for m in server.requests[1].json["messages"]
            if m["role"] == "tool"]
    assert [(m["key"], m["value"], m["label"]) for m in sent] == [
        ("revenue:Q2", 100.0, "IN"), ("revenue:Q3", 110.0, "IN")]
