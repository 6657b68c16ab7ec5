"""The agent: a model loop in which every step is a belief.

The model is sent a system message, the task, and a list of beliefs: those :meth:`BeliefBase.recall`
finds for the task within ``context_budget`` tokens (or, with ``context_budget=None``, every held
belief at or above the floor); then the tools: every ``@tool`` given, plus ``claim``, ``answer``
and ``recall``. The conversation only grows: each later request is the previous one with the
model's reply, the tool messages, and (when something the model was shown changed) a message
saying what changed, appended. Each tool call becomes a change to the base through its public
API (``kb.call`` / ``kb.acall``, ``kb.claim``) and a tool message back: the key, value,
confidence and label of the belief it made, or the error. A call that cannot be carried out (an
unknown tool, bad arguments, inputs not held, a formula or citation that fails its check, a tool
that raises) changes nothing and goes back as ``{"error": ...}``. ``answer`` makes the answer's
belief and ends the run. Every text the model reads is in :mod:`corollary.agent.prompts`.

The loop is written once, as a generator of effects (a model request, a tool call) that a
synchronous driver (:meth:`Agent.run`) or an asynchronous one (:meth:`Agent.arun`) carries
out; ``reverify`` is driven the same way.

See ``docs/agent.md``.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Generator, Iterable
from typing import Any

import attrs

from ..changes import AddRule, AddTool, Answer, Claim, RecordOutcome, Retract, apply
from ..evidence.confidence import SelfConsistency, self_consistency
from ..facade.base import BeliefBase
from ..facade.recall import count_tokens
from ..foundations._validate import check_int, check_unit
from ..foundations.errors import (
    AmbiguousValueError,
    CorollaryError,
    InvalidInputError,
    InvalidTypeError,
    ModelError,
    UnknownBeliefError,
)
from ..foundations.model_request import RequestOptions, tool_named
from ..foundations.values import canon, check_key, plain
from ..models import (
    Reply,
    ToolCall,
    acomplete,
    assistant_message,
    complete,
    tool_message,
    tool_schema,
)
from ..models.protocol import Model
from ..reasons.claims import CheckedClaim, check_claim
from ..reasons.rules import Rule
from ..reasons.tools import bind_named, call_key, spec_of, split_arguments
from ..tms import IN, OUT, Belief
from ..tms.conflicts import ConflictPolicy, PreferNewer
from . import prompts, sampling
from .answers import (
    DOUBTED_CERTAINTY,
    MAX_ANSWER_KEYS,
    answer_from_text,
    answer_tool,
    held_values,
    nearest_keys,
    unsupported,
)
from .builtins import BUILTINS, builtin_schema, check_arguments
from .marks import (
    conflicts_by_key,
    superseded,
    superseded_mark,
    supersedes_mark,
    timeline_of,
)
from .naming import nearest_held, tool_for
from .options import CONTEXT_BUDGET as _CONTEXT_BUDGET
from .options import AgentOptions
from .projector import View
from .records import ABSTAIN, CONFLICT, MODEL_ERROR, NO_ANSWER, OK, Refreshed, Run, Step

#: The system message as :mod:`corollary.agent.prompts` has it at import (kept for imports of
#: old; the agent reads ``prompts.SYSTEM`` itself when it is made).
DEFAULT_SYSTEM = prompts.SYSTEM

#: The default ``context_budget``, in tokens (see docs/agent.md, "What the model sees"):
#: :data:`corollary.agent.options.CONTEXT_BUDGET`, kept importable here.
CONTEXT_BUDGET = _CONTEXT_BUDGET
#: The hits recalled for the task at the start of a run (each followed by its held inputs).
RECALLED = 10
#: The most beliefs one call of the ``recall`` tool returns.
RECALL_MOST = 50
#: ``conflict_policy`` not given: the base the agent makes prefers newer values.
_NEWER: Any = object()


@attrs.frozen
class _Ask:
    """Effect: ask the model for one reply."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    options: RequestOptions | None = None


@attrs.frozen
class _Call:
    """Effect: call a tool through the base (``kb.call`` / ``kb.acall``)."""

    fn: Callable[..., Any]
    key: str
    args: tuple[Any, ...]
    kwargs: dict[str, Any]


@attrs.frozen
class _Done:
    """What a tool call through the base gave: its result, or the exception it raised."""

    value: Any = None
    error: Exception | None = None


_Effects = Generator["_Ask | _Call", Any, Any]


@attrs.define
class _Partial:
    """What a run has done so far, for the run a failing model leaves (``ModelError.run``)."""

    key: str
    steps: list[Step] = attrs.field(factory=list)


class Agent:
    """A model loop over a :class:`~corollary.BeliefBase` in which every step is a belief.

    Parameters
    ----------
    model : Model
        Any object with ``complete(messages, tools) -> Reply`` (and ``acomplete`` for
        :meth:`arun`, else ``complete`` runs in a worker thread); see :mod:`corollary.models`.
    kb : BeliefBase, optional
        The base to work on (default: a fresh one). ``tools`` and ``rules`` are added to it.
    tools : iterable of @tool functions
        Offered to the model as OpenAI function schemas (signature, annotations, docstring).
    rules : iterable of @rule functions
    name : str
        The agent's claims come from ``model:<name>``.
    self_consistency : int
        With ``k > 1``, each claim without a formula is asked ``k - 1`` more times in fresh
        conversations and its certainty becomes ``self_consistency(agreeing, k)``.
    learn_from_checks : bool
        Whether a claim's re-executed formula and checked citation are outcomes of
        ``model:<name>`` (passed to each of the agent's claims as ``kb.claim(..., learn=)``,
        whatever the base's own setting, which the agent never changes).
    min_confidence : float, optional
        Beliefs below it are never shown to the model (default: the policy's).
    max_steps : int
        Model turns before the run gives up (``"no answer"``).
    system : str, optional
        The system message (default ``corollary.agent.prompts.SYSTEM``).
    tolerance : float
        Relative tolerance within which sampled numbers agree.
    projector : callable, optional
        ``projector(kb) -> str`` replaces the beliefs shown (its lines; ``context_budget`` is
        then not used).
    context_budget : int or None
        Tokens for the task and the beliefs in the first request (default 2000): the beliefs
        shown are ``kb.recall(task, budget=..., expand=True)``, then those the run makes.
        ``None`` shows every held belief at or above the floor, as small bases can afford.
    scope : str, iterable of str or Scope, optional
        Key prefixes the run is confined to (:class:`~corollary.foundations.scope.Scope`):
        the beliefs shown and recalled are inside it, and the model's claims are refused when
        their key or an input is outside it. Not with a ``projector``.
    options : AgentOptions, optional
        ``self_consistency`` to ``scope`` above as one value
        (:class:`~corollary.agent.options.AgentOptions`), instead of as keyword arguments.
    conflict_policy : ConflictPolicy or None, optional
        The conflict policy of the base the agent makes when no ``kb`` is given: by default
        ``PreferNewer()`` (a newer value of a key supersedes an older one: the world changed);
        ``None`` for none (two values stay an open conflict). A ``kb`` given keeps its own.

    Examples
    --------
    >>> from corollary import ManualClock, tool
    >>> from corollary.models import Reply, ScriptedModel, ToolCall
    >>> @tool(trust="high", key="capital:{country}")
    ... def capital(country: str) -> str:
    ...     '''The capital of a country.'''
    ...     return {"France": "Paris"}[country]
    >>> model = ScriptedModel([
    ...     Reply(None, [ToolCall("1", "capital", {"country": "France"})]),
    ...     Reply(None, [ToolCall("2", "answer", {"value": "Paris", "inputs": ["capital:France"]})]),
    ... ])
    >>> run = Agent(model, tools=[capital]).run("What is the capital of France?")
    >>> run.status, run.answer, round(run.confidence, 3)
    ('ok', 'Paris', 0.891)
    """

    def __init__(self, model: Model, kb: BeliefBase | None = None, *,
                 tools: Iterable[Callable[..., Any]] = (), rules: Iterable[Rule] = (),
                 name: str = "default", options: AgentOptions | None = None,
                 conflict_policy: ConflictPolicy | None | Any = _NEWER,
                 **keywords: Any) -> None:
        if not callable(getattr(model, "complete", None)) and not callable(
                getattr(model, "acomplete", None)):
            raise InvalidTypeError(f"{model!r} is not a model: it has no complete(messages, tools)")
        if kb is not None and not isinstance(kb, BeliefBase):
            raise InvalidTypeError(f"kb must be a BeliefBase, not {type(kb).__name__}")
        if not isinstance(name, str) or not name or name.isspace() or ":" in name:
            raise InvalidInputError(f"name must be a non-empty string without ':', not {name!r}")
        #: How it runs and what its model sees (the keyword options, or ``options=``)
        self.options = o = AgentOptions.given(options, keywords)
        self.self_consistency = o.self_consistency
        self.learn_from_checks = learn_from_checks = o.learn_from_checks
        self.min_confidence = o.min_confidence
        self.max_steps = o.max_steps
        #: Small-model mode (docs/models.md): the option, else what the model says of itself
        self.small_model = (getattr(model, "small_model", False) is True
                            if o.small_model is None else o.small_model)
        #: Whether the request after a text reply, and the last, require ``answer`` (``None``:
        #: they name a tool each, docs/agent.md "Named steps"; ``False``: never named)
        self.force_answer = o.force_answer
        self.unsupported_answers = o.unsupported_answers
        default = prompts.SMALL_SYSTEM if self.small_model else prompts.SYSTEM
        self.system = default if o.system is None else o.system
        self.tolerance = o.tolerance
        self.projector = o.projector
        #: The keys the model may see and reason from (None: every key); docs/integrations.md
        self.scope = o.scope
        self.context_budget = o.context_budget
        tools = list(tools)
        self._tools: dict[str, Callable[..., Any]] = {}
        for fn in tools:
            spec = spec_of(fn)
            if spec.name in BUILTINS:
                raise InvalidInputError(f"a tool cannot be called {spec.name!r}: the agent's own")
            if spec.name in self._tools:
                raise InvalidInputError(f"two tools are called {spec.name!r}")
            self._tools[spec.name] = fn
        schemas = [tool_schema(fn, name=name) for name, fn in self._tools.items()]
        self.model = model
        self.name = name
        self.source = f"model:{name}"
        if kb is None:
            kb = BeliefBase(tools=tools, rules=rules, learn_from_checks=learn_from_checks,
                            conflict_policy=PreferNewer() if conflict_policy is _NEWER
                            else conflict_policy)
        else:
            if conflict_policy is not _NEWER:
                raise InvalidInputError("conflict_policy is for the base the agent makes: the "
                                        "kb given keeps its own (BeliefBase(conflict_policy=))")
            for fn in tools:
                apply(kb, AddTool(fn))
            for r in rules:
                apply(kb, AddRule(r))
        self.kb = kb
        kb.reliability(self.source)  # a policy that does not know "model:" refuses it here
        #: The function schemas offered to the model each turn: the tools', then the built-ins.
        self.schemas = schemas + [builtin_schema(name) for name in BUILTINS]
        self._parameters = {s["function"]["name"]: s["function"]["parameters"]
                            for s in self.schemas}

    # -- what the model sees -----------------------------------------------------------------
    @property
    def floor(self) -> float:
        """The confidence below which beliefs are never shown to the model."""
        return self.kb.policy.min_confidence if self.min_confidence is None else self.min_confidence

    def beliefs(self, exclude: str | None = None, *, task: str | None = None) -> str:
        """The beliefs listed after ``task`` at the start of a run, one per line (without the
        key ``exclude``). With a ``context_budget`` they depend on the task, so ``task`` is
        required; without one, or with a ``projector``, it is not used."""
        return self._view(task).text(exclude)

    def messages(self, task: str) -> list[dict[str, Any]]:
        """The first request's messages: the system message, the task, and the beliefs (the
        conversation then grows after them and never changes them)."""
        task = _check_task(task)
        return self._opening(task, self._view(task))

    def _opening(self, task: str, view: View) -> list[dict[str, Any]]:
        beliefs = view.opening() or prompts.NO_BELIEFS
        return [{"role": "system", "content": self.system},
                {"role": "user", "content": task},
                {"role": "user", "content": prompts.BELIEFS.format(lines=beliefs)}]

    def _view(self, task: str | None) -> View:
        """What a run on ``task`` shows the model of the beliefs."""
        if self.projector is not None or self.context_budget is None:
            return View(self.kb, self.floor, None, self.projector, scope=self.scope)
        if task is None:
            raise InvalidInputError("with a context_budget, the beliefs shown depend on the "
                                    "task: pass beliefs(task=...)")
        task = _check_task(task)
        # the budget covers the task and the list's heading as well as the lines
        heading = prompts.BELIEFS.format(lines="")
        room = self.context_budget - count_tokens(task) - count_tokens(heading)
        found = [] if room <= 0 else self.kb.recall(task, RECALLED, budget=room,
                                                    min_confidence=self.floor, expand=True,
                                                    scope=self.scope)
        return View(self.kb, self.floor, [(r.key, r.value) for r in found], scope=self.scope,
                    sources={(r.key, canon(r.value)): r.source_of for r in found if r.source_of},
                    budget=self.context_budget)

    # -- running -----------------------------------------------------------------------------
    def run(self, task: str, key: str = "answer", *, group: Any = None) -> Run:
        """Work on ``task`` until the model answers (the belief ``key``) or ``max_steps`` run
        out. Async tools cannot run here (the model is told so): use :meth:`arun`.

        The answer is given to every promise attached to the base (``kb.answer``); ``group``
        is the group a grouped promise answers for (required when one is attached).
        """
        partial = _Partial(key)
        return self._drive(self._loop(task, key, group, partial), partial)

    async def arun(self, task: str, key: str = "answer", *, group: Any = None) -> Run:
        """:meth:`run` without blocking the event loop: the model through ``acomplete``, tools
        through ``await kb.acall(...)`` (``async def`` tools are awaited, plain ones run in a
        worker thread)."""
        partial = _Partial(key)
        return await self._adrive(self._loop(task, key, group, partial), partial)

    def reverify(self, min_confidence: float | None = None, key: str | None = None,
                 budget: int | None = None) -> list[Refreshed]:
        """Run again the remembered tool calls behind stale evidence; return what was refreshed.

        Without ``key``: every premise that expired, then every premise whose confidence faded
        below ``min_confidence`` (default: the agent's floor), most faded first. With ``key``: the
        premises under that belief, greedily, the one whose refresh raises it most first
        (:meth:`BeliefBase.what_to_check`), re-ranked after each call; ``min_confidence`` then
        limits them to those expired or below it. ``budget`` caps the tool calls. Only calls of
        this agent's tools are run. An equal result renews the evidence in place (nothing
        downstream is re-derived); a changed one replaces it and what rested on it follows.
        """
        return self._drive(self._reverify(min_confidence, key, budget))

    async def areverify(self, min_confidence: float | None = None, key: str | None = None,
                        budget: int | None = None) -> list[Refreshed]:
        """:meth:`reverify` with ``await kb.acall(...)``, for ``async def`` tools."""
        return await self._adrive(self._reverify(min_confidence, key, budget))

    def _failed(self, exc: ModelError, partial: _Partial | None) -> ModelError:
        """``exc`` with the partial run attached as ``exc.run`` (the steps taken before the
        model failed, the base as they left it), to be raised out of the run."""
        if partial is not None:
            exc.run = Run(MODEL_ERROR, partial.key, None, 0.0, OUT, tuple(partial.steps), (),
                          self.kb, f"{MODEL_ERROR}: {type(exc).__name__}: {exc}")
        return exc

    def _drive(self, effects: _Effects, partial: _Partial | None = None) -> Any:
        with contextlib.closing(effects):
            try:
                effect = next(effects)
                while True:
                    if isinstance(effect, _Ask):
                        try:
                            reply = complete(self.model, effect.messages, effect.tools,
                                             effect.options)
                        except ModelError as exc:
                            raise self._failed(exc, partial) from None
                        effect = effects.send(reply)
                        continue
                    try:
                        done = _Done(self.kb.call(effect.fn, effect.key, *effect.args,
                                                  **effect.kwargs))
                    except Exception as exc:  # noqa: BLE001 - a tool's failure goes to the model
                        done = _Done(error=exc)
                    effect = effects.send(done)
            except StopIteration as stop:
                return stop.value

    async def _adrive(self, effects: _Effects, partial: _Partial | None = None) -> Any:
        with contextlib.closing(effects):
            try:
                effect = next(effects)
                while True:
                    if isinstance(effect, _Ask):
                        try:
                            reply = await acomplete(self.model, effect.messages, effect.tools,
                                                    effect.options)
                        except ModelError as exc:
                            raise self._failed(exc, partial) from None
                        effect = effects.send(reply)
                        continue
                    try:
                        done = _Done(await self.kb.acall(effect.fn, effect.key, *effect.args,
                                                         **effect.kwargs))
                    except Exception as exc:  # noqa: BLE001 - a tool's failure goes to the model
                        done = _Done(error=exc)
                    effect = effects.send(done)
            except StopIteration as stop:
                return stop.value

    def _loop(self, task: str, key: str, group: Any, partial: _Partial) -> _Effects:
        task = _check_task(task)
        key = check_key(key)
        grouped = sorted(name for name, p in self.kb.promises.items()
                         if _grouped(p))
        if grouped and group is None:
            raise InvalidInputError(f"the promises {grouped} have a threshold per group: pass "
                                    "run(..., group=) for the answer")
        steps = partial.steps
        view = self._view(task)
        # The conversation only grows: a request is the previous one with messages appended,
        # so a provider's prompt cache can reuse it whole.
        messages = self._opening(task, view)
        with view.following():  # what goes OUT is named, with why, in the next message
            return (yield from self._turns(task, key, group, view, messages, steps))

    def _turns(self, task: str, key: str, group: Any, view: View,
               messages: list[dict[str, Any]], steps: list[Step]) -> _Effects:
        """The model's turns on ``task``, from the opening ``messages`` on, until it answers."""
        talked = False  # the last reply was text alone
        worded = ""  # the model has answered in words (its last words): steps are named now
        # a server that offers tools only when one is named: every step is named
        always = getattr(self.model, "tools_only_when_named", False) is True
        for turn in range(self.max_steps):
            if turn:
                changed = view.changes()
                if changed is not None:
                    messages.append({"role": "user", "content": changed})
            last = turn == self.max_steps - 1
            ask = None
            if self.force_answer is None and (worded or always or last):
                ask = self._named(messages, view, task, worded, steps, last)
            elif self.force_answer and (talked or last):
                ask = self._forced(messages, view, task, steps)
            reply: Reply = yield ask or _Ask(list(messages), self.schemas)
            talked = not reply.tool_calls
            if reply.text:
                steps.append(Step(turn, "text", text=reply.text))
                worded = reply.text if talked else worded
            messages.append(assistant_message(reply))
            calls = list(reply.tool_calls)
            if not calls and self.force_answer is not False and reply.text:
                held = {k: plain(v) for k, v in self._answerable(view).items()}
                said = answer_from_text(reply.text, held)
                if said is not None:  # the words name one held belief: read the answer there
                    calls = [ToolCall(f"text_{turn}", "answer",
                                      {"inputs": [said[1]], "value": said[0]})]
            if not calls:
                messages.append({"role": "user", "content": prompts.NUDGE})
                continue
            answered: Step | None = None
            for call in calls:
                if answered is not None:
                    steps.append(Step(turn, "skipped", call.name, dict(call.arguments),
                                      error="not run: the answer had ended the run"))
                    continue
                at = len(steps)  # the call's step goes before its samples
                step, content = yield from self._handle(call, key, turn, steps, view)
                steps.insert(at, step)
                messages.append(tool_message(call.id, json.dumps(content, ensure_ascii=False)))
                if step.kind == "answer" and step.ok:
                    answered = step
            if answered is not None:
                return self._finish(key, answered, steps, group)
        return self._unanswered(key, steps)

    def _named(self, messages: list[dict[str, Any]], view: View, task: str, worded: str,
               steps: list[Step], last: bool) -> _Ask | None:
        """The request of a named step (docs/agent.md, "Named steps"): the one tool of the
        agent's that the task asks for (:func:`corollary.agent.naming.tool_for`), not yet
        called, else the forced ``answer``; on the last step always ``answer``."""
        called = [s.name for s in steps if s.kind == "tool" and s.ok and s.name]
        tools = {s["function"]["name"]: s["function"].get("description", "")
                 for s in self.schemas if s["function"]["name"] in self._tools}
        name = None if last else tool_for(task, worded, tools, called, self._answerable(view))
        if name is None:
            return self._forced(messages, view, task, steps)
        schema = next(s for s in self.schemas if s["function"]["name"] == name)
        return _Ask(list(messages), [schema], RequestOptions(tool_choice=tool_named(name)))

    def _forced(self, messages: list[dict[str, Any]], view: View, task: str,
                steps: list[Step]) -> _Ask | None:
        """The request that requires ``answer`` (docs/agent.md, "A forced answer"): its inputs
        limited to the keys held and shown (in scope) that the run's tools made and those that
        share the most words with the task (:func:`corollary.agent.naming.nearest_held`), its value in small-model mode to their
        values; ``None`` when no key is held (a forced answer could cite nothing)."""
        made = [s.key for s in steps
                if s.kind in ("tool", "claim") and s.ok and s.key is not None]
        held = nearest_held(task, self._answerable(view), made)
        if not held:
            return None
        description = builtin_schema("answer")["function"].get("description", "")
        # a supported answer is a value a cited belief holds: the value is chosen among them
        # (Qwen2.5-Coder-0.5B, offered product:gizmo:price alone, answered 99.0 four times)
        tool = answer_tool(description, list(held), held_values(held.values()))
        return _Ask(list(messages), [tool], RequestOptions(tool_choice=tool_named("answer")))

    @staticmethod
    def _answerable(view: View) -> dict[str, Any]:
        """The keys held and shown (in scope), with their values: what an answer may cite."""
        held: dict[str, Any] = {}
        for head in view.current():
            k, v = view.named[head]
            held.setdefault(k, v)
            if len(held) >= MAX_ANSWER_KEYS:
                break
        return held

    def _finish(self, key: str, answered: Step, steps: list[Step], group: Any) -> Run:
        verdicts = tuple(
            apply(self.kb, Answer(key, name, group=group if _grouped(p) else None))
            for name, p in self.kb.promises.items())
        status = ABSTAIN if any(v.status == ABSTAIN for v in verdicts) else OK
        why = next((v.why for v in verdicts if v.status == ABSTAIN), None) or self._doubted(answered)
        confidence, label = self._state(key, answered.value)
        try:
            self.kb.value(key)
        except AmbiguousValueError:  # another source holds another value of the answer key
            status = CONFLICT
            why = conflicts_by_key(self.kb).get(key, CONFLICT)
        return Run(status, key, answered.value, confidence, label, tuple(steps), verdicts,
                   self.kb, why)

    def _contested(self, inputs: Any, *also: str) -> str:
        """The marks of the open conflicts among ``inputs`` (a claim's: a list of keys, or
        names to keys) and ``also``, ``key: mark`` each; empty for none."""
        keys = list(inputs.values()) if isinstance(inputs, dict) else list(inputs or ())
        marks = conflicts_by_key(self.kb)
        return "; ".join(f"{k}: {marks[k]}" for k in dict.fromkeys([*also, *keys])
                         if isinstance(k, str) and k in marks)

    def _unanswered(self, key: str, steps: list[Step]) -> Run:
        """The run that used its steps without an answer: ``"conflict"``, naming it, when the
        last answer tried rested on a key in an open conflict (which none of the model's
        tools could settle), else ``"no answer"``."""
        tried = next((s for s in reversed(steps) if s.kind == "answer" and not s.ok), None)
        if tried is not None:
            named = self._contested(tried.arguments.get("inputs"), key)
            if named:
                return Run(CONFLICT, key, None, 0.0, OUT, tuple(steps), (), self.kb,
                           "the answer rests on an open conflict: " + named)
        return Run(NO_ANSWER, key, None, 0.0, OUT, tuple(steps), (), self.kb,
                   f"the model used its {self.max_steps} step"
                   f"{'' if self.max_steps == 1 else 's'} without calling answer"
                   + ("" if tried is None else f" successfully (last error: {tried.error})"))

    # -- one call ----------------------------------------------------------------------------
    def _handle(self, call: ToolCall, key: str, turn: int, steps: list[Step], view: View
                ) -> Generator[_Ask | _Call, Any, tuple[Step, dict[str, Any]]]:
        kind = call.name if call.name in BUILTINS else "tool"
        arguments = dict(call.arguments)

        def fail(error: str) -> tuple[Step, dict[str, Any]]:
            return Step(turn, kind, call.name, arguments, error=error), {"error": error}

        if call.arguments_error is not None:
            return fail(f"the arguments could not be read ({call.arguments_error}): send a JSON "
                        "object of the arguments by name")
        parameters = self._parameters.get(call.name)
        if parameters is None:
            return fail(f"there is no tool {call.name!r}; the tools are "
                        + ", ".join(self._parameters))
        problem = check_arguments(parameters, arguments)
        if problem is not None:
            return fail(f"{call.name}: {problem}")
        try:
            if call.name == "recall":
                return self._recall(arguments, turn, view)
            if call.name == "claim":
                step, content = yield from self._claim(arguments, turn, steps, view)
            elif call.name == "answer":
                step, content = self._answer(arguments, key, turn)
            else:
                step, content = yield from self._tool(call.name, arguments, turn)
        except CorollaryError as exc:  # a bad input to the base: nothing changed
            step, content = fail(f"{call.name}: {exc}")
            if isinstance(exc, UnknownBeliefError):  # a key not held: name the nearest held
                content.update(self._nearest(arguments.get("inputs")))
            if isinstance(exc, AmbiguousValueError):  # which inputs are contested, and how
                marked = self._contested(arguments.get("inputs"))
                if marked:
                    content["conflict"] = marked
            return step, content
        if step.ok and step.key is not None:
            view.told(step.key, step.value)  # the tool message tells the model of it
        return step, content

    def _nearest(self, inputs: Any) -> dict[str, Any]:
        """``{"nearest": {key: [held keys]}}`` for the cited keys not held (in scope)."""
        keys = list(inputs.values()) if isinstance(inputs, dict) else list(inputs or ())
        held = [h.key for h in self.kb.beliefs()
                if self.scope is None or self.scope.contains(h.key)]
        held_set = set(held)
        near = {k: nearest_keys(k, held) for k in keys if isinstance(k, str) and k not in held_set}
        near = {k: found for k, found in near.items() if found}
        return {"nearest": near} if near else {}

    def _recall(self, arguments: dict[str, Any], turn: int, view: View
                ) -> tuple[Step, dict[str, Any]]:
        """The ``recall`` tool: the held beliefs (at or above the floor) that bear on a query."""
        k = arguments.get("k", 10)
        if not 1 <= k <= RECALL_MOST:
            raise InvalidInputError(f"k must be from 1 to {RECALL_MOST}, not {k}")
        found = self.kb.recall(arguments["query"], k, min_confidence=self.floor,
                               scope=self.scope)
        for r in found:
            view.told(r.key, r.value, r.source_of)
        marks = conflicts_by_key(self.kb) if any(r.conflict for r in found) else {}
        beliefs = []
        for r in found:
            belief = {"key": r.key, "value": plain(r.value),
                      "confidence": round(r.confidence, 4), "label": "IN"}
            if r.key in marks:  # the model must see the key is contested
                belief["conflict"] = marks[r.key]
            mark = supersedes_mark(timeline_of(self.kb, r.key), r.value)
            if mark is not None:
                belief["supersedes"] = mark
            if r.source_of:  # a document: what it states, and whether each still holds
                belief["source_of"] = [{"key": f.key, "value": plain(f.value), "held": f.held}
                                       for f in r.source_of]
            beliefs.append(belief)
        content = {"beliefs": beliefs}
        return Step(turn, "recall", "recall", arguments), content

    def _tool(self, name: str, arguments: dict[str, Any], turn: int
              ) -> Generator[_Ask | _Call, Any, tuple[Step, dict[str, Any]]]:
        fn = self._tools[name]
        bound = bind_named(fn, arguments)
        key = call_key(fn, bound)
        args, kwargs = split_arguments(fn, bound)
        done: _Done = yield _Call(fn, key, args, kwargs)
        if done.error is not None:
            error = f"{name} failed: {type(done.error).__name__}: {done.error}"
            return Step(turn, "tool", name, bound, key=key, error=error), {"error": error}
        return self._made(turn, "tool", name, bound, key, done.value)

    def _claim(self, arguments: dict[str, Any], turn: int, steps: list[Step], view: View
               ) -> Generator[_Ask | _Call, Any, tuple[Step, dict[str, Any]]]:
        formula = arguments.get("formula")
        if self.scope is not None:  # the model writes inside its scope only
            self.scope.check(arguments["key"])
        checked = self._check(arguments["key"], arguments["value"], arguments["inputs"],
                              arguments.get("certainty"), formula, arguments.get("citation"))
        certainty: float | None = arguments.get("certainty")
        if self.self_consistency > 1 and formula is None:
            certainty = yield from self._sample(checked.key, arguments["value"], turn, steps,
                                                view)
        believed = apply(self.kb, Claim(checked.key, arguments["value"], self.source,
                                        arguments["inputs"], certainty, formula,
                                        arguments.get("citation"), learn=self.learn_from_checks))
        return self._made(turn, "claim", "claim", arguments, checked.key, believed)

    def _answer(self, arguments: dict[str, Any], key: str, turn: int
                ) -> tuple[Step, dict[str, Any]]:
        checked = self._check(key, arguments["value"], arguments["inputs"],
                              arguments.get("certainty"), None, None)
        certainty = arguments.get("certainty")
        why = None if any(self._concluded(b) for b in checked.inputs) else unsupported(
            arguments["value"], [(b.key, b.value) for b in checked.inputs],
            self.tolerance)  # docs/agent.md, "Supported answers"
        if why is not None and self.unsupported_answers == "refuse":
            raise InvalidInputError(prompts.UNSUPPORTED.format(why=why))
        if why is not None:  # "doubt": believed, at a certainty that says so
            certainty = min(DOUBTED_CERTAINTY, 1.0 if certainty is None else certainty)
        believed = apply(self.kb, Claim(key, arguments["value"], self.source, arguments["inputs"],
                                        certainty, learn=self.learn_from_checks))
        # the answer is the model's last word on its key: its own earlier claims of other
        # values are withdrawn (a change of mind, no outcome); other sources' values stay
        vid = canon(believed)
        for b in list(self.kb.engine.values_of(key)):
            if b.vid != vid and any(not j.kind.by_rule and j.name == self.source
                                    for j in b.justs):
                apply(self.kb, Retract(key, b.value, "replaced by the answer",
                                       source=self.source))
        step, content = self._made(turn, "answer", "answer", arguments, key, believed)
        if why is not None:
            content["unsupported"] = why
        return step, content

    def _concluded(self, belief: Belief) -> bool:
        """Whether ``belief`` is a conclusion of this agent's model (its claim, resting on
        checked inputs): an answer citing it reads the model's own conclusion."""
        return any(not j.kind.by_rule and j.name == self.source and j.inputs
                   for j in belief.justs)

    def _doubted(self, answered: Step) -> str | None:
        """Why the answer ``answered`` was believed unsupported (under ``"doubt"``), or None."""
        if self.unsupported_answers != "doubt":
            return None
        inputs = answered.arguments.get("inputs")
        keys = list(inputs.values()) if isinstance(inputs, dict) else list(inputs or ())
        cited = []
        for k in keys:
            with contextlib.suppress(CorollaryError):
                held = self._held(k, "input")
                if self._concluded(held):
                    return None
                cited.append((k, held.value))
        why = unsupported(answered.value, cited, self.tolerance)
        return None if why is None else f"unsupported, believed at certainty " \
                                        f"{DOUBTED_CERTAINTY} at most: {why}"

    def _check(self, key: str, value: Any, inputs: Any, certainty: float | None,
               formula: str | None, citation: Any) -> CheckedClaim:
        """A claim's checks, run without changing the base; a failed check refuses the claim
        (its outcomes are recorded for the model when the agent learns from checks)."""
        checked = check_claim(key, value, self.source, inputs, certainty, formula, citation,
                              self._held)
        failed = [why for ok, why in checked.checks if not ok]
        if failed:
            if self.learn_from_checks:
                for ok, why in checked.checks:
                    apply(self.kb, RecordOutcome(self.source, ok, reason=why))
            raise InvalidInputError(prompts.REFUSED.format(failed="; ".join(failed)))
        return checked

    def _held(self, key: str, what: str) -> Belief:
        """The one held belief of ``key``, read through the base's public API (inside the
        agent's scope: a claim rests on nothing the model may not see)."""
        if self.scope is not None:
            self.scope.check(key, what)
        value = self.kb.value(key)  # UnknownBeliefError, AmbiguousValueError
        if self.kb.label(key) != IN:
            raise UnknownBeliefError(f"{what} {key!r} holds no value")
        found = self.kb.engine.find(key, canon(value))
        assert found is not None, "a held value has its belief"
        return found

    def _sample(self, key: str, value: Any, turn: int, steps: list[Step], view: View
                ) -> Generator[_Ask | _Call, Any, SelfConsistency]:
        beliefs = view.text(exclude=key)
        agreeing = 1  # the claim itself
        for _ in range(self.self_consistency - 1):
            reply: Reply = yield _Ask(sampling.sample_messages(self.system, beliefs, key),
                                      [builtin_schema("claim")])
            found, answer = sampling.sample_answer(reply, key)
            agreed = found and sampling.agrees(value, answer, self.tolerance)
            agreeing += agreed
            steps.append(Step(turn, "sample", "claim", key=key, value=answer, agreed=agreed))
        return self_consistency(agreeing, self.self_consistency)

    def _made(self, turn: int, kind: str, name: str, arguments: dict[str, Any], key: str,
              value: Any) -> tuple[Step, dict[str, Any]]:
        """The step and the tool message for the belief ``key = value`` a call made."""
        confidence, label = self._state(key, value)
        content: dict[str, Any] = {"key": key, "value": value, "confidence": round(confidence, 4),
                                   "label": label}
        entries = timeline_of(self.kb, key)
        replaced = None if label == IN else superseded(entries, value)
        if replaced is not None:  # OUT because the world changed, not weak: say so
            content["superseded"] = superseded_mark(replaced)
        elif confidence < self.floor:  # never shown: below the agent's floor
            content["value"] = None
            content["withheld"] = prompts.WITHHELD.format(floor=self.floor)
        else:
            try:
                self.kb.value(key)
            except AmbiguousValueError:  # the model must see the key is contested
                content["conflict"] = conflicts_by_key(self.kb).get(key)
            mark = supersedes_mark(entries, value)
            if mark is not None:
                content["supersedes"] = mark
        return Step(turn, kind, name, arguments, key, value, confidence, label), content

    def _state(self, key: str, value: Any) -> tuple[float, str]:
        """``(confidence, label)`` of the belief ``key = value`` now."""
        if value is not None:
            return self.kb.confidence(key, value), self.kb.label(key, value)
        for held in self.kb.beliefs():  # None reads as "the held value": find it by hand
            if held.key == key and held.value is None:
                return held.confidence, IN
        return 0.0, OUT

    # -- re-verification ---------------------------------------------------------------------
    def _reverify(self, threshold: float | None, key: str | None, budget: int | None
                  ) -> _Effects:
        threshold = None if threshold is None else check_unit(threshold, "min_confidence")
        key = None if key is None else check_key(key)
        budget = None if budget is None else check_int(budget, "budget", low=0)
        refreshed: list[Refreshed] = []
        if key is None:
            for record in self._stale(self.floor if threshold is None else threshold):
                if budget is not None and len(refreshed) >= budget:
                    break
                refreshed.append((yield from self._refetch(record)))
            return refreshed
        tried: set[tuple[str, str]] = set()
        while budget is None or len(refreshed) < budget:
            calls = self._calls()
            pick = None
            for check in self.kb.what_to_check(key, limit=None):
                slot = (check.key, check.source)
                if slot in tried or slot not in calls:
                    continue
                if threshold is not None and not (check.expired or check.confidence < threshold):
                    continue
                if check.gain > 0 or check.needed > 0:
                    pick = slot
                    break
            if pick is None:
                break
            tried.add(pick)
            refreshed.append((yield from self._refetch(calls[pick])))
        return refreshed

    def _calls(self) -> dict[tuple[str, str], Any]:
        """The remembered calls this agent can run again, by premise ``(key, source)``."""
        return {(r.key, r.source): r for r in self.kb.calls() if r.tool in self._tools}

    def _stale(self, threshold: float) -> list[Any]:
        calls = self._calls()
        slots = [(e.key, source) for e in self.kb.expired() for source in e.sources]
        faded = sorted(self.kb.faded(threshold), key=lambda f: (f.confidence, f.key))
        slots += [(f.key, source) for f in faded for source in f.sources]
        return [calls[slot] for slot in dict.fromkeys(slots) if slot in calls]

    def _refetch(self, record: Any) -> Generator[_Ask | _Call, Any, Refreshed]:
        fn = self._tools[record.tool]
        old_confidence, _ = self._state(record.key, record.value)
        args, kwargs = split_arguments(fn, record.arguments)
        done: _Done = yield _Call(fn, record.key, args, kwargs)
        if done.error is not None:
            return Refreshed(record.key, record.source, record.tool, record.arguments,
                             record.value, None, old_confidence, None, "failed",
                             f"{type(done.error).__name__}: {done.error}")
        same = _same(done.value, record.value)
        new_confidence, _ = self._state(record.key, done.value)
        return Refreshed(record.key, record.source, record.tool, record.arguments, record.value,
                         done.value, old_confidence, new_confidence,
                         "renewed" if same else "replaced")


def _same(a: Any, b: Any) -> bool:
    try:
        return bool(canon(a) == canon(b))
    except CorollaryError:
        return False


def _check_task(task: Any) -> str:
    if not isinstance(task, str) or not task.strip():
        raise InvalidInputError("the task must be a non-empty string")
    return task


def _grouped(promise: object) -> bool:
    """Whether a promise has a threshold per group (the statistics are imported only when the
    base carries promises at all: a base without any never loads scipy)."""
    from ..promises.guarantee import GroupedPromise

    return isinstance(promise, GroupedPromise)
