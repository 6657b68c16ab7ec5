"""The operation-log hook: every changing method of a base declared once, with ``@operation``.

A base announces its changes through one hook, its *operation log* (``None`` on a plain base:
the only cost a change pays then is one ``is None`` check). A changing method is declared once::

    @operation(subjects=by_key)
    def assert_(self, key, value, source, ...): ...

and with a log installed (:func:`install_log`; a journaled :class:`~corollary.Session` installs
its journal) each call of it reaches the log as an :class:`OperationCall`:

- **begins**: ``log.run(call)`` is called with the operation (its declaration, :class:`Operation`)
  and the arguments as given (:meth:`OperationCall.bind` binds them to the method's signature);
- **resolves**: while it runs, the base announces what it decided that an argument list does not
  say (``log.resolved(what, value)``: the value a ``retract`` without a value took, the verdict
  an ``answer`` kept); announcements of a change made inside another one belong to the outer one;
- **ends or fails**: the log runs the method with :meth:`OperationCall.proceed` (once, with the
  arguments it chooses, or the ones given) and returns what it returns; an exception from it is
  the operation failing (the base's own all-or-nothing machinery has undone it by then).

A change made inside another change (``assert_many`` asserting row by row, a tool call's
assertion, ``remember``'s claims) reaches the log too, while the outer one runs: a log tells the
two apart by its own bookkeeping (the journal runs the inner one as part of the outer entry).

The declaration also says what a journal entry of it keeps (``keep``, default: the arguments
as given), what its history row names (``subjects``) and how it replays (``replay``, default:
the method called again with the entry's arguments; ``snapshot=True``: the entry carries the
base's whole state, which a replay takes). A subclass's override of a declared method is the same
operation (:func:`declare_overrides`); a subclass's new changing method is journaled by
declaring it (docs/extending.md).

Examples
--------
>>> from corollary import BeliefBase, ManualClock
>>> class Recorder:
...     def __init__(self):
...         self.seen = []
...     def run(self, call):
...         self.seen.append(("begin", call.name, call.bind()["key"]))
...         result = call.proceed()
...         self.seen.append(("end", call.name))
...         return result
...     def resolved(self, what, value):
...         self.seen.append(("resolved", what, value))
>>> kb = BeliefBase(clock=ManualClock(0))
>>> log = Recorder()
>>> install_log(kb, log) is None
True
>>> kb.assert_("hq", "Austin", source="tool:registry")
>>> kb.retract("hq")
>>> log.seen  # doctest: +NORMALIZE_WHITESPACE
[('begin', 'assert_', 'hq'), ('end', 'assert_'), ('begin', 'retract', 'hq'),
 ('resolved', 'retracted', 'Austin'), ('end', 'retract')]
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import attrs

from ..foundations.errors import InvalidTypeError
from .undo import run_undoable

if TYPE_CHECKING:  # pragma: no cover
    from .journal_entries import Entry

__all__ = ["Kept", "Operation", "OperationCall", "OperationLog", "by_key", "declare_overrides",
           "install_log", "names_nothing", "operation", "operations_of"]

F = TypeVar("F", bound=Callable[..., Any])

#: ``subjects(arguments, result, resolved)``: ``[key, value, source, reason]`` of each belief a
#: change names, for history (``arguments``: bound with defaults; ``resolved``: what it announced).
Subjects = Callable[[Mapping[str, Any], Any, Mapping[str, Any]], list[list[Any]]]


@attrs.frozen(slots=True)
class Kept:
    """What a journal entry of one call keeps: the arguments it replays with, what the call
    resolved before it ran (the entry's ``r``), and, when the method must run with other
    arguments than the ones given (a generator read once), those."""

    args: tuple[Any, ...]
    kwargs: Mapping[str, Any] = attrs.field(factory=dict)
    resolved: Mapping[str, Any] = attrs.field(factory=dict)
    run_args: tuple[Any, ...] | None = None
    run_kwargs: Mapping[str, Any] | None = None


@attrs.frozen(slots=True)
class Operation:
    """The declaration of one changing method (made by :func:`operation`).

    ``name`` is the entry's operation (``"call"`` for ``_called``), ``method`` the attribute
    that runs it; ``subjects`` names what its history row is about; ``keep(call)`` says what an
    entry keeps (``None``: the arguments as given; a ``keep`` returning ``None`` runs the call
    as it is, the method's own refusal follows); ``replay(base, entry)`` runs an entry again
    (``None``: the method called with the entry's arguments); ``snapshot``: the entry carries
    the base's whole state instead; ``records``: the announced values the entry keeps for the
    replay.
    """

    name: str
    method: str
    subjects: Subjects
    keep: Callable[[OperationCall], Kept | None] | None = None
    replay: Callable[[Any, Entry], None] | None = None
    snapshot: bool = False
    records: tuple[str, ...] = ()


@attrs.frozen(slots=True)
class OperationCall:
    """One call of a declared changing method, as its log sees it."""

    base: Any
    operation: Operation
    method: Callable[..., Any]  # the undecorated method
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]

    @property
    def name(self) -> str:
        """The operation's name."""
        return self.operation.name

    def bound(self, args: tuple[Any, ...] | None = None,
              kwargs: Mapping[str, Any] | None = None) -> inspect.BoundArguments:
        """The arguments (default: the ones given) bound to the method's parameters, ``self``
        first, without defaults; ``InvalidTypeError`` when they do not fit."""
        try:
            return _signature(self.method).bind(self.base, *(self.args if args is None else args),
                                                **(self.kwargs if kwargs is None else kwargs))
        except TypeError as exc:
            raise InvalidTypeError(f"{self.name}(): {exc}") from None

    def bind(self, args: tuple[Any, ...] | None = None,
             kwargs: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The arguments (default: the ones given) by parameter name, with their defaults
        (``self`` left out); ``InvalidTypeError`` when they do not fit."""
        bound = self.bound(args, kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        arguments.pop(next(iter(arguments)))  # self
        return arguments

    def proceed(self, *args: Any, **kwargs: Any) -> Any:
        """Run the method (with ``args``/``kwargs`` when given, else the arguments given)."""
        if args or kwargs:
            return self.method(self.base, *args, **kwargs)
        return self.method(self.base, *self.args, **self.kwargs)


class OperationLog(Protocol):
    """What a base announces its changes to (see the module docstring)."""

    def run(self, call: OperationCall) -> Any:
        """Run ``call`` (``call.proceed()``) and return its result."""

    def resolved(self, what: str, value: Any) -> None:
        """The running change decided ``what`` to be ``value``."""


@functools.cache
def _signature(method: Callable[..., Any]) -> inspect.Signature:
    return inspect.signature(method)


def operation(name: str | None = None, *, subjects: Subjects | None = None,
              keep: Callable[[OperationCall], Kept | None] | None = None,
              replay: Callable[[Any, Entry], None] | None = None, snapshot: bool = False,
              records: tuple[str, ...] = ()) -> Callable[[F], F]:
    """Declare a changing method of a base (see the module docstring and :class:`Operation`).

    ``name`` defaults to the method's name; ``subjects`` to :func:`names_nothing`.

    >>> from corollary import BeliefBase
    >>> class Shop(BeliefBase):
    ...     @operation(subjects=by_key)
    ...     def list_price(self, key: str, price: float) -> None:
    ...         self.assert_(key, price, source="tool:shop")
    >>> operations_of(Shop)["list_price"].method
    'list_price'
    """

    def declare(method: F) -> F:
        return _declared(method, Operation(name or method.__name__, method.__name__,
                                           subjects or names_nothing, keep, replay, snapshot,
                                           records))

    return declare


def _declared(method: F, declared: Operation) -> F:
    if _is_users(method):  # undone on a plain base when it raises (corollary.facade.undo)
        changing = _undoable_wrapper(method, declared)
    else:  # the base's own: all or nothing by its own machinery, and the plain path is hot
        changing = _exact_wrapper(method, declared) or _any_wrapper(method, declared)
    functools.update_wrapper(changing, method)
    changing.__operation__ = declared  # type: ignore[attr-defined]
    return changing  # type: ignore[return-value]


def _any_wrapper(method: Callable[..., Any], declared: Operation) -> Callable[..., Any]:
    def changing(self: Any, *args: Any, **kwargs: Any) -> Any:
        log = self._oplog
        if log is None:  # a plain base: no log, one check
            return method(self, *args, **kwargs)
        return log.run(OperationCall(self, declared, method, args, kwargs))

    return changing


#: The modules of the base's own changing methods, each all or nothing by its own machinery
#: (engine batches, checks before any change): their plain path is the hot one. Any other
#: declared method (a subclass's, a doctest's, a module not listed here) is undone by
#: :mod:`corollary.facade.undo` when it raises: listing a module is an optimisation only.
OWN_MODULES = frozenset({"corollary.facade.base", "corollary.facade.remembering",
                         "corollary.facade.promising", "corollary.facade.resolving",
                         "corollary.facade.calling"})


def _is_users(method: Callable[..., Any]) -> bool:
    """Whether ``method`` is not one of the base's own (:data:`OWN_MODULES`)."""
    return getattr(method, "__module__", None) not in OWN_MODULES


def _undoable_wrapper(method: Callable[..., Any], declared: Operation) -> Callable[..., Any]:
    def changing(self: Any, *args: Any, **kwargs: Any) -> Any:
        log = self._oplog
        if log is None:
            return run_undoable(self, method, args, kwargs)
        return log.run(OperationCall(self, declared, method, args, kwargs))

    return changing


def _exact_wrapper(method: Callable[..., Any], declared: Operation
                   ) -> Callable[..., Any] | None:
    """The wrapper with the method's own parameters (``None`` for a signature it cannot copy):
    the call to the method then packs no ``*args`` tuple nor ``**kwargs`` dict, which cost a
    plain base's ``assert_`` a third of its time (measured: benchmarks/RESULTS.md). With a log,
    the call keeps the arguments given: those still at their default (by identity) are left
    out, as a caller who did not pass them."""
    try:
        params = list(inspect.signature(method).parameters.values())
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return None
    if not params or any(p.kind is p.POSITIONAL_ONLY for p in params):
        return None
    names = {"_op_method_": method, "_op_declared_": declared, "_op_logged_": _logged,
             "_op_unset_": inspect.Parameter.empty}
    heads, passed, positional, keywords = [], [], [], []
    star = double = None
    for i, p in enumerate(params):
        default = ""
        if p.default is not p.empty:
            names[f"_op_d{i}_"] = p.default
            default = f"=_op_d{i}_"
        if p.kind is p.POSITIONAL_OR_KEYWORD:
            heads.append(p.name + default)
            passed.append(p.name)
            positional.append((p.name, p.default))
        elif p.kind is p.VAR_POSITIONAL:
            heads.append("*" + p.name)
            passed.append("*" + p.name)
            star = p.name
        elif p.kind is p.KEYWORD_ONLY:
            if star is None and not any(h == "*" for h in heads):
                heads.append("*")
            heads.append(p.name + default)
            passed.append(f"{p.name}={p.name}")
            keywords.append((p.name, p.default))
        else:
            heads.append("**" + p.name)
            passed.append("**" + p.name)
            double = p.name
    me = params[0].name
    names["_op_positional_"] = tuple(positional[1:])
    names["_op_keywords_"] = tuple(keywords)
    given = (f"({', '.join(n for n, _ in positional[1:])}{',' if len(positional) > 1 else ''})"
             + (f" + {star}" if star else ""))
    kw = "{" + ", ".join(f"{n!r}: {n}" for n, _ in keywords) + "}"
    source = (f"def changing({', '.join(heads)}):\n"
              f"    _op_log_ = {me}._oplog\n"
              f"    if _op_log_ is None:\n"
              f"        return _op_method_({', '.join(passed)})\n"
              f"    return _op_logged_(_op_log_, {me}, _op_declared_, _op_method_, {given}, "
              f"{kw}, {double or '{}'}, _op_positional_, _op_keywords_, "
              f"{star is not None})\n")
    code: dict[str, Any] = {}
    exec(compile(source, f"<@operation {declared.name}>", "exec"), names, code)  # noqa: S102
    return code["changing"]  # type: ignore[no-any-return]


def _logged(log: OperationLog, base: Any, declared: Operation, method: Callable[..., Any],
            args: tuple[Any, ...], kwargs: dict[str, Any], extra: Mapping[str, Any],
            positional: tuple[tuple[str, Any], ...], keywords: tuple[tuple[str, Any], ...],
            starred: bool) -> Any:
    """The call as given: trailing positional arguments and keyword-only ones still at their
    default (by identity) are left out."""
    if not starred:
        n = len(args)
        while n and args[n - 1] is positional[n - 1][1]:
            n -= 1
        args = args[:n]
    kwargs = {k: v for (k, default), v in zip(keywords, kwargs.values(), strict=True)
              if v is not default}
    if extra:
        kwargs.update(extra)
    return log.run(OperationCall(base, declared, method, args, kwargs))


def declare_overrides(cls: type) -> None:
    """A subclass's override of a declared changing method is the same operation: declared as
    its parent's (so a session journals the subclass's own method, as one entry)."""
    for attr, member in list(vars(cls).items()):
        if not callable(member) or hasattr(member, "__operation__"):
            continue
        parent = getattr(super(cls, cls), attr, None)
        declared = getattr(parent, "__operation__", None)
        if declared is not None:
            setattr(cls, attr, _declared(member, declared))


def operations_of(cls: type) -> dict[str, Operation]:
    """The declared changing methods of ``cls``, by operation name (cached per class)."""
    found: dict[str, Operation] | None = vars(cls).get("__operations__")
    if found is None:
        found = {}
        for attr in dir(cls):
            declared = getattr(getattr(cls, attr, None), "__operation__", None)
            if isinstance(declared, Operation):
                found[declared.name] = declared
        type.__setattr__(cls, "__operations__", found)
    return found


def install_log(base: Any, log: OperationLog | None) -> OperationLog | None:
    """Make ``log`` the operation log of ``base`` (``None``: none); return the one before."""
    if log is not None and not (callable(getattr(log, "run", None))
                                and callable(getattr(log, "resolved", None))):
        raise InvalidTypeError("an operation log has run(call) and resolved(what, value)")
    before: OperationLog | None = base._oplog
    base._oplog = log
    return before


def names_nothing(arguments: Mapping[str, Any], result: Any,
                  resolved: Mapping[str, Any]) -> list[list[Any]]:
    """A change whose history row names no belief (a tool, a rule, a promise)."""
    return []


def by_key(arguments: Mapping[str, Any], result: Any,
           resolved: Mapping[str, Any]) -> list[list[Any]]:
    """A change about ``key``: its ``value``, ``source`` and ``reason`` where it takes them."""
    return [[arguments.get("key"), arguments.get("value"), arguments.get("source"),
             arguments.get("reason")]]
