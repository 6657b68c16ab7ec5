"""A safe arithmetic evaluator for the formulas that model claims carry.

A formula such as ``(q3 - q2) / q2`` is parsed with :func:`ast.parse` and walked against an
allowlist: numbers, variable names, ``+ - * / // % **``, unary ``-``/``+`` and a few math
functions called by bare name. Nothing is ever passed to ``eval``, ``exec`` or ``compile``.
Anything outside the allowlist, and any result that is not a finite real number, raises
:class:`~corollary.foundations.errors.FormulaError`.

Examples
--------
>>> evaluate("(q3 - q2) / q2", {"q2": 100, "q3": 110})
0.1
>>> sorted(names("max(a, b) * pi"))
['a', 'b']
"""

from __future__ import annotations

import ast
import math
import numbers
import operator
from collections.abc import Callable, Mapping
from functools import lru_cache
from typing import Any

import attrs

from corollary.foundations._validate import check_number, exact_str
from corollary.foundations.errors import FormulaError, InvalidTypeError

__all__ = ["FormulaCheck", "check", "evaluate", "names"]

MAX_LENGTH = 1000  #: longest formula text accepted, in characters
MAX_NODES = 200  #: most expression nodes in one formula
MAX_DEPTH = 30  #: deepest nesting of expression nodes
MAX_EXPONENT = 100  #: largest ``|exponent|`` accepted by ``**``
_MAX_INT_BITS = 1024  # ints must stay within float range

_CONSTANTS = {"pi": math.pi, "e": math.e}
_BINARY: dict[type[ast.operator], Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod,
}
_UNARY: dict[type[ast.unaryop], Callable[[Any], Any]] = {
    ast.USub: operator.neg, ast.UAdd: operator.pos,
}
# name -> (function, min args, max args); None means any number of arguments
_FUNCTIONS: dict[str, tuple[Callable[..., Any], int, int | None]] = {
    "abs": (abs, 1, 1), "min": (lambda *a: min(a), 1, None), "max": (lambda *a: max(a), 1, None),
    "round": (round, 1, 2), "sqrt": (math.sqrt, 1, 1), "log": (math.log, 1, 2),
    "log10": (math.log10, 1, 1), "exp": (math.exp, 1, 1), "floor": (math.floor, 1, 1),
    "ceil": (math.ceil, 1, 1),
}
_FORBIDDEN = {  # friendly names for the constructs people are most likely to try
    ast.Attribute: "attribute access", ast.Subscript: "subscripts", ast.Lambda: "lambdas",
    ast.ListComp: "comprehensions", ast.SetComp: "comprehensions", ast.DictComp: "comprehensions",
    ast.GeneratorExp: "comprehensions", ast.Compare: "comparisons", ast.BoolOp: "boolean operators",
    ast.JoinedStr: "f-strings", ast.NamedExpr: "assignment expressions (:=)",
    ast.IfExp: "conditional expressions", ast.Starred: "starred arguments",
    ast.List: "lists", ast.Tuple: "tuples", ast.Dict: "dicts", ast.Set: "sets",
    ast.Await: "await", ast.Yield: "yield", ast.YieldFrom: "yield",
}
_OPERATORS = {ast.Not: "not", ast.Invert: "~", ast.MatMult: "@", ast.LShift: "<<",
              ast.RShift: ">>", ast.BitOr: "|", ast.BitXor: "^", ast.BitAnd: "&"}
# a chain of operators of one precedence level (a + b - c + ...) counts as one nesting level
_LEVEL = {ast.Add: 1, ast.Sub: 1, ast.Mult: 2, ast.Div: 2, ast.FloorDiv: 2, ast.Mod: 2}


@attrs.frozen(slots=True)
class FormulaCheck:
    """The outcome of re-executing a formula against the value a model stated.

    Attributes
    ----------
    formula : str
        The formula text.
    stated : float
        The value the model claimed.
    computed : float
        The value the evaluator computed.
    reproduced : bool
        Whether ``computed`` and ``stated`` agree within the tolerances.
    """

    formula: str
    stated: float
    computed: float
    reproduced: bool


def _fail(node: ast.AST, what: str) -> FormulaError:
    column = getattr(node, "col_offset", 0) + 1
    return FormulaError(f"not allowed in a formula: {what} (at column {column})")


def _validate(node: ast.AST, depth: int, found: set[str]) -> None:
    """Check one expression node (and its children) against the allowlist."""
    if depth > MAX_DEPTH:
        raise FormulaError(f"formula nested deeper than {MAX_DEPTH} levels")
    if isinstance(node, ast.Constant):
        value = node.value
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _fail(node, f"{type(value).__name__} constant {value!r}")
    elif isinstance(node, ast.Name):
        found.add(node.id)
    elif isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
        _validate(node.operand, depth + 1, found)
    elif isinstance(node, ast.BinOp) and (type(node.op) in _BINARY or isinstance(node.op, ast.Pow)):
        left = node.left
        flat = isinstance(left, ast.BinOp) and _LEVEL.get(type(left.op), 0) == _LEVEL.get(
            type(node.op), -1)
        _validate(left, depth if flat else depth + 1, found)
        _validate(node.right, depth + 1, found)
    elif isinstance(node, ast.Call):
        name = node.func.id if isinstance(node.func, ast.Name) else None
        if name not in _FUNCTIONS:
            raise _fail(node, f"call to {ast.unparse(node.func)!r} (only {', '.join(_FUNCTIONS)})")
        if node.keywords:
            raise _fail(node, f"keyword arguments to {name}()")
        _, low, high = _FUNCTIONS[name]
        if len(node.args) < low or (high is not None and len(node.args) > high):
            takes = f"at least {low}" if high is None else low if high == low else f"{low} or {high}"
            raise FormulaError(f"{name}() takes {takes} argument(s), got {len(node.args)}")
        for arg in node.args:
            _validate(arg, depth + 1, found)
    else:
        op = getattr(node, "op", None)
        what = _FORBIDDEN.get(type(node)) or (
            f"the {_OPERATORS.get(type(op), type(op).__name__)!r} operator"
            if op else f"{type(node).__name__} expressions")
        raise _fail(node, what)


def _parse(formula: str) -> tuple[ast.expr, frozenset[str]]:
    """Parse and validate ``formula``; return its body and the names it reads."""
    if not isinstance(formula, str):
        raise InvalidTypeError(f"a formula must be a str, not {type(formula).__name__}")
    formula = exact_str(formula)  # a subclass: its text only (the parse cache hashes it)
    if len(formula) > MAX_LENGTH:
        raise FormulaError(f"formula is {len(formula)} characters long; the limit is {MAX_LENGTH}")
    return _parse_checked(formula)


@lru_cache(maxsize=512)
def _parse_checked(formula: str) -> tuple[ast.expr, frozenset[str]]:
    try:
        tree = ast.parse(formula.strip(), mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        raise FormulaError(f"formula does not parse: {exc}") from None
    if sum(isinstance(n, ast.expr) for n in ast.walk(tree)) > MAX_NODES:
        raise FormulaError(f"formula has more than {MAX_NODES} expression nodes")
    found: set[str] = set()
    _validate(tree.body, 1, found)
    return tree.body, frozenset(found)


def _number(value: Any, what: str) -> int | float:
    """Return ``value`` if it is a finite real within float range, else raise FormulaError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise FormulaError(f"{what} is {value!r}, not a real number")
    value = int(value) if isinstance(value, numbers.Integral) else float(value)
    try:
        finite = math.isfinite(float(value))
    except OverflowError:  # an int beyond float range
        raise FormulaError(f"{what} is too large") from None
    if not finite:
        raise FormulaError(f"{what} is {value}, not a finite number")
    return value


def _power(base: int | float, exponent: int | float) -> Any:
    if abs(exponent) > MAX_EXPONENT:
        raise FormulaError(f"exponent {exponent} is larger than {MAX_EXPONENT} in magnitude")
    if isinstance(base, int) and isinstance(exponent, int) and exponent > 0:
        if (abs(base).bit_length() - 1) * exponent > _MAX_INT_BITS:
            raise FormulaError(f"{base} ** {exponent} is too large")
    return base**exponent


def _eval(node: ast.expr, env: Mapping[str, Any]) -> int | float:
    if isinstance(node, ast.Constant):
        return _number(node.value, "a constant")
    if isinstance(node, ast.Name):
        if node.id in env:
            return _number(env[node.id], f"variable {node.id!r}")
        if node.id in _CONSTANTS:
            return _CONSTANTS[node.id]
        raise FormulaError(f"unknown name {node.id!r} in formula")
    try:
        if isinstance(node, ast.UnaryOp):
            result = _UNARY[type(node.op)](_eval(node.operand, env))
        elif isinstance(node, ast.BinOp):
            left, right = _eval(node.left, env), _eval(node.right, env)
            op = _BINARY.get(type(node.op), _power)
            result = op(left, right)
        else:  # a validated call
            assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            args = [_eval(arg, env) for arg in node.args]
            if node.func.id == "round" and len(args) == 2 and not isinstance(args[1], int):
                raise FormulaError("round() needs a whole number of digits")
            if node.func.id == "round" and len(args) == 2 and abs(args[1]) > 400:
                # round(int, -n) builds 10**n: bound it like ** is bounded
                raise FormulaError("round() takes at most 400 digits either way")
            result = _FUNCTIONS[node.func.id][0](*args)
    except FormulaError:
        raise
    except ZeroDivisionError:
        raise FormulaError(f"division by zero in {ast.unparse(node)!r}") from None
    except OverflowError:
        raise FormulaError(f"result of {ast.unparse(node)!r} is too large") from None
    except ValueError as exc:  # math domain errors: sqrt(-1), log(0)
        raise FormulaError(f"{ast.unparse(node)!r}: {exc}") from None
    return _number(result, f"the result of {ast.unparse(node)!r}")


def names(formula: str) -> frozenset[str]:
    """Return the variable names a formula reads, after checking it against the allowlist.

    The constants ``pi`` and ``e`` are left out unless the formula uses them, in which case a
    variable of the same name would shadow them; function names in call position are not
    variables.

    Parameters
    ----------
    formula : str
        The formula text.

    Returns
    -------
    frozenset of str
        The names, without ``pi`` and ``e``.

    Raises
    ------
    FormulaError
        If the formula uses a construct outside the allowlist or exceeds a size limit.
    InvalidTypeError
        If ``formula`` is not a str.

    Examples
    --------
    >>> sorted(names("sqrt(x) + 2 * y - e"))
    ['x', 'y']
    >>> names("x.real")
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.FormulaError: not allowed in a formula: attribute access (at column 1)
    """
    return _parse(formula)[1].difference(_CONSTANTS)


def evaluate(formula: str, variables: Mapping[str, float]) -> float:
    """Evaluate an arithmetic formula over named numbers, safely.

    Parameters
    ----------
    formula : str
        Arithmetic over numbers and names: ``+ - * / // % **`` (``|exponent| <= 100``), unary
        ``-``/``+``, parentheses, and ``abs min max round sqrt log log10 exp floor ceil`` called by
        bare name. ``pi`` and ``e`` are constants unless ``variables`` binds them.
    variables : Mapping of str to float
        The values of the names the formula reads: finite ints or floats (not bools).

    Returns
    -------
    float
        The result, always finite.

    Raises
    ------
    FormulaError
        If the formula is outside the allowlist, too long, too large or too deep, reads an unknown
        name or a non-numeric variable, divides by zero, or produces an infinite or NaN result.
    InvalidTypeError
        If ``formula`` is not a str or ``variables`` is not a mapping.

    Examples
    --------
    >>> evaluate("2 + 3 * 4 ** 2", {})
    50.0
    >>> evaluate("round(log(x, 2) + 7 // 2 % 2, 3)", {"x": 8})
    4.0
    >>> evaluate("1 / x", {"x": 0})
    Traceback (most recent call last):
    ...
    corollary.foundations.errors.FormulaError: division by zero in '1 / x'
    """
    body, _ = _parse(formula)
    if not isinstance(variables, Mapping):
        raise InvalidTypeError(f"variables must be a mapping, not {type(variables).__name__}")
    return float(_eval(body, variables))


def check(
    formula: str,
    variables: Mapping[str, float],
    stated: float,
    *,
    rel_tol: float = 1e-9,
    abs_tol: float = 1e-9,
) -> FormulaCheck:
    """Re-execute a formula and compare the result with the value a model stated.

    Parameters
    ----------
    formula : str
        The formula, as for :func:`evaluate`.
    variables : Mapping of str to float
        The values of its names.
    stated : float
        The value the model claimed the formula gives.
    rel_tol, abs_tol : float, optional
        Tolerances passed to :func:`math.isclose`.

    Returns
    -------
    FormulaCheck
        ``reproduced`` is true when the computed value is close to ``stated``.

    Raises
    ------
    FormulaError
        If the formula cannot be evaluated (see :func:`evaluate`); a malformed formula is an
        error, not a failed check.
    InvalidTypeError
        If ``stated`` is not a real number.

    Examples
    --------
    >>> check("(q3 - q2) / q2", {"q2": 100, "q3": 110}, 0.1)
    FormulaCheck(formula='(q3 - q2) / q2', stated=0.1, computed=0.1, reproduced=True)
    >>> check("(q3 - q2) / q2", {"q2": 100, "q3": 110}, 0.15).reproduced
    False
    """
    if isinstance(stated, bool) or not isinstance(stated, numbers.Real):
        raise InvalidTypeError(f"stated must be a real number, not {type(stated).__name__}")
    stated = check_number(stated, "stated")
    rel_tol = check_number(rel_tol, "rel_tol", low=0.0)
    abs_tol = check_number(abs_tol, "abs_tol", low=0.0)
    computed = evaluate(formula, variables)
    same = math.isclose(computed, stated, rel_tol=rel_tol, abs_tol=abs_tol)
    return FormulaCheck(formula=formula, stated=stated, computed=computed, reproduced=same)
