"""What an agent hands back: a :class:`Run` (with its :class:`Step`\\ s) and, from
``reverify``, what it :class:`Refreshed`."""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

import attrs

from ..foundations.errors import CorollaryError
from ..tms import OUT
from ..tms.proof import Proof

if TYPE_CHECKING:  # pragma: no cover
    from ..facade.base import BeliefBase
    from ..promises.book import Answer

#: Run statuses.
OK = "ok"
ABSTAIN = "abstain"
NO_ANSWER = "no answer"
CONFLICT = "conflict"
#: The model failed (a ``ModelError``, a ``ScriptedModel`` out of replies): the run is the
#: error's ``.run``, with every step taken before it.
MODEL_ERROR = "model error"


@attrs.frozen(slots=True)
class Step:
    """One thing that happened in a run, in order.

    Attributes
    ----------
    turn : int
        The model turn it came from (0 for the first request).
    kind : str
        ``"text"`` (the model's words), ``"tool"``, ``"claim"``, ``"answer"``, ``"recall"``
        (the model searched the beliefs; nothing changed), ``"sample"`` (a self-consistency
        sample of a claim) or ``"skipped"`` (a call after the answer).
    name : str or None
        The tool called (``"claim"``, ``"answer"`` for the built-ins).
    arguments : dict
        The call's arguments (a tool's: bound by name, defaults applied).
    key, value, confidence, label
        The belief the step made, as the base holds it right after the step (a sample: the
        claimed key and the sampled answer).
    error : str or None
        What went wrong; the model was told, and the base did not change.
    text : str or None
        The model's words (``kind="text"``).
    agreed : bool or None
        For a sample: whether it agreed with the claim.
    """

    turn: int
    kind: str
    name: str | None = None
    arguments: dict[str, Any] = attrs.field(factory=dict)
    key: str | None = None
    value: Any = None
    confidence: float | None = None
    label: str | None = None
    error: str | None = None
    text: str | None = None
    agreed: bool | None = None

    @property
    def ok(self) -> bool:
        """Whether the step did what it was asked."""
        return self.error is None


@attrs.frozen(slots=True)
class Run:
    """The result of :meth:`Agent.run`.

    Attributes
    ----------
    status : str
        ``"ok"``; ``"abstain"`` when a promise on the base says so (:meth:`BeliefBase.answer`
        under every attached promise); ``"conflict"`` when the answer key holds another value
        besides the answer (another source's: the model's own earlier claims of the key are
        withdrawn by the answer), or when the run ended without an answer while the answer it
        tried rested on an open conflict; ``"no answer"`` when ``max_steps`` ran out;
        ``"model error"`` for the partial run a failing model leaves (the ``.run`` of the
        ``ModelError`` raised out of :meth:`Agent.run`).
    key : str
        The answer's key.
    answer : object
        The answer's value (``None`` without one).
    confidence : float
        Its confidence at the end of the run (0.0 without one).
    label : str
        ``"IN"`` or ``"OUT"``.
    steps : tuple of Step
        What happened, in order.
    verdicts : tuple of Answer
        The promises' verdicts on the answer, one per promise attached (none without promises).
    why : str or None
        What a status other than ``"ok"`` means for this run, in words: the open conflict it
        names (``conflict: 'Oak St' (0.95, tool:crm) vs 'Pine Ave' (0.90, document:email)``),
        the steps that ran out, the model's error. ``None`` for ``"ok"``.
    """

    status: str
    key: str
    answer: Any
    confidence: float
    label: str
    steps: tuple[Step, ...]
    verdicts: tuple[Answer, ...] = ()
    kb: BeliefBase | None = attrs.field(default=None, repr=False, eq=False)
    why: str | None = None

    def explain(self) -> Proof:
        """The proof of the answer; on a run that ended without one, the proof of what its
        key holds (both values of an open conflict), or, when the key holds nothing, a proof
        of one line that says why there is no answer. It never raises.

        Examples
        --------
        >>> from corollary.models import ScriptedModel
        >>> from corollary import Agent
        >>> run = Agent(ScriptedModel(["thinking..."]), max_steps=1).run("Growing?")
        >>> print(run.explain())
        answer = None [OUT] no answer: the model used its 1 step without calling answer
        """
        if self.kb is not None:
            answered = self.status in (OK, ABSTAIN, CONFLICT) and self.answer is not None
            with contextlib.suppress(CorollaryError):  # a key never seen: said below
                if answered:
                    return self.kb.explain(self.key, self.answer)
                if self.key in self.kb:
                    return self.kb.explain(self.key)
        why = self.why or self.status
        return Proof({"key": self.key, "value": None, "label": OUT, "confidence": 0.0,
                      "why": why if why.startswith(self.status) else f"{self.status}: {why}",
                      "reasons": []})


@attrs.frozen(slots=True)
class Refreshed:
    """One remembered tool call run again by ``reverify``.

    Attributes
    ----------
    key, source, tool, arguments
        The premise and the call behind it.
    old_value, new_value
        The value before and the value the call gave now (``None`` when it failed).
    old_confidence, new_confidence
        The belief's confidence before, and the confidence of the value the call gave, after.
    status : str
        ``"renewed"`` (same value: the evidence is renewed in place, nothing downstream is
        re-derived), ``"replaced"`` (a new value: the old premise is replaced and what rested on
        it follows), or ``"failed"`` (the tool raised; nothing changed).
    error : str or None
    """

    key: str
    source: str
    tool: str
    arguments: dict[str, Any]
    old_value: Any
    new_value: Any
    old_confidence: float
    new_confidence: float | None
    status: str
    error: str | None = None
