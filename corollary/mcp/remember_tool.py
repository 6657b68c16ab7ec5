"""The MCP tool ``remember(text, source, at=)``: ``kb.remember`` with the server's configured
model (``corollary mcp --model URL``; docs/mcp.md, docs/remember.md).

A server started without a model offers the tool too, and refuses every call with a message
that says how to configure one, so a client sees one list of tools whatever the server's
configuration.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, Field

from ..foundations.clock import parse_instant
from ..foundations.errors import InvalidInputError, InvalidTypeError
from ..foundations.values import plain
from . import sdk as sdk_server
from .sdk import ToolError

__all__ = ["NO_MODEL", "RefusedFact", "RememberedFact", "RememberedFacts", "add_remember"]

#: What a call to ``remember`` answers on a server without a model.
NO_MODEL = ("this server has no model to extract facts with: start it with "
            "'corollary mcp --model URL' (an OpenAI-compatible server, e.g. "
            "http://127.0.0.1:8080/v1) and --model-name NAME")


class RememberedFact(BaseModel):
    """One fact remembered."""

    key: str = Field(description="The key it took (an existing one when the fact meant it)")
    value: Any = Field(description="The value")
    quote: str = Field(description="The words of the text that say it (checked)")
    label: str = Field(description="IN or OUT now (an older value arriving late is OUT)")
    confidence: float = Field(ge=0.0, le=1.0, description="Confidence now")
    document: str = Field(description="The key of the text's document belief")
    superseded: list[Any] = Field(description="The values of key it superseded")
    merged_from: str | None = Field(description="The fact's own key, when merged into key")


class RefusedFact(BaseModel):
    """One fact the model named that was not remembered, named, with why."""

    reason: str = Field(description="'quote not found', 'malformed: ...' or 'outside the scope'")
    key: str | None = Field(description="The key it named (its own subject:attribute, or the "
                                        "key it resolved to outside the scope)")
    value: Any = Field(description="The value it gave")
    quote: str | None = Field(description="The words it said the text holds")


class RememberedFacts(BaseModel):
    """What a remember call believed, and what it refused."""

    remembered: list[RememberedFact]
    refused: list[RefusedFact] = Field(description="Each fact not remembered, and why")
    saved_version: int | None = Field(description="The session version (or journal entry) "
                                                  "saved, if the server keeps one")


def add_remember(server: Any, served: Any, model: Any) -> None:
    """Add the ``remember`` tool to ``server`` over ``served`` (the server's one base under
    its lock: :class:`corollary.mcp.server.Served`), extracting with ``model`` (``None``: every
    call is refused with :data:`NO_MODEL`)."""
    hints = sdk_server.tool_hints(readOnlyHint=False, destructiveHint=False,
                                  openWorldHint=True)  # it asks a model

    @server.tool(annotations=hints, description=(
        "Remember what a text says: the server's model extracts facts, each with the exact "
        "words that say it; quotes not in the text are refused, keys are resolved against "
        "existing ones, and a later value supersedes an earlier one by time."))
    def remember(
        text: Annotated[str, Field(description="What was said or written")],
        source: Annotated[str, Field(description="Who said it, as 'kind:name': 'human:alice', "
                                                 "'document:handbook'")],
        at: Annotated[float | str | None, Field(
            description="When it was said: POSIX seconds or ISO 8601 with a zone "
                        "(default: now)")] = None,
    ) -> RememberedFacts:
        if model is None:
            raise ToolError(NO_MODEL)
        try:
            when = parse_instant(at, "at")
        except (InvalidInputError, InvalidTypeError) as exc:
            raise ToolError(str(exc)) from exc
        scope = getattr(served, "scope", None)  # corollary mcp --scope: facts outside refused
        made, version = served.change(lambda kb: kb.remember(
            text, source=source, model=model, at=when,
            scope=None if scope is None else list(scope.prefixes)))
        return RememberedFacts(
            remembered=[RememberedFact(key=r.key, value=plain(r.value), quote=r.quote,
                                       label=r.label, confidence=r.confidence,
                                       document=r.document,
                                       superseded=[plain(v) for v in r.superseded],
                                       merged_from=r.merged_from) for r in made],
            refused=[RefusedFact(**r.named()) for r in made.refused], saved_version=version)
