"""Every text a model reads from corollary, in one place, but the tools' descriptions: the
agent's system message, the messages that carry the task and the beliefs, the nudge, the
self-consistency question, the ``answer`` tool's description, and the MCP server's
instructions. The descriptions of the tools a base offers (``claim``, ``recall`` and every
other) are in the tool table (:mod:`corollary.serving.tools`), one for every surface.

The agent's own ``answer`` is declared here as a Python function whose signature and docstring
*are* its description: :mod:`corollary.agent.builtins` turns it into a schema with
:func:`corollary.models.tool_schema`, as it does any tool. It is never called.

The agent reads these names when it builds a request (``prompts.SYSTEM``, not a copy taken at
import), so changing a text here changes what the model is sent. To change a text for one agent
only, pass ``Agent(system=...)``; the other texts are the same for every agent.

Each text must say what the code does; ``tests/agent/test_prompts.py`` checks that the requests
are built from these names.
"""

from __future__ import annotations

from typing import Any

#: How a belief line reads: shared by the agent's system message and the MCP instructions.
BELIEF_LINE = ("A belief is shown as `key = value [IN confidence]`: the value in JSON, the "
               "confidence from 0 to 1.")

#: How change is marked on a belief line: shared by the agent's system message.
CHANGE_MARKS = ("A line marked `conflict: ...` is a key with two values held at once (an open "
                "conflict): an answer cannot rest on it until one is settled. A line marked "
                "`supersedes ...` is a newer value that replaced an older one: the world "
                "changed.")

#: What a belief is, said once for the agent and the MCP server.
BELIEFS_ARE = ("Every belief is IN (held) or OUT with a confidence from 0 to 1, and rests on its "
               "sources and the beliefs it was reasoned from: when one of them is retracted or "
               "turns out wrong, what rests on it goes OUT.")

#: The agent's system message (``Agent(system=...)`` replaces it).
SYSTEM = (
    "You work through a belief base: every step you take becomes a belief. "
    + BELIEF_LINE + " " + CHANGE_MARKS + " The beliefs that bear on the task are listed after "
    "it; later messages say what changed.\n"
    "- Call the tools to look facts up. Each result becomes a belief, under the key the tool's "
    "reply names.\n"
    "- recall(query, k) searches the held beliefs for more: by words of their keys, values and "
    "sources.\n"
    "- claim(key, value, inputs, formula, citation, certainty) records a conclusion of yours. "
    "inputs are the keys of the held beliefs it rests on: a list, or an object naming them for "
    "the formula. When the value is arithmetic, give the formula over those names: it is "
    "re-executed, and a value it does not reproduce is refused.\n"
    "- answer(value, inputs, certainty) gives your final answer, resting on held beliefs, and "
    "ends the task.\n"
    "A call that goes wrong comes back as {\"error\": ...}: correct it and try again."
)

#: The message that follows the task, listing the beliefs shown at the start of a run.
BELIEFS = "Beliefs held now (key = value [IN confidence]):\n{lines}"

#: What :data:`BELIEFS` lists when nothing is shown.
NO_BELIEFS = "(none yet)"

#: A later message: what changed among the beliefs shown since the last list.
CHANGES = "The beliefs shown have changed:\n{sections}"
#: Its sections (either may be absent).
NOW_HELD = "held now:\n{lines}"
NO_LONGER = "no longer held (or below the floor):\n{lines}"
#: A line of it, with why it went (corollary.agent.ripple: the phrases below).
GONE = "{head}: {why}"
#: The lines the context budget left out of a change message.
OVER_BUDGET = "and {count} more (over the context budget: recall shows what holds)"

#: Why a fact shown no longer holds (docs/agent.md, "Why a fact no longer holds").
RESTED_ON = "it rested on {inputs}"
WHICH = "{key}, which {why}"
AND_ON = ", and on "
RESTED = "rested on {inputs}"
CHANGED = "changed"
ENDED = "ended"
WAS_FORGOTTEN = "was forgotten"
WAS_RETRACTED = "was retracted"
NO_LONGER_HOLDS = "no longer holds"
FORGOTTEN = "forgotten"
EXPIRED = "expired"
EXCEPTION = "an exception holds: {item}"
LOST = "lost to {value}"  # a rival, or the end, that won with no time policy
REPLACED = "replaced by {value}"
NOTHING_SUPPORTS = "nothing supports it any more"
TOOK_EFFECT = ", which took effect when {key} changed"
BELOW_FLOOR = "its confidence fell to {confidence:.2f}, below the floor {floor}"

#: The user message after a reply without a tool call.
NUDGE = ("Continue: call a tool, claim what you have worked out, or call answer(value, inputs) "
         "to finish.")

#: The tool message of a belief below the agent's floor, in place of its value.
WITHHELD = "confidence below {floor}: the value is not shown"

#: A self-consistency sample: the beliefs (without the claimed key), then the question.
SAMPLE = "Beliefs held now:\n{lines}\n\n{question}"
NO_SAMPLE_BELIEFS = "(none)"
QUESTION = ("What is the value of {key!r}? Answer by calling claim with key {key!r} (and the "
            "keys of the beliefs it rests on as inputs), or reply with the value alone.")

#: A claim refused by its checks: what went wrong, then this.
REFUSED = ("refused, nothing was believed: {failed}. Correct the value (or the formula, or the "
           "quote) and claim again.")

#: An answer refused because nothing it cites supports it (docs/agent.md, "Supported answers").
UNSUPPORTED = "refused, nothing was believed: {why}."

#: The agent's system message in small-model mode (docs/models.md, "A small-model mode"):
#: shorter, one instruction a line.
SMALL_SYSTEM = (
    "Answer the task from the beliefs listed after it, shown as `key = value [IN confidence]`.\n"
    "- Call a tool to look up what is not listed.\n"
    "- answer(value, inputs): value is the answer, inputs the keys of the beliefs that hold it."
)

#: The MCP server's instructions (``corollary mcp``).
MCP_INSTRUCTIONS = (
    "corollary is a belief base with reasons. Record what tools, documents and people say with "
    "assert_fact, and your own conclusions with claim (naming the beliefs you reasoned from, and "
    "a formula when the conclusion is arithmetic, which is re-executed). "
    + BELIEFS_ARE + " explain shows why. recall(query, k) finds the held beliefs that bear on a "
    "question, most relevant and most trusted first; beliefs(query, limit) lists them. When a "
    "fact holds from a known time, give assert_fact its valid_from (ISO 8601): a newer value "
    "of a key supersedes an older one. When a fact stops holding (it was true until then), end "
    "it; when it turns out wrong, retract it. Keys are strings such as 'revenue:Q3'; sources "
    "are 'kind:name' ('tool:quote', 'document:10-K', 'human:ops', 'model:gpt'). Your client "
    "may show these tools under a prefix (corollary_assert_fact for assert_fact)."
)


# -- the agent's own tool, declared: its docstring is what the model reads ---------------------
def answer(value: Any, inputs: list[str] | dict[str, str], certainty: float | None = None) -> None:
    """Give your final answer, resting on held beliefs; this ends the task.

    Parameters
    ----------
    value : Any
        The answer (JSON).
    inputs : list[str] | dict[str, str]
        The keys of the held beliefs the answer rests on.
    certainty : float | None
        How sure you are, from 0 to 1 (default 1).
    """
