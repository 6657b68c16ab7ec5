"""Tests for the safe arithmetic evaluator."""

from __future__ import annotations

import math

import attrs
import pytest
from support.hostile import raises_typed

from corollary.evidence.formula import FormulaCheck, check, evaluate, names
from corollary.foundations.errors import FormulaError, InvalidTypeError


@pytest.mark.parametrize(
    ("formula", "variables", "expected"),
    [
        ("1 + 2 * 3", {}, 7.0),
        ("(1 + 2) * 3", {}, 9.0),
        ("2 ** 3 ** 2", {}, 512.0),  # ** is right-associative
        ("-2 ** 2", {}, -4.0),  # ** binds tighter than unary minus
        ("+x - -y", {"x": 1.5, "y": 2}, 3.5),
        ("7 // 2", {}, 3.0),
        ("7 // -2", {}, -4.0),
        ("-7 % 3", {}, 2.0),
        ("7.5 % 2", {}, 1.5),
        ("1 / 4", {}, 0.25),
        ("2 ** -2", {}, 0.25),
        ("2 ** 100", {}, 2.0**100),
        ("1.5 ** 100", {}, 1.5**100),
        ("(q3 - q2) / q2", {"q2": 100, "q3": 110}, 0.1),
        ("abs(-3)", {}, 3.0),
        ("min(4, x, 6)", {"x": 5}, 4.0),
        ("max(4, x, 6)", {"x": 5}, 6.0),
        ("max(x)", {"x": 5}, 5.0),
        ("round(2.675)", {}, 3.0),
        ("round(1234.5678, 2)", {}, 1234.57),
        ("round(1234.5678, -2)", {}, 1200.0),
        ("sqrt(16)", {}, 4.0),
        ("log(e)", {}, 1.0),
        ("log(8, 2)", {}, 3.0),
        ("log10(1000)", {}, 3.0),
        ("exp(0)", {}, 1.0),
        ("floor(-2.5)", {}, -3.0),
        ("ceil(2.1)", {}, 3.0),
        ("2 * pi", {}, 2 * math.pi),
        ("e", {"e": 2}, 2.0),  # a variable shadows the constant
        ("pi", {"pi": 3}, 3.0),
        ("10 ** 20 + 1 - 10 ** 20", {}, 1.0),  # ints stay exact until the end
    ],
)
def test_allowed_arithmetic(formula: str, variables: dict, expected: float) -> None:
    result = evaluate(formula, variables)
    assert type(result) is float
    assert result == pytest.approx(expected, rel=1e-12)


def test_numpy_scalars_are_numbers() -> None:
    np = pytest.importorskip("numpy")
    assert evaluate("a + b", {"a": np.float64(1.5), "b": np.int64(2)}) == 3.5


def test_names() -> None:
    assert names("(q3 - q2) / q2") == frozenset({"q2", "q3"})
    assert names("sqrt(x) + log(y, 2) * pi - e") == frozenset({"x", "y"})
    assert names("3 * 4") == frozenset()
    assert isinstance(names("a"), frozenset)
    with pytest.raises(FormulaError, match="attribute access"):
        names("x.real")


def test_unknown_function_name_used_as_variable() -> None:
    with pytest.raises(FormulaError, match="unknown name 'sqrt'"):
        evaluate("sqrt + 1", {})
    assert evaluate("sqrt + 1", {"sqrt": 1}) == 2.0


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        ("__import__('os')", "call to '__import__'"),
        ("open('f')", "call to 'open'"),
        ("math.sqrt(4)", "call to 'math.sqrt'"),
        ("x.real", "attribute access"),
        ("a[0]", "subscripts"),
        ('"s"', "str constant"),
        ("b'x'", "bytes constant"),
        ("lambda: 1", "lambdas"),
        ("[x for x in y]", "comprehensions"),
        ("(x for x in y)", "comprehensions"),
        ("a < b", "comparisons"),
        ("a and b", "boolean operators"),
        ("not a", "the 'not' operator"),
        ("~a", "the '~' operator"),
        ("a @ b", "the '@' operator"),
        ("a << 2", "the '<<' operator"),
        ("(x := 1)", r"assignment expressions \(:=\)"),
        ("1 if a else 2", "conditional expressions"),
        ("f'{x}'", "f-strings"),
        ("[1, 2]", "lists"),
        ("(1, 2)", "tuples"),
        ("True", "bool constant True"),
        ("None", "NoneType constant"),
        ("1j", "complex constant"),
        ("round(1.25, ndigits=1)", r"keyword arguments to round\(\)"),
        ("max(*a)", "starred arguments"),
    ],
)
def test_rejected_constructs(formula: str, message: str) -> None:
    with pytest.raises(FormulaError, match=f"not allowed in a formula: {message}"):
        evaluate(formula, {"x": 1, "y": 2, "a": 1, "b": 2})


@pytest.mark.parametrize(
    ("formula", "message"),
    [
        ("9**9**9", "exponent 387420489 is larger than 100"),
        ("10**400", "exponent 400 is larger than 100"),
        ("2 ** -101", "exponent -101 is larger than 100"),
        ("(10**100)**100", "is too large"),
        ("10.0**100 * 10.0**100 * 10.0**100 * 10.0**100", "is inf, not a finite number"),
        ("1e308 * 10", "is inf, not a finite number"),
        ("1e200 ** 2", "is too large"),
        ("exp(1000)", "is too large"),
        ("1" * 400, "a constant is too large"),
        ("1 / x", "division by zero in '1 / x'"),
        ("x // 0", "division by zero"),
        ("5 % 0.0", "division by zero"),
        ("0 ** -1", "division by zero"),
        ("sqrt(-1)", "math domain error"),
        ("log(0)", "math domain error"),
        ("(-8) ** 0.5", "not a real number"),
        ("round(2.5, 0.5)", "whole number of digits"),
        ("abs(1, 2)", r"abs\(\) takes 1 argument\(s\), got 2"),
        ("log(1, 2, 3)", r"log\(\) takes 1 or 2 argument\(s\), got 3"),
        ("min()", r"min\(\) takes at least 1 argument\(s\), got 0"),
        ("1 +", "does not parse"),
    ],
)
def test_evaluation_errors(formula: str, message: str) -> None:
    with pytest.raises(FormulaError, match=message):
        evaluate(formula, {"x": 0})


def test_unknown_name_is_named() -> None:
    with pytest.raises(FormulaError, match="unknown name 'q4'"):
        evaluate("q4 - q3", {"q3": 1})


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (True, "variable 'x' is True, not a real number"),
        (float("nan"), "variable 'x' is nan, not a finite number"),
        (float("inf"), "variable 'x' is inf, not a finite number"),
        ("3", "variable 'x' is '3', not a real number"),
        (1 + 2j, "not a real number"),
        (None, "not a real number"),
    ],
)
def test_bad_variable_values(value: object, message: str) -> None:
    with pytest.raises(FormulaError, match=message):
        evaluate("x + 1", {"x": value})


def test_unused_bad_variables_are_ignored() -> None:
    assert evaluate("y * 2", {"x": "not a number", "y": 3}) == 6.0


def test_size_limits() -> None:
    with pytest.raises(FormulaError, match="1001 characters long; the limit is 1000"):
        evaluate("1" + " " * 1000, {})
    with pytest.raises(FormulaError, match="more than 200 expression nodes"):
        evaluate("+".join(["1"] * 101), {})
    assert evaluate("+".join(["1"] * 100), {}) == 100.0  # 199 nodes
    with pytest.raises(FormulaError, match="nested deeper than 30 levels"):
        evaluate("abs(" * 30 + "1" + ")" * 30, {})
    assert evaluate("abs(" * 29 + "1" + ")" * 29, {}) == 1.0  # 30 levels
    with pytest.raises(FormulaError, match="nested deeper than 30 levels"):
        evaluate("-" * 40 + "1", {})
    with pytest.raises(FormulaError, match="nested deeper than 30 levels"):
        evaluate("(" * 30 + "1" + " + 1) * 2" * 30, {})
    # a flat chain of one precedence level is a single level, however long
    assert evaluate(" + ".join(f"x{i}" for i in range(60)), {f"x{i}": i for i in range(60)}) == 1770
    assert evaluate("2 * 3 / 4 // 1 % 5 * 6", {}) == 6.0


def test_type_errors() -> None:
    with pytest.raises(InvalidTypeError, match="formula must be a str, not int"):
        evaluate(42, {})  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="formula must be a str, not list"):
        names(["x"])  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="variables must be a mapping, not list"):
        evaluate("x", [("x", 1)])  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError, match="stated must be a real number, not str"):
        check("1", {}, "1")  # type: ignore[arg-type]


def test_check_reproduced() -> None:
    result = check("(q3 - q2) / q2", {"q2": 100, "q3": 110}, 0.1)
    assert result == FormulaCheck(
        formula="(q3 - q2) / q2", stated=0.1, computed=0.1, reproduced=True
    )
    assert result.computed == pytest.approx(0.1, abs=1e-15)


def test_check_not_reproduced() -> None:
    result = check("(q3 - q2) / q2", {"q2": 100, "q3": 110}, 0.12)
    assert result.reproduced is False
    assert result.stated == 0.12
    assert result.computed == pytest.approx(0.1)
    # a percentage stated where a fraction is computed does not reproduce
    assert check("(q3 - q2) / q2", {"q2": 100, "q3": 110}, 10).reproduced is False


def test_check_tolerances() -> None:
    assert check("1 / 3", {}, 0.333).reproduced is False
    assert check("1 / 3", {}, 0.333, rel_tol=1e-2).reproduced is True
    assert check("1 / 3", {}, 0.33, abs_tol=0.01).reproduced is True
    assert check("0.1 + 0.2", {}, 0.3).reproduced is True


def test_check_raises_on_bad_formula() -> None:
    with pytest.raises(FormulaError, match="unknown name 'q1'"):
        check("q1 * 2", {}, 2.0)


def test_formula_check_is_frozen_and_slotted() -> None:
    result = check("1 + 1", {}, 2)
    assert not hasattr(result, "__dict__")
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        result.reproduced = False  # type: ignore[misc]


def test_formula_round_huge_negative_digits_is_bounded() -> None:
    from corollary.evidence.formula import evaluate

    # round(int, -n) costs O(n) digits: a small n shows the missing bound without hanging
    raises_typed(evaluate, "round(x, -100000)", {"x": 2})
