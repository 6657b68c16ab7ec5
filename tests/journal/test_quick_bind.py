"""OperationCall.bind without inspect (corollary/facade/operations.py, issue 38: binding a
change's arguments with ``inspect.Signature.bind`` was a tenth of a put's CPU): for arguments
that plainly fit it gives what ``inspect`` gives, in the signature's order, and for any others
it steps aside, so ``inspect`` binds them or raises its ``InvalidTypeError``."""

from __future__ import annotations

import inspect
import itertools
from typing import Any

import pytest

from corollary import BeliefBase
from corollary.facade.operations import Operation, OperationCall
from corollary.foundations.errors import InvalidTypeError


def _by_inspect(method: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    try:
        bound = inspect.signature(method).bind(None, *args, **kwargs)
    except TypeError:
        return TypeError
    bound.apply_defaults()
    arguments = dict(bound.arguments)
    arguments.pop(next(iter(arguments)))
    return arguments


def _calls(params: list[inspect.Parameter]) -> list[tuple[tuple[Any, ...], dict[str, Any]]]:
    """Argument lists for a signature: each number of positional arguments, each subset of the
    remaining names by keyword, and some that do not fit."""
    names = [p.name for p in params]
    calls: list[tuple[tuple[Any, ...], dict[str, Any]]] = []
    for n in range(len(names) + 2):
        args = tuple(f"p{i}" for i in range(n))
        rest = names[n:]
        for r in range(min(len(rest), 3) + 1):
            for chosen in itertools.combinations(rest, r):
                calls.append((args, {name: f"k:{name}" for name in chosen}))
        calls.append((args, {"no_such_argument": 1}))
        if names:
            calls.append((args, {names[0]: "twice"}))
    return calls


def _method(kb: Any, name: str) -> Any:
    return getattr(type(kb), name)  # a plain base holds the undecorated method


@pytest.mark.parametrize("name", ["assert_", "retract", "end", "assert_many", "claim",
                                  "record_outcome", "forget"])
def test_a_quick_bind_is_inspects_bind_or_steps_aside(name: str) -> None:
    kb = BeliefBase()
    method = _method(kb, name)
    params = list(inspect.signature(method).parameters.values())[1:]
    declared = getattr(type(kb), name).__operation__
    checked = 0
    for args, kwargs in _calls(params):
        expected = _by_inspect(method, args, kwargs)
        call = OperationCall(kb, declared, method, args, kwargs)
        if expected is TypeError:
            with pytest.raises(InvalidTypeError):
                call.bind()
            continue
        got = call.bind()
        assert got == expected and list(got) == list(expected), (args, kwargs)
        checked += 1
    assert checked >= 3


def test_a_signature_with_star_arguments_is_bound_by_inspect() -> None:
    def method(self: Any, a: Any, *rest: Any, **more: Any) -> None: ...

    declared = Operation("x", "x", lambda *_: [])
    call = OperationCall(BeliefBase(), declared, method, (1, 2, 3), {"z": 4})
    assert call.bind() == {"a": 1, "rest": (2, 3), "more": {"z": 4}}
