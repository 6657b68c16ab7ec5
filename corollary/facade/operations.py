"""The operation-log hook: every changing method of a base declared once, with ``@operation``.

A base announces its changes through one hook, its *operation log* (``None`` on a plain base,
whose class holds the base's own changing methods themselves: a plain base calls them at no
cost). A changing method is declared once::

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
from types import MethodType
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import attrs

from ..changes.subjects import Subjects, by_key, names_nothing
from ..foundations.errors import InvalidTypeError
from .undo import run_undoable

if TYPE_CHECKING:  # pragma: no cover
    from .journal_entries import Entry

__all__ = ["HOOK_FAILED", "Kept", "Operation", "OperationCall", "OperationLog", "by_key",
           "current_log", "declare_change", "declare_overrides", "hook_failed", "install_log",
           "names_nothing", "operation", "operation_named", "operations_of", "own_method",
           "undone_by_the_log"]

F = TypeVar("F", bound=Callable[..., Any])

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
    replay; ``change``: the value class of the base's own change (its method builds the value
    and makes it with :func:`corollary.facade.making.make`: the entry is the value's, and a
    replay reads the value back and runs its effect).
    """

    name: str
    method: str
    subjects: Subjects
    keep: Callable[[OperationCall], Kept | None] | None = None
    replay: Callable[[Any, Entry], None] | None = None
    snapshot: bool = False
    records: tuple[str, ...] = ()
    change: type[Any] | None = None


@attrs.frozen(slots=True)
class OperationCall:
    """One call of a declared changing method, as its log sees it; for the base's own changes,
    its value (``change``: the arguments are its entry's, ``method`` its effect)."""

    base: Any
    operation: Operation
    method: Callable[..., Any]  # the undecorated method (a value's: its effect)
    args: tuple[Any, ...]
    kwargs: Mapping[str, Any]
    change: Any = None

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
        (``self`` left out); ``InvalidTypeError`` when they do not fit. A value's: its fields
        (the method's parameters by name)."""
        if self.change is not None and args is None and kwargs is None:
            return dict(self.change.arguments())
        quick = _quick_bind(self.method, self.args if args is None else args,
                            self.kwargs if kwargs is None else kwargs)
        if quick is not None:
            return quick
        bound = self.bound(args, kwargs)
        bound.apply_defaults()
        arguments = dict(bound.arguments)
        arguments.pop(next(iter(arguments)))  # self
        return arguments

    def proceed(self, *args: Any, **kwargs: Any) -> Any:
        """Run the method (with ``args``/``kwargs`` when given, else the arguments given); a
        value's effect on its value."""
        if self.change is not None:
            return self.method(self.base, self.change)
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


_NO_DEFAULT = inspect.Parameter.empty
#: per method: its parameters after ``self`` by name with their defaults, and how many of the
#: first may come by position; ``None`` for a signature with ``*args``, ``**kwargs`` or a
#: positional-only parameter (bound by inspect)
_PLANS: dict[Callable[..., Any], tuple[dict[str, Any], int] | None] = {}


def _quick_bind(method: Callable[..., Any], args: tuple[Any, ...],
                kwargs: Mapping[str, Any]) -> dict[str, Any] | None:
    """:meth:`OperationCall.bind` without ``inspect`` for arguments that plainly fit (every
    change of a journaled session binds its arguments: ``Signature.bind`` was a tenth of a
    put's CPU); ``None`` when they may not fit, for ``inspect`` to bind them or say why not."""
    if method in _PLANS:
        plan = _PLANS[method]
    else:
        params = list(_signature(method).parameters.values())[1:]
        simple = all(p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in params)
        plan = _PLANS[method] = ({p.name: p.default for p in params}, sum(
            p.kind is p.POSITIONAL_OR_KEYWORD for p in params)) if simple else None
    if plan is None:
        return None
    defaults, positional = plan
    if len(args) > positional:
        return None
    out = dict(zip(defaults, args, strict=False))  # the first names, by position
    for name, value in kwargs.items():
        if name in out or name not in defaults:
            return None
        out[name] = value
    if len(out) < len(defaults):
        for name, default in defaults.items():
            if name not in out:
                if default is _NO_DEFAULT:
                    return None
                out[name] = default
    return {name: out[name] for name in defaults}


def operation(name: str | None = None, *, subjects: Subjects | None = None,
              keep: Callable[[OperationCall], Kept | None] | None = None,
              replay: Callable[[Any, Entry], None] | None = None, snapshot: bool = False,
              records: tuple[str, ...] = (), change: type[Any] | None = None
              ) -> Callable[[F], F]:
    """Declare a changing method of a base (see the module docstring and :class:`Operation`).

    ``name`` defaults to the method's name; ``subjects`` to the history rows of ``change``
    (the base's own change: its value class), else :func:`names_nothing`.

    >>> from corollary import BeliefBase
    >>> class Shop(BeliefBase):
    ...     @operation(subjects=by_key)
    ...     def list_price(self, key: str, price: float) -> None:
    ...         self.assert_(key, price, source="tool:shop")
    >>> operations_of(Shop)["list_price"].method
    'list_price'
    """

    def declare(method: F) -> F:
        named = subjects or (change.named[0] if change is not None else names_nothing)
        return _declared(method, Operation(name or method.__name__, method.__name__, named,
                                           keep, replay, snapshot, records, change))

    return declare


def _declared(method: F, declared: Operation) -> F:
    if _is_users(method):  # undone on a plain base when it raises (corollary.facade.undo)
        changing = _changing(method, declared, undoable=True)
        changing.__operation__ = declared  # type: ignore[attr-defined]
        return changing  # type: ignore[return-value]
    method.__operation__ = declared  # type: ignore[attr-defined]
    if declared.change is not None:  # it builds its value and makes it (facade/making.py)
        return method
    # the base's own: the class holds the method itself, so a plain base calls it as it would
    # an undecorated method; a base with a log reads its closure instead (install_log)
    method.__logged__ = _changing(method, declared, undoable=False)  # type: ignore[attr-defined]
    return method


#: The modules of the base's own changing methods, each all or nothing by its own machinery
#: (engine batches, checks before any change): their plain path is the hot one. Any other
#: declared method (a subclass's, a doctest's, a module not listed here) is undone by
#: :mod:`corollary.facade.undo` when it raises: listing a module is an optimisation only.
OWN_MODULES = frozenset({"corollary.facade.base", "corollary.facade.remembering",
                         "corollary.facade.assertions", "corollary.facade.claiming",
                         "corollary.facade.retracting",
                         "corollary.facade.promising", "corollary.facade.resolving",
                         "corollary.facade.calling", "corollary.facade.ending",
                         "corollary.facade.forgetting", "corollary.facade.depending",
                         "corollary.facade.effects"})


def _is_users(method: Callable[..., Any]) -> bool:
    """Whether ``method`` is not one of the base's own (:data:`OWN_MODULES`)."""
    return getattr(method, "__module__", None) not in OWN_MODULES


def own_method(cls: type, declared: Operation) -> bool:
    """Whether ``cls`` makes ``declared`` with the base's own method (no subclass overrides
    it): a replay then runs the value's effect, else the subclass's method again."""
    method: Callable[..., Any] | None = getattr(cls, declared.method, None)
    return method is not None and not _is_users(method)


def undone_by_the_log(call: OperationCall) -> bool:
    """Whether a log undoes ``call`` itself when it raises (a user's declared change: the
    base's own undo what they did before they raise; a user's may have changed the base
    through ``super()`` calls no log hears)."""
    return _is_users(call.method)


def _changing(method: Callable[..., Any], declared: Operation, undoable: bool
              ) -> Callable[..., Any]:
    """The method announcing itself to the base's log (checked when called). No code is
    generated (issue 36): one closure over the method, its source in this file."""
    # an override calling super() reaches the base's own method itself, which no log hears:
    # its undo copies the base's state before it starts, not before its first inner change
    at_once = "__class__" in getattr(getattr(method, "__code__", None), "co_freevars", ())

    def changing(self: Any, *args: Any, **kwargs: Any) -> Any:
        log = self.parts.log
        if log is not None:
            return log.run(OperationCall(self, declared, method, args, kwargs))
        if undoable:
            return run_undoable(self, method, args, kwargs, install_log, at_once)
        return method(self, *args, **kwargs)

    functools.update_wrapper(changing, method)
    return changing


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


#: The operations of the changes registered as values (:func:`corollary.changes.register_change`),
#: by name: a base of any class replays their entries.
_CHANGES: dict[str, Operation] = {}


def declare_change(declared: Operation) -> None:
    """Make ``declared`` (a registered change value's operation) known to every base's log."""
    _CHANGES[declared.name] = declared


def operation_named(cls: type, name: str) -> Operation | None:
    """The operation ``name`` of a base of class ``cls``: a declared method of it, or a
    registered change (``None``: neither)."""
    found = operations_of(cls).get(name)
    return found if found is not None else _CHANGES.get(name)


def current_log(base: Any) -> OperationLog | None:
    """The log ``base`` announces its changes to now (``None``: none)."""
    log: OperationLog | None = base.parts.log
    return log


#: What a base announces (``log.resolved(HOOK_FAILED, True)``) when a hook raised once its own
#: change was made: the change is no refusal, and its log undoes it (docs/journal.md).
HOOK_FAILED = "hook_failed"


def hook_failed(base: Any) -> None:
    """Tell ``base``'s log that a hook (its policy's ``after_change``) raised once the running
    change was made: a journal then rebuilds the base rather than take the failure, even a
    ``CorollaryError``, for a refusal that changed nothing."""
    log = current_log(base)
    if log is not None:
        log.resolved(HOOK_FAILED, True)


def install_log(base: Any, log: OperationLog | None) -> OperationLog | None:
    """Make ``log`` the operation log of ``base`` (``None``: none); return the one before."""
    if log is not None and not (callable(getattr(log, "run", None))
                                and callable(getattr(log, "resolved", None))):
        raise InvalidTypeError("an operation log has run(call) and resolved(what, value)")
    before: OperationLog | None = base.parts.log
    base.parts.log = log
    own = vars(base)
    for attr, logged in _logged_methods(type(base)).items():
        held = own.get(attr)
        if log is not None:
            if held is None:
                own[attr] = MethodType(logged, base)
        elif type(held) is MethodType and held.__func__ is logged:
            del own[attr]
    return before


def _logged_methods(cls: type) -> dict[str, Callable[..., Any]]:
    """The base's own declared methods ``cls`` reads, by attribute: the closures a base with
    a log reads instead (from its ``__dict__``, set by :func:`install_log`; a plain base's
    ``__dict__`` holds none, so it makes no reference cycle). Cached per class."""
    found: dict[str, Callable[..., Any]] | None = vars(cls).get("__logged_methods__")
    if found is None:
        found = {}
        for declared in operations_of(cls).values():
            logged = getattr(getattr(cls, declared.method, None), "__logged__", None)
            if logged is not None:
                found[declared.method] = logged
        type.__setattr__(cls, "__logged_methods__", found)
    return found
