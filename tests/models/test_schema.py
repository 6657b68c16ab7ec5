"""tool_schema: OpenAI function schemas from signatures, annotations and docstrings."""

from __future__ import annotations

import collections.abc
import enum
import functools
from typing import Annotated, Any, Literal, Optional, Union

import pytest

from corollary.foundations.errors import InvalidInputError, InvalidTypeError
from corollary.models import tool_schema
from corollary.reasons.tools import tool


def params(fn, **kwargs) -> dict[str, Any]:
    return tool_schema(fn, **kwargs)["function"]["parameters"]


def test_scalars_defaults_and_required():
    def search(query: str, limit: int = 10, threshold: float = 0.5, exact: bool = False) -> list:
        """Search the archive."""

    assert tool_schema(search) == {
        "type": "function",
        "function": {
            "name": "search",
            "description": "Search the archive.",
            "parameters": {
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "limit": {"type": "integer", "default": 10},
                    "threshold": {"type": "number", "default": 0.5},
                    "exact": {"type": "boolean", "default": False},
                },
                "required": ["query"],
            },
        },
    }


class Colour(enum.Enum):
    RED = "red"
    GREEN = "green"


class Opaque:
    pass


# Each signature is read twice: with annotations as objects, and as strings
# (``from __future__ import annotations``), which tool_schema must resolve.
CONTAINERS = """
def f(
    tags: list[str],
    matrix: list[list[float]],
    pair: tuple[int, str],
    many: tuple[int, ...],
    unique: set[str],
    options: dict,
    scores: dict[str, float],
    note: Optional[str] = None,
    count: int | None = None,
    maybe_list: list[int] | None = None,
    either: Union[int, str] = 0,
    mode: Literal["fast", "slow"] = "fast",
    level: Literal[1, 2, "max"] = 1,
    colour: Colour = Colour.RED,
    seq: collections.abc.Sequence[int] = (),
    bare: list = None,
) -> None:
    pass
"""

UNSUPPORTED = """
def f(a: Opaque, b: Any, c, d: "NoSuchName", e: list[Opaque], f: Optional[Opaque] = None,
      g: {"not": "a type"} = 1, h: Literal[Opaque] = None, i: "list[int]" = ()) -> None:
    pass
"""


def define(source: str, postponed: bool) -> Any:
    namespace = {"Any": Any, "Optional": Optional, "Union": Union, "Literal": Literal,
                 "collections": collections, "Colour": Colour, "Opaque": Opaque}
    prefix = "from __future__ import annotations\n" if postponed else ""
    # dont_inherit: this module's own ``from __future__ import annotations`` must not leak in
    exec(compile(prefix + source, "<signature>", "exec", dont_inherit=True), namespace)  # noqa: S102 - our own text
    return namespace["f"]


@pytest.mark.parametrize("postponed", [False, True])
def test_containers_optionals_literals_and_enums(postponed):
    p = params(define(CONTAINERS, postponed))
    assert p["properties"] == {
        "tags": {"type": "array", "items": {"type": "string"}},
        "matrix": {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
        "pair": {"type": "array"},
        "many": {"type": "array", "items": {"type": "integer"}},
        "unique": {"type": "array", "items": {"type": "string"}},
        "options": {"type": "object"},
        "scores": {"type": "object", "additionalProperties": {"type": "number"}},
        "note": {"type": ["string", "null"], "default": None},
        "count": {"type": ["integer", "null"], "default": None},
        "maybe_list": {"type": ["array", "null"], "items": {"type": "integer"}, "default": None},
        "either": {"type": ["integer", "string"], "default": 0},
        "mode": {"type": "string", "enum": ["fast", "slow"], "default": "fast"},
        "level": {"enum": [1, 2, "max"], "default": 1},
        "colour": {"type": "string", "enum": ["red", "green"]},  # an Enum default is not JSON
        "seq": {"type": "array", "items": {"type": "integer"}, "default": []},
        "bare": {"type": "array", "default": None},
    }
    assert p["required"] == ["tags", "matrix", "pair", "many", "unique", "options", "scores"]


@pytest.mark.parametrize("postponed", [False, True])
def test_unsupported_annotations_are_no_constraint(postponed):
    assert params(define(UNSUPPORTED, postponed))["properties"] == {
        "a": {}, "b": {}, "c": {}, "d": {}, "e": {"type": "array"}, "f": {"default": None},
        "g": {"default": 1}, "h": {"default": None},
        "i": {"type": "array", "items": {"type": "integer"}, "default": []},
    }


def test_numpydoc_docstring():
    def quote(symbol: str, venue: str = "NYSE", *args: Any, depth: int = 1, **kwargs: Any) -> float:
        """Last trade price of a stock,
        as the exchange reports it.

        More detail that is not the description.

        Parameters
        ----------
        symbol : str
            The ticker,
            in capitals.
        venue, depth : optional
            Where, and how deep.
        *args
            Ignored.

        Returns
        -------
        float
        """

    schema = tool_schema(quote)["function"]
    assert schema["description"] == "Last trade price of a stock, as the exchange reports it."
    assert schema["parameters"]["properties"] == {
        "symbol": {"type": "string", "description": "The ticker, in capitals."},
        "venue": {"type": "string", "description": "Where, and how deep.", "default": "NYSE"},
        "depth": {"type": "integer", "description": "Where, and how deep.", "default": 1},
    }


def test_google_and_sphinx_docstrings_and_annotated():
    def google(city: str, days: int = 3, units: Annotated[str, "metric or imperial"] = "metric") -> str:
        """Weather forecast.
        Args:
            city (str): The city's name,
                as on a map.
            days: How many days.

        Returns:
            The forecast.
        """

    def sphinx(city: str, days: int) -> str:
        """Weather forecast.

        :param city: The city's name.
        :param int days: How many
            days ahead.
        :returns: the forecast
        """

    g = tool_schema(google)["function"]
    assert g["description"] == "Weather forecast."
    assert {k: v.get("description") for k, v in g["parameters"]["properties"].items()} == {
        "city": "The city's name, as on a map.", "days": "How many days.", "units": "metric or imperial"}
    s = tool_schema(sphinx)["function"]
    assert s["description"] == "Weather forecast."
    assert {k: v.get("description") for k, v in s["parameters"]["properties"].items()} == {
        "city": "The city's name.", "days": "How many days ahead."}


def test_wrapped_functions_are_read_through():
    def logged(fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            return fn(*args, **kwargs)
        return wrapper

    @logged
    def convert(amount: float, currency: Literal["EUR", "USD"] = "EUR") -> float:
        """Convert an amount.

        Parameters
        ----------
        amount : float
            How much.
        """
        return amount

    schema = tool_schema(convert)
    assert schema["function"]["name"] == "convert"
    assert schema["function"]["description"] == "Convert an amount."
    assert schema["function"]["parameters"] == {
        "type": "object",
        "properties": {
            "amount": {"type": "number", "description": "How much."},
            "currency": {"type": "string", "enum": ["EUR", "USD"], "default": "EUR"},
        },
        "required": ["amount"],
    }


def test_corollary_tools_keep_their_schema():
    @tool(trust="high", name="stock_quote")
    def quote(symbol: str) -> float:
        """Last trade price."""
        return 1.0

    schema = tool_schema(quote, name="stock_quote")["function"]
    assert schema == {"name": "stock_quote", "description": "Last trade price.", "parameters": {
        "type": "object", "properties": {"symbol": {"type": "string"}}, "required": ["symbol"]}}


def test_methods_partials_and_callable_objects():
    class Desk:
        def quote(self, symbol: str) -> float:
            """Quote."""
            return 1.0

        def __call__(self, symbol: str, size: int = 1) -> None:
            """Trade."""

    assert params(Desk().quote)["properties"] == {"symbol": {"type": "string"}}
    assert params(Desk(), name="trade")["properties"] == {"symbol": {"type": "string"},
                                                            "size": {"type": "integer", "default": 1}}

    def fee(amount: float, rate: float) -> float:
        return amount * rate

    assert params(functools.partial(fee, rate=0.1), name="fee") == {
        "type": "object",
        "properties": {"amount": {"type": "number"}, "rate": {"type": "number", "default": 0.1}},
        "required": ["amount"],
    }


def test_name_and_description_overrides_and_bad_input():
    def f(x: int) -> None:
        pass

    schema = tool_schema(f, name="other-name_2", description="Does things.")["function"]
    assert (schema["name"], schema["description"]) == ("other-name_2", "Does things.")
    assert "description" not in tool_schema(f)["function"]
    with pytest.raises(InvalidTypeError):
        tool_schema("f")  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError):
        tool_schema(f, name="has space")
    with pytest.raises(InvalidInputError):
        tool_schema(f, name="x" * 65)
    with pytest.raises(InvalidTypeError):
        tool_schema(f, name=3)  # type: ignore[arg-type]
    with pytest.raises(InvalidTypeError):
        tool_schema(f, description=3)  # type: ignore[arg-type]
    with pytest.raises(InvalidInputError, match="no __name__"):
        tool_schema(functools.partial(f, 1))
