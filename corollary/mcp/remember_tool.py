"""What the MCP tool ``remember(text, source, at=)`` answers, typed: ``kb.remember`` with the
server's configured model (``corollary mcp --model URL``; docs/mcp.md, docs/remember.md). The
tool itself is an entry of the tool table (:mod:`corollary.serving.tools`).

A server started without a model offers the tool too, and refuses every call with
:data:`NO_MODEL`, which says how to configure one, so a client sees one list of tools whatever
the server's configuration.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from ..serving.tools import NO_MODEL

__all__ = ["NO_MODEL", "RefusedFact", "RememberedFact", "RememberedFacts"]


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
